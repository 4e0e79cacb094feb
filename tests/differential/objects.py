"""Kubernetes objects for the differential scenarios, as a cluster holds them: Services with ports (the real
API server allocates cluster IPs and node ports), load-balancer status written through `/status`, Nodes with
addresses, Pods with their IPs and EndpointSlices naming them (what the controllers of a real cluster would
write). Every builder takes the scenario's namespace; annotations are given without the prefix
(`external-dns.kubernetes.io/`, the v0.22 default of both programs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tests.differential.cluster import Obj

PREFIX = "external-dns.kubernetes.io/"


def _annotations(short: Mapping[str, str] | None) -> dict[str, str]:
    return {(k if "/" in k else PREFIX + k): v for k, v in (short or {}).items()}


def _with_lb_status(obj: Obj, ips: Sequence[str], hostnames: Sequence[str]) -> Obj:
    """`obj` with the load-balancer status its controller would write (none without addresses)."""
    ingress: list[dict[str, str]] = [{"ip": ip} for ip in ips] + [{"hostname": h} for h in hostnames]
    if ingress:
        obj["status"] = {"loadBalancer": {"ingress": ingress}}
    return obj


def service(ns: str, name: str, *, kind: str = "LoadBalancer", annotations: Mapping[str, str] | None = None,
            lb_ips: Sequence[str] = (), lb_hostnames: Sequence[str] = (), headless: bool = False,
            external_name: str = "", selector: Mapping[str, str] | None = None,
            ports: Sequence[tuple[str, int]] = (("http", 80),), policy: str = "") -> Obj:
    spec: dict[str, Any] = {"type": kind}
    if kind == "ExternalName":
        spec["externalName"] = external_name
    else:
        spec["ports"] = [{"name": pname, "port": port, "protocol": "TCP"} for pname, port in ports]
        spec["selector"] = dict(selector or {"app": name})
    if headless:
        spec["clusterIP"] = "None"
    if policy:
        spec["externalTrafficPolicy"] = policy
    return _with_lb_status({"apiVersion": "v1", "kind": "Service",
                            "metadata": {"name": name, "namespace": ns, "annotations": _annotations(annotations)},
                            "spec": spec}, lb_ips, lb_hostnames)


def node(name: str, external: Sequence[str] = (), internal: Sequence[str] = (),
         labels: Mapping[str, str] | None = None) -> Obj:
    addresses = ([{"type": "ExternalIP", "address": a} for a in external]
                 + [{"type": "InternalIP", "address": a} for a in internal]
                 + [{"type": "Hostname", "address": name}])
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": {}, "status": {"addresses": addresses, "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(ns: str, name: str, ip: str, node_name: str, host_ip: str, labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None, hostname: str = "", subdomain: str = "") -> Obj:
    spec: dict[str, Any] = {"nodeName": node_name, "containers": [{"name": "app", "image": "registry.test/app:1"}]}
    if hostname:
        spec["hostname"] = hostname
    if subdomain:
        spec["subdomain"] = subdomain
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": dict(labels or {}),
                         "annotations": _annotations(annotations)},
            "spec": spec,
            "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": host_ip,
                       "hostIPs": [{"ip": host_ip}],
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def endpoint_slice(ns: str, service_name: str, endpoints: Sequence[Mapping[str, Any]],
                   ports: Sequence[tuple[str, int]] = (("http", 80),), suffix: str = "a") -> Obj:
    """`endpoints`: dicts with `ip`, optional `hostname`, `pod` (target Pod name), `node`, `ready` (default
    True)."""
    eps = []
    for e in endpoints:
        ep: dict[str, Any] = {"addresses": [e["ip"]], "conditions": {"ready": e.get("ready", True)}}
        if e.get("hostname"):
            ep["hostname"] = e["hostname"]
        if e.get("pod"):
            ep["targetRef"] = {"kind": "Pod", "name": e["pod"], "namespace": ns}
        if e.get("node"):
            ep["nodeName"] = e["node"]
        eps.append(ep)
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{service_name}-{suffix}", "namespace": ns,
                         "labels": {"kubernetes.io/service-name": service_name,
                                    "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
            "addressType": "IPv4", "endpoints": eps,
            "ports": [{"name": pname, "port": port, "protocol": "TCP"} for pname, port in ports]}


def ingress(ns: str, name: str, *, hosts: Sequence[str] = (), tls_hosts: Sequence[str] = (),
            ingress_class: str = "", annotations: Mapping[str, str] | None = None, lb_ips: Sequence[str] = (),
            lb_hostnames: Sequence[str] = ()) -> Obj:
    backend = {"service": {"name": "backend", "port": {"number": 80}}}
    spec: dict[str, Any] = {"rules": [{"host": h, "http": {"paths": [{"path": "/", "pathType": "Prefix",
                                                                    "backend": backend}]}} for h in hosts]}
    if not hosts:
        spec = {"defaultBackend": backend}
    if tls_hosts:
        spec["tls"] = [{"hosts": list(tls_hosts), "secretName": f"{name}-tls"}]
    if ingress_class:
        spec["ingressClassName"] = ingress_class
    return _with_lb_status({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                            "metadata": {"name": name, "namespace": ns, "annotations": _annotations(annotations)},
                            "spec": spec}, lb_ips, lb_hostnames)


def dns_endpoint(ns: str, name: str, endpoints: Sequence[Mapping[str, Any]],
                 annotations: Mapping[str, str] | None = None) -> Obj:
    """`endpoints`: dicts in the CRD's own spelling (dnsName, recordType, targets, recordTTL, setIdentifier,
    labels, providerSpecific)."""
    return {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
            "metadata": {"name": name, "namespace": ns, "annotations": _annotations(annotations)},
            "spec": {"endpoints": [dict(e) for e in endpoints]}}
