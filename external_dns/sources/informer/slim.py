"""Transformers that slim the objects the in-cluster sources cache down to the fields they read (each
transformer says which). Every kind loses `managedFields`, the last-applied-configuration annotation and
annotations outside the external-dns prefix and the filters' keys; with an `--fqdn-template` (which may
read any field) objects are kept whole apart from that. A field of an unexpected shape is kept as it is so
the object -> endpoints code can report it by name: transformers never raise and are idempotent."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from external_dns.informers.transform import LAST_APPLIED, Transformer
from external_dns.sources.annotations import WELL_KNOWN_PREFIXES
from external_dns.sources.informer.compact import compact

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_INTERN_MAX = 64

_META_KEYS = ("name", "namespace", "uid", "resourceVersion", "generation", "labels", "annotations",
              "deletionTimestamp")
_POD_META_KEYS = ("name", "namespace", "uid", "resourceVersion", "labels", "annotations", "deletionTimestamp")
_NODE_META_KEYS = ("name", "uid", "resourceVersion")
_SLICE_META_KEYS = ("name", "namespace", "uid", "resourceVersion", "labels")
_SERVICE_META_KEYS = ("name", "namespace", "resourceVersion", "labels", "annotations", "deletionTimestamp")
_SERVICE_SPEC_KEYS = ("type", "clusterIP", "externalIPs", "externalName", "ports", "selector",
                      "externalTrafficPolicy", "publishNotReadyAddresses")
_SERVICE_SPEC_KEYS_NO_NODEPORT = ("type", "clusterIP", "externalIPs", "externalName", "publishNotReadyAddresses")
_PORT_KEYS = ("name", "port", "nodePort", "protocol")
_LB_KEYS = ("ip", "hostname")


def _i(value: Any) -> Any:
    if isinstance(value, str) and len(value) <= _INTERN_MAX:
        return sys.intern(value)
    return value


def _pick(obj: Any, keys: Iterable[str]) -> Any:
    """A dict with only `keys` (interned); anything that is not a dict comes back unchanged."""
    if not isinstance(obj, dict):
        return obj
    return {sys.intern(k): _i(obj[k]) for k in keys if k in obj}


def _pick_list(items: Any, keys: Iterable[str]) -> Any:
    if not isinstance(items, list):
        return items
    keys = tuple(keys)
    return [_c(_pick(item, keys)) for item in items]


# Below `metadata` (label maps aside: their keys are unbounded) dict leaves become CompactMappings
# (immutable, read through Mapping): most of the saving for small objects. Short strings are interned.
def _c(value: Any) -> Any:
    """A compact read-only mapping for a dict leaf (anything else unchanged)."""
    return compact(value) if isinstance(value, dict) and value else value


def _interned_map(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    return {_i(k): _i(v) for k, v in value.items()}


def annotation_keeper(prefix: str, extra_keys: Iterable[str] = ()) -> Callable[[str], bool]:
    """Which annotation keys to keep: the external-dns prefix, the other well-known external-dns prefixes
    (only their presence is read: annotations.ignored_prefix_problem warns that they are not) and the listed
    keys."""
    extra = frozenset(extra_keys)
    prefixes = tuple(dict.fromkeys((prefix, *WELL_KNOWN_PREFIXES)))

    def keep(key: str) -> bool:
        return key.startswith(prefixes) or key in extra

    return keep


def _slim_meta(meta: Any, keys: Iterable[str], keep_annotation: Callable[[str], bool] | None) -> Any:
    if not isinstance(meta, dict):
        return meta
    out = _pick(meta, keys)
    annotations = out.get("annotations")
    if isinstance(annotations, dict):
        kept = {_i(k): v for k, v in annotations.items()
                if isinstance(k, str) and k != LAST_APPLIED and (keep_annotation is None or keep_annotation(k))}
        if kept:
            out["annotations"] = _c(kept) if keep_annotation is not None else kept
        else:
            del out["annotations"]
    labels = out.get("labels")
    if isinstance(labels, dict):
        out["labels"] = _interned_map(labels)
    return out


def _top(obj: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("apiVersion", "kind"):
        if key in obj:
            out[key] = _i(obj[key])
    return out


def _lb_status(status: Any) -> Any:
    if not isinstance(status, dict):
        return status
    lb = status.get("loadBalancer")
    if not isinstance(lb, dict):
        return {"loadBalancer": lb} if "loadBalancer" in status else {}
    out_lb: dict[str, Any] = {}
    if "ingress" in lb:
        out_lb["ingress"] = _pick_list(lb["ingress"], _LB_KEYS)
    return {"loadBalancer": _c(out_lb) if out_lb else {}}


def generic_transformer(keep_annotation: Callable[[str], bool] | None) -> Transformer:
    """Drop managedFields, last-applied-configuration, status.conditions and annotations not kept (the
    whole object otherwise: used when an FQDN template may read any field)."""

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
            annotations = meta.get("annotations")
            if isinstance(annotations, dict):
                kept = {k: v for k, v in annotations.items() if isinstance(k, str) and k != LAST_APPLIED
                        and (keep_annotation is None or keep_annotation(k))}
                if kept:
                    meta["annotations"] = kept
                else:
                    del meta["annotations"]
        status = obj.get("status")
        if isinstance(status, dict):
            status.pop("conditions", None)
        return obj

    return transform


def service_transformer(keep_annotation: Callable[[str], bool] | None, *, keep_labels: bool = True) -> Transformer:
    """Services: ports, selector and externalTrafficPolicy only for NodePort Services (SRV records, node
    selection), labels only with `keep_labels` (a label filter reads them), no uid/generation."""

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            meta = _slim_meta(obj["metadata"], _SERVICE_META_KEYS, keep_annotation)
            if not keep_labels and isinstance(meta, dict):
                meta.pop("labels", None)
            out["metadata"] = meta
        spec = obj.get("spec")
        if isinstance(spec, dict):
            node_port = spec.get("type") == "NodePort"
            slim = _pick(spec, _SERVICE_SPEC_KEYS if node_port else _SERVICE_SPEC_KEYS_NO_NODEPORT)
            if "ports" in slim:
                slim["ports"] = _pick_list(spec["ports"], _PORT_KEYS)
            if isinstance(slim.get("selector"), dict):
                slim["selector"] = _interned_map(slim["selector"])
            out["spec"] = _c(slim)
        elif "spec" in obj:
            out["spec"] = spec
        if "status" in obj:
            status = _lb_status(obj["status"])
            if status != {} and status != {"loadBalancer": {}}:
                out["status"] = _c(status)
        return out

    return transform


def ingress_transformer(keep_annotation: Callable[[str], bool] | None) -> Transformer:
    """Ingresses: metadata; spec (ingressClassName, rules[host], tls[hosts]); status.loadBalancer."""
    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], _META_KEYS, keep_annotation)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            slim = _pick(spec, ("ingressClassName", "rules", "tls"))
            if "rules" in slim:
                slim["rules"] = _pick_list(spec["rules"], ("host",))
            if "tls" in slim:
                slim["tls"] = _pick_list(spec["tls"], ("hosts",))
            out["spec"] = _c(slim)
        elif "spec" in obj:
            out["spec"] = spec
        if "status" in obj:
            out["status"] = _c(_lb_status(obj["status"]))
        return out

    return transform


def dnsendpoint_transformer(keep_annotation: Callable[[str], bool] | None) -> Transformer:
    """DNSEndpoints: metadata; the whole spec; status.observedGeneration."""
    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], _META_KEYS, keep_annotation)
        if "spec" in obj:
            out["spec"] = obj["spec"]
        status = obj.get("status")
        if isinstance(status, dict):
            out["status"] = _pick(status, ("observedGeneration",))
        elif "status" in obj:
            out["status"] = status
        return out

    return transform


# What a source sharing the Pod / Node informer needs kept (the informer holds the union, see
# sources/informer/base.py `_shared_informer`): "labels", "annotations", "podsource" (hostNetwork, podIP,
# podIPs), "all" (an FQDN template may read any field: generic slimming only).
NEED_LABELS = "labels"
NEED_ANNOTATIONS = "annotations"
NEED_POD_SOURCE = "podsource"
NEED_ALL = "all"


def pod_transformer(prefix: str) -> Transformer:
    """The service source's Pod slimming (labels for selectors, prefix annotations)."""
    return pod_transformer_for(frozenset({NEED_LABELS, NEED_ANNOTATIONS}), annotation_keeper(prefix))


