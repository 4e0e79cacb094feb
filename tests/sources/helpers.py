"""Builders of raw Kubernetes dicts for the source tests."""

from __future__ import annotations

from typing import Any

from external_dns.endpoint.endpoint import Endpoint

PREFIX = "external-dns.kubernetes.io/"


def ann(**kwargs: str) -> dict[str, str]:
    """`ann(hostname="a.org", ttl="60")` -> annotations under the default prefix (`_` becomes `-`)."""
    return {PREFIX + k.replace("_", "-"): v for k, v in kwargs.items()}


def meta(name: str, namespace: str = "default", annotations: dict[str, str] | None = None,
         labels: dict[str, str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "namespace": namespace}
    if annotations:
        out["annotations"] = annotations
    if labels:
        out["labels"] = labels
    return out


def service(name: str = "web", namespace: str = "default", *, type: str = "LoadBalancer",
            annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None,
            lb_ips: tuple[str, ...] = (), lb_hostnames: tuple[str, ...] = (), cluster_ip: str = "10.0.0.1",
            spec: dict[str, Any] | None = None) -> dict[str, Any]:
    ingress: list[dict[str, str]] = [{"ip": ip} for ip in lb_ips] + [{"hostname": h} for h in lb_hostnames]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(name, namespace, annotations, labels),
        "spec": {"type": type, "clusterIP": cluster_ip, **(spec or {})},
        "status": {"loadBalancer": {"ingress": ingress}},
    }


def node(name: str, *, external: tuple[str, ...] = (), internal: tuple[str, ...] = (),
         unschedulable: bool = False) -> dict[str, Any]:
    addresses = [{"type": "ExternalIP", "address": a} for a in external]
    addresses += [{"type": "InternalIP", "address": a} for a in internal]
    addresses.append({"type": "Hostname", "address": name})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "spec": {"unschedulable": unschedulable}, "status": {"addresses": addresses}}


def pod(name: str, namespace: str = "default", *, node_name: str = "n1", labels: dict[str, str] | None = None,
        phase: str = "Running", ready: bool = True, terminating: bool = False, hostname: str = "",
        host_ip: str = "", annotations: dict[str, str] | None = None) -> dict[str, Any]:
    m = meta(name, namespace, annotations, labels)
    if terminating:
        m["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    spec: dict[str, Any] = {"nodeName": node_name}
    if hostname:
        spec["hostname"] = hostname
    return {"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec,
            "status": {"phase": phase, "hostIP": host_ip,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def endpoint_slice(service_name: str, endpoints: list[tuple[str, str, bool | None]], namespace: str = "default",
                   address_type: str = "IPv4", name: str = "") -> dict[str, Any]:
    """endpoints: (pod name, address, ready) triples (ready None = condition absent)."""
    items: list[dict[str, Any]] = []
    for pod_name, address, ready in endpoints:
        item: dict[str, Any] = {"addresses": [address], "targetRef": {"kind": "Pod", "name": pod_name}}
        item["conditions"] = {} if ready is None else {"ready": ready}
        items.append(item)
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name or f"{service_name}-abc", "namespace": namespace,
                         "labels": {"kubernetes.io/service-name": service_name}},
            "addressType": address_type, "endpoints": items}


def ingress(name: str = "web", namespace: str = "default", *, hosts: tuple[str, ...] = (),
            tls_hosts: tuple[str, ...] = (), annotations: dict[str, str] | None = None,
            lb_ips: tuple[str, ...] = ("1.2.3.4",), lb_hostnames: tuple[str, ...] = (),
            class_name: str | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"rules": [{"host": h} for h in hosts]}
    if tls_hosts:
        spec["tls"] = [{"hosts": list(tls_hosts)}]
    if class_name is not None:
        spec["ingressClassName"] = class_name
    lb = [{"ip": ip} for ip in lb_ips] + [{"hostname": h} for h in lb_hostnames]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": meta(name, namespace, annotations, labels), "spec": spec,
            "status": {"loadBalancer": {"ingress": lb}}}


def dnsendpoint(name: str = "rec", namespace: str = "default", endpoints: list[Any] | None = None,
                labels: dict[str, str] | None = None,
                annotations: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
            "metadata": meta(name, namespace, annotations, labels), "spec": {"endpoints": endpoints or []}}


def summary(endpoints: list[Endpoint]) -> set[tuple[str, str, tuple[str, ...], int]]:
    """(name, type, targets, ttl) of each endpoint, as a set (order-insensitive comparisons)."""
    return {(e.dns_name, e.record_type, tuple(e.targets), e.record_ttl) for e in endpoints}
