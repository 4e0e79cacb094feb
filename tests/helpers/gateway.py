"""Builders of Gateway API objects for tests and benchmarks (raw dicts as the API server returns them)."""

from __future__ import annotations

from typing import Any

GROUP = "gateway.networking.k8s.io"
API_VERSIONS = {"Gateway": f"{GROUP}/v1", "ListenerSet": f"{GROUP}/v1", "HTTPRoute": f"{GROUP}/v1", "GRPCRoute": f"{GROUP}/v1",
                "TLSRoute": f"{GROUP}/v1alpha2", "TCPRoute": f"{GROUP}/v1alpha2", "UDPRoute": f"{GROUP}/v1alpha2"}
PLURALS = {kind: kind.lower() + "s" for kind in API_VERSIONS}
NOW = "2026-11-25T10:00:00Z"


def path(kind: str, namespace: str = "default", name: str = "") -> str:
    out = f"/apis/{API_VERSIONS[kind]}/namespaces/{namespace}/{PLURALS[kind]}"
    return f"{out}/{name}" if name else out


def listener(name: str = "http", protocol: str = "HTTP", port: int = 80, hostname: str | None = None,
             **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "protocol": protocol, "port": port}
    if hostname is not None:
        out["hostname"] = hostname
    out.update(extra)
    return out


def gateway(name: str = "gw", namespace: str = "default", listeners: list[dict[str, Any]] | None = None,
            addresses: list[str] | None = None, annotations: dict[str, str] | None = None,
            labels: dict[str, str] | None = None, allowed_listeners: dict[str, Any] | None = None) -> dict[str, Any]:
    """`allowed_listeners`: spec.allowedListeners.namespaces (which ListenerSets may attach)."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    obj: dict[str, Any] = {"apiVersion": API_VERSIONS["Gateway"], "kind": "Gateway", "metadata": meta,
                           "spec": {"gatewayClassName": "example",
                                    "listeners": listeners if listeners is not None else [listener()]}}
    if allowed_listeners is not None:
        obj["spec"]["allowedListeners"] = {"namespaces": allowed_listeners}
    if addresses is not None:
        obj["status"] = {"addresses": [{"type": "Hostname" if any(c.isalpha() for c in a) and ":" not in a
                                        else "IPAddress", "value": a} for a in addresses]}
    return obj


def condition(type_: str = "Accepted", status: str = "True") -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": type_ if status == "True" else "NotAllowedByListeners",
            "message": "", "lastTransitionTime": NOW, "observedGeneration": 1}


def parent_status(ref: dict[str, Any], accepted: bool = True) -> dict[str, Any]:
    return {"parentRef": ref, "controllerName": "example.org/gateway-controller",
            "conditions": [condition("Accepted", "True" if accepted else "False")]}


def listener_set(name: str = "ls", namespace: str = "default", *, gateway: str = "gw",
                 gateway_namespace: str | None = None, listeners: list[dict[str, Any]] | None = None,
                 accepted: bool | None = True, accepted_listeners: list[str] | None = None,
                 annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """A ListenerSet attached to Gateway `gateway`; status: the set `Accepted` (None: no condition) and each
    listener in `accepted_listeners` (default: all of them) accepted."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if annotations:
        meta["annotations"] = annotations
    parent: dict[str, Any] = {"name": gateway}
    if gateway_namespace is not None:
        parent["namespace"] = gateway_namespace
    entries = listeners if listeners is not None else [listener("app", port=8080)]
    names = accepted_listeners if accepted_listeners is not None else [e["name"] for e in entries]
    status: dict[str, Any] = {"listeners": [{"name": n, "conditions": [condition()]} for n in names]}
    if accepted is not None:
        status["conditions"] = [condition("Accepted", "True" if accepted else "False")]
    return {"apiVersion": API_VERSIONS["ListenerSet"], "kind": "ListenerSet", "metadata": meta,
            "spec": {"parentRef": parent, "listeners": entries}, "status": status}


def ls_ref(name: str = "ls", namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    """A parentRef to a ListenerSet."""
    ref: dict[str, Any] = {"group": GROUP, "kind": "ListenerSet", "name": name, **extra}
    if namespace is not None:
        ref["namespace"] = namespace
    return ref


def route(kind: str = "HTTPRoute", name: str = "echo", namespace: str = "default",
          hostnames: list[str] | None = None, parents: list[dict[str, Any]] | None = None,
          accepted: bool | list[bool] = True, annotations: dict[str, str] | None = None,
          labels: dict[str, str] | None = None, status: bool = True) -> dict[str, Any]:
    """A route whose spec.parentRefs are `parents` (default: Gateway "gw") and, with `status`, whose
    status.parents carry the same refs with Accepted = `accepted` (one bool, or one per parent)."""
    refs = parents if parents is not None else [{"name": "gw"}]
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    spec: dict[str, Any] = {"parentRefs": refs}
    if hostnames is not None:
        spec["hostnames"] = hostnames
    if kind in ("TLSRoute", "TCPRoute", "UDPRoute"):
        spec["rules"] = [{"backendRefs": [{"name": "backend", "port": 443}]}]
    else:
        spec["rules"] = [{"backendRefs": [{"name": "backend", "port": 8080}],
                          "matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}]
    obj: dict[str, Any] = {"apiVersion": API_VERSIONS[kind], "kind": kind, "metadata": meta, "spec": spec}
    if status:
        flags = accepted if isinstance(accepted, list) else [accepted] * len(refs)
        obj["status"] = {"parents": [parent_status(ref, ok) for ref, ok in zip(refs, flags, strict=True)]}
    return obj