def pod_transformer_for(needs: frozenset[str], keep: Callable[[str], bool] | None) -> Transformer:
    """Pods: metadata (labels with NEED_LABELS, kept annotations with NEED_ANNOTATIONS); spec (hostname,
    nodeName; hostNetwork with NEED_POD_SOURCE); status (phase, hostIP, the Ready condition; podIP, podIPs
    with NEED_POD_SOURCE). NEED_ALL: generic slimming."""
    if NEED_ALL in needs:
        return generic_transformer(keep)
    pod_source = NEED_POD_SOURCE in needs
    meta_keys = tuple(k for k in _POD_META_KEYS if (k != "labels" or NEED_LABELS in needs)
                      and (k != "annotations" or NEED_ANNOTATIONS in needs))
    spec_keys = ("hostname", "nodeName", "hostNetwork") if pod_source else ("hostname", "nodeName")
    status_keys = ("phase", "hostIP", "podIP") if pod_source else ("phase", "hostIP")

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], meta_keys, keep)
        if "spec" in obj:
            out["spec"] = _c(_pick(obj["spec"], spec_keys))
        status = obj.get("status")
        if isinstance(status, dict):
            slim = _pick(status, status_keys)
            conditions = status.get("conditions")
            if isinstance(conditions, list):
                ready = [_c(_pick(c, ("type", "status"))) for c in conditions
                         if isinstance(c, dict) and c.get("type") == "Ready"]
                if ready:
                    slim["conditions"] = ready
            if pod_source and "podIPs" in status:
                ips = status["podIPs"]
                # one address (single stack) repeats status.podIP: keep it only for dual-stack pods
                if not (isinstance(ips, list) and len(ips) == 1 and isinstance(ips[0], dict)
                        and ips[0].get("ip") == status.get("podIP")):
                    slim["podIPs"] = _pick_list(ips, ("ip",))
            out["status"] = _c(slim)
        elif "status" in obj:
            out["status"] = status
        return out

    return transform


