"""Per-kind defaulting and strategy hooks of the test API server (what kube-apiserver fills in on write).

Only what clients of this project observe: Namespace phase/finalizers/name label, Service type, cluster IPs,
port protocol/targetPort/nodePorts and empty load-balancer status, Ingress/Pod status shells.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import itertools
from typing import Any

from tests.kubeapi.errors import bad_request, invalid
from tests.kubeapi.resources import ResourceType


class Allocator:
    """Cluster IPs (10.96.0.0/12) and node ports (30000-32767), never reused within a server's life."""

    def __init__(self) -> None:
        self._ips = itertools.count(int(ipaddress.IPv4Address("10.96.0.10")))
        self._ports = itertools.count(30000)

    def cluster_ip(self) -> str:
        return str(ipaddress.IPv4Address(next(self._ips)))

    def node_port(self) -> int:
        return 30000 + (next(self._ports) - 30000) % 2768


def apply_create_defaults(rt: ResourceType, obj: dict[str, Any], alloc: Allocator) -> None:
    """Fill in server defaults on a freshly created object (mutates `obj`)."""
    meta = obj["metadata"]
    if rt.kind == "Namespace" and rt.group == "":
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", ["kubernetes"])
        obj["status"] = {"phase": "Active"}
    elif rt.kind == "Service" and rt.group == "":
        _service_defaults(rt, obj, alloc, None)
        obj["status"] = {"loadBalancer": {}}
    elif rt.kind == "Ingress":
        obj["status"] = {"loadBalancer": {}}
    elif rt.kind == "Pod":
        obj["status"] = {"phase": "Pending"}
    elif rt.kind == "Node":
        obj.setdefault("spec", {})
        obj.setdefault("status", {})
    elif rt.kind == "Secret" and rt.group == "":
        _secret_data(obj)


def apply_update_defaults(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any], alloc: Allocator) -> None:
    """Defaults and immutability on an update of the main resource (mutates `obj`)."""
    if rt.kind == "Namespace" and rt.group == "":
        obj.setdefault("metadata", {}).setdefault("labels", {})["kubernetes.io/metadata.name"] = old["metadata"]["name"]
        obj.setdefault("spec", {}).setdefault("finalizers", old.get("spec", {}).get("finalizers", ["kubernetes"]))
    elif rt.kind == "Service" and rt.group == "":
        _service_defaults(rt, obj, alloc, old)
    elif rt.kind == "Secret" and rt.group == "":
        _secret_data(obj)


def apply_status_defaults(rt: ResourceType, obj: dict[str, Any]) -> None:
    """Defaults on a status write (mutates `obj`): a Service's load-balancer ingress with an IP gets
    `ipMode: VIP` (LoadBalancerIPMode, GA in 1.32); an Ingress's status has no ipMode."""
    if rt.kind != "Service" or rt.group != "":
        return
    for ingress in ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []:
        if isinstance(ingress, dict) and ingress.get("ip") and not ingress.get("ipMode"):
            ingress["ipMode"] = "VIP"


def _service_defaults(rt: ResourceType, obj: dict[str, Any], alloc: Allocator, old: dict[str, Any] | None) -> None:
    spec = obj.setdefault("spec", {})
    old_spec = (old or {}).get("spec", {})
    stype = spec.setdefault("type", "ClusterIP")
    name = obj["metadata"].get("name", "")
    if stype != "ExternalName":
        if old is not None and old_spec.get("clusterIP"):
            if spec.get("clusterIP") in (None, ""):
                spec["clusterIP"] = old_spec["clusterIP"]
                spec["clusterIPs"] = list(old_spec.get("clusterIPs") or [old_spec["clusterIP"]])
            elif spec["clusterIP"] != old_spec["clusterIP"]:
                raise invalid("Service", name, [("spec.clusterIPs[0]", "FieldValueInvalid",
                                                 f'Invalid value: []string{{"{spec["clusterIP"]}"}}: may not '
                                                 f"change once set")])
        if not spec.get("clusterIP"):
            spec["clusterIP"] = alloc.cluster_ip()
        spec.setdefault("clusterIPs", [spec["clusterIP"]])
        spec.setdefault("sessionAffinity", "None")
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        spec.setdefault("internalTrafficPolicy", "Cluster")
    if stype in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    old_ports = {p.get("port"): p for p in old_spec.get("ports") or [] if isinstance(p, dict)}
    for i, port in enumerate(spec.get("ports") or []):
        if not isinstance(port, dict) or "port" not in port:
            raise invalid("Service", name, [(f"spec.ports[{i}].port", "FieldValueRequired", "Required value")])
        port.setdefault("protocol", "TCP")
        port.setdefault("targetPort", port["port"])
        if stype in ("NodePort", "LoadBalancer") and not port.get("nodePort"):
            prev = old_ports.get(port["port"], {}).get("nodePort")
            port["nodePort"] = prev or alloc.node_port()


def _secret_data(obj: dict[str, Any]) -> None:
    """Secret: type defaults to Opaque, stringData is folded into data (base64), data must be base64."""
    obj.setdefault("type", "Opaque")
    data = obj.get("data") or {}
    name = obj["metadata"].get("name", "")
    for key, value in data.items():
        try:
            base64.b64decode(str(value), validate=True)
        except (binascii.Error, ValueError):
            raise bad_request(f'Secret in version "v1" cannot be handled as a Secret: illegal base64 data in '
                              f"data[{key!r}] of secret {name!r}") from None
    string_data = obj.pop("stringData", None) or {}
    for key, value in string_data.items():
        data[key] = base64.b64encode(str(value).encode()).decode()
    if data:
        obj["data"] = data