def node_transformer(obj: dict[str, Any]) -> dict[str, Any]:
    """The service source's Node slimming (names, unschedulable, addresses)."""
    return _NODE_PLAIN(obj)


def node_transformer_for(needs: frozenset[str], keep: Callable[[str], bool] | None) -> Transformer:
    """Nodes: metadata (name, uid, resourceVersion; labels with NEED_LABELS, kept annotations with
    NEED_ANNOTATIONS), spec.unschedulable, status.addresses[type, address]. NEED_ALL: generic slimming."""
    if NEED_ALL in needs:
        return generic_transformer(keep)
    meta_keys = _NODE_META_KEYS + tuple(k for k, need in (("labels", NEED_LABELS), ("annotations", NEED_ANNOTATIONS))
                                        if need in needs)

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], meta_keys, keep)
        if "spec" in obj:
            out["spec"] = _c(_pick(obj["spec"], ("unschedulable",)))
        status = obj.get("status")
        if isinstance(status, dict):
            out["status"] = _c({"addresses": _node_addresses(status["addresses"])}) if "addresses" in status else {}
        elif "status" in obj:
            out["status"] = status
        return out

    return transform


def _node_addresses(addresses: Any) -> Any:
    """ExternalIP and InternalIP entries only (InternalDNS, Hostname ... are never read)."""
    if not isinstance(addresses, list):
        return addresses
    return [_c(_pick(a, ("type", "address"))) if isinstance(a, dict) else a for a in addresses
            if not isinstance(a, dict) or a.get("type") in ("ExternalIP", "InternalIP")]


_NODE_PLAIN = node_transformer_for(frozenset(), None)

_PARENT_REF_KEYS = ("group", "kind", "namespace", "name", "sectionName", "port")
# Route parts that repeat across routes (the parentRefs of routes on one Gateway, their parent status) are
# kept once and shared by every cached route holding an equal part: cached objects are read-only.
_SHARED_MAX = 4096
_shared_parts: dict[str, Any] = {}


def _share(value: Any) -> Any:
    """One shared instance per equal JSON-like value (bounded: past _SHARED_MAX parts, no sharing)."""
    try:
        key = json.dumps(value, sort_keys=True, default=dict)
    except (TypeError, ValueError):
        return value
    found = _shared_parts.get(key)
    if found is not None:
        return found
    if len(_shared_parts) < _SHARED_MAX:
        _shared_parts.setdefault(key, value)
    return value


def route_transformer(keep: Callable[[str], bool] | None, *, keep_labels: bool) -> Transformer:
    """Gateway API routes: metadata (labels only with `keep_labels`), spec (hostnames, parentRefs),
    status.parents[parentRef, the Accepted condition's type and status]; rules and backends are dropped."""
    meta_keys = tuple(k for k in _META_KEYS if k != "generation" and (keep_labels or k != "labels"))

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], meta_keys, keep)
        spec = obj.get("spec")
        spec_refs: list[Any] = []
        if isinstance(spec, dict):
            slim = _pick(spec, ("hostnames", "parentRefs"))
            if "parentRefs" in slim:
                slim["parentRefs"] = _pick_list(spec["parentRefs"], _PARENT_REF_KEYS)
                slim["parentRefs"] = _share(slim["parentRefs"])
                spec_refs = slim["parentRefs"] if isinstance(slim["parentRefs"], list) else []
            out["spec"] = _c(slim)
        elif "spec" in obj:
            out["spec"] = spec
        status = obj.get("status")
        if isinstance(status, dict) and isinstance(status.get("parents"), list):
            parents: list[Any] = []
            for parent in status["parents"]:
                if not isinstance(parent, dict):
                    parents.append(parent)
                    continue
                item = _pick(parent, ("parentRef", "conditions"))
                if "parentRef" in item:
                    ref = _c(_pick(parent["parentRef"], _PARENT_REF_KEYS))
                    # the status names the spec's parentRef: share the one read-only copy
                    item["parentRef"] = next((r for r in spec_refs if r == ref), ref)
                conditions = parent.get("conditions")
                if isinstance(conditions, list):
                    item["conditions"] = [_c(_pick(c, ("type", "status"))) for c in conditions
                                          if isinstance(c, dict) and c.get("type") == "Accepted"]
                parents.append(_c(item))
            out["status"] = _share(_c({"parents": parents}))
        elif "status" in obj:
            out["status"] = status if not isinstance(status, dict) else {}
        return out

    return transform


_LISTENER_KEYS = ("name", "hostname", "port", "protocol", "allowedRoutes")


def _listener_owner(meta_keys: tuple[str, ...], keep: Callable[[str], bool] | None, spec_keys: tuple[str, ...],
                    slim_status: Callable[[dict[str, Any]], dict[str, Any]]) -> Transformer:
    """What Gateways and ListenerSets share: metadata, `spec_keys` of the spec with its listeners[name,
    hostname, port, protocol, allowedRoutes], and the status `slim_status` keeps."""

    def transform(obj: dict[str, Any]) -> dict[str, Any]:
        out = _top(obj)
        if "metadata" in obj:
            out["metadata"] = _slim_meta(obj["metadata"], meta_keys, keep)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            slim = _pick(spec, spec_keys)
            if "listeners" in slim:
                slim["listeners"] = _pick_list(spec["listeners"], _LISTENER_KEYS)
            out["spec"] = _c(slim)
        elif "spec" in obj:
            out["spec"] = spec
        status = obj.get("status")
        if isinstance(status, dict):
            out["status"] = _c(slim_status(status))
        elif "status" in obj:
            out["status"] = status
        return out

    return transform


def gateway_transformer(keep: Callable[[str], bool] | None, *, keep_labels: bool) -> Transformer:
    """Gateways: metadata (labels only with `keep_labels`), spec.listeners[name, hostname, port, protocol,
    allowedRoutes], spec.allowedListeners (ListenerSets), status.addresses[type, value]; listener status, TLS
    and infrastructure are dropped."""
    meta_keys = _META_KEYS if keep_labels else tuple(k for k in _META_KEYS if k != "labels")

    def status(status: dict[str, Any]) -> dict[str, Any]:
        return {"addresses": _pick_list(status["addresses"], ("type", "value"))} if "addresses" in status else {}

    return _listener_owner(meta_keys, keep, ("listeners", "allowedListeners"), status)


def _accepted(conditions: Any) -> Any:
    return [_pick(c, ("type", "status")) for c in conditions if isinstance(c, dict)
            and c.get("type") == "Accepted"] if isinstance(conditions, list) else conditions


def listenerset_transformer(keep: Callable[[str], bool] | None) -> Transformer:
    """ListenerSets: metadata (kept annotations: `target`), spec.parentRef, spec.listeners[name, hostname,
    port, protocol, allowedRoutes], the Accepted condition of the set and of each listener."""

    def status(status: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "conditions" in status:
            out["conditions"] = _accepted(status["conditions"])
        if isinstance(status.get("listeners"), list):
            out["listeners"] = [{**_pick(item, ("name",)), "conditions": _accepted(item.get("conditions"))}
                                if isinstance(item, dict) else item for item in status["listeners"]]
        return out

    return _listener_owner(_META_KEYS, keep, ("parentRef", "listeners"), status)


def namespace_transformer(obj: dict[str, Any]) -> dict[str, Any]:
    """Namespaces (for `allowedRoutes.namespaces.selector`): name, uid, resourceVersion, labels."""
    out = _top(obj)
    if "metadata" in obj:
        out["metadata"] = _slim_meta(obj["metadata"], ("name", "uid", "resourceVersion", "labels"), None)
    return out


def endpointslice_transformer(obj: dict[str, Any]) -> dict[str, Any]:
    """EndpointSlices: metadata with only the `kubernetes.io/service-name` label; addressType;
    endpoints[addresses, conditions.ready, targetRef(kind, name)]."""
    out = _top(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        slim_meta = _pick(meta, _SLICE_META_KEYS)
        labels = slim_meta.get("labels")
        if isinstance(labels, dict):
            owner = labels.get(SERVICE_NAME_LABEL)
            slim_meta["labels"] = {SERVICE_NAME_LABEL: _i(owner)} if owner is not None else {}
        out["metadata"] = slim_meta
    elif "metadata" in obj:
        out["metadata"] = meta
    if "addressType" in obj:
        out["addressType"] = _i(obj["addressType"])
    endpoints = obj.get("endpoints")
    if isinstance(endpoints, list):
        slim_eps: list[Any] = []
        for ep in endpoints:
            if not isinstance(ep, dict):
                slim_eps.append(ep)
                continue
            item: dict[str, Any] = {}
            if "addresses" in ep:
                item["addresses"] = ep["addresses"]
            conditions = ep.get("conditions")
            if isinstance(conditions, dict):
                item["conditions"] = _c(_pick(conditions, ("ready",)))
            ref = ep.get("targetRef")
            if ref is not None:
                item["targetRef"] = _c(_pick(ref, ("kind", "name")))
            slim_eps.append(_c(item))
        out["endpoints"] = slim_eps
    elif "endpoints" in obj:
        out["endpoints"] = endpoints
    return out


__all__ = [
    "annotation_keeper", "dnsendpoint_transformer", "endpointslice_transformer", "gateway_transformer",
    "generic_transformer", "ingress_transformer", "listenerset_transformer", "namespace_transformer",
    "node_transformer",
    "node_transformer_for", "pod_transformer", "pod_transformer_for", "route_transformer", "service_transformer",
]
