"""Slimming of Gateway API routes, Gateways, Namespaces, and of Pods and Nodes for the pod and node sources:
only the fields the sources read stay, equal route parts are shared, malformed shapes are kept for the
object code to report, and the transformers are idempotent."""

from __future__ import annotations

import copy
from typing import Any

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as P
from external_dns.sources.informer.slim import (
    NEED_ALL,
    NEED_ANNOTATIONS,
    NEED_LABELS,
    NEED_POD_SOURCE,
    annotation_keeper,
    gateway_transformer,
    namespace_transformer,
    node_transformer,
    node_transformer_for,
    pod_transformer_for,
    route_transformer,
)
from tests.helpers.gateway import gateway, listener, route

KEEP = annotation_keeper(P)


def full_route(name: str) -> dict[str, Any]:
    rt = route(name=name, hostnames=["a.example.org"], parents=[{"name": "gw", "sectionName": "http"}],
               labels={"app": "a"}, annotations={P + "ttl": "60", "other.io/x": "y"})
    rt["metadata"].update(uid="u-" + name, resourceVersion="7", generation=3, managedFields=[{"manager": "x"}])
    rt["status"]["parents"][0]["conditions"].append(
        {"type": "ResolvedRefs", "status": "True", "reason": "R", "message": "", "lastTransitionTime": "t"})
    return rt


def test_route_keeps_what_the_source_reads() -> None:
    out = route_transformer(KEEP, keep_labels=False)(full_route("r1"))
    assert out == {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                   "metadata": {"name": "r1", "namespace": "default", "uid": "u-r1", "resourceVersion": "7",
                                "annotations": {P + "ttl": "60"}},
                   "spec": {"hostnames": ["a.example.org"], "parentRefs": [{"name": "gw", "sectionName": "http"}]},
                   "status": {"parents": [{"parentRef": {"name": "gw", "sectionName": "http"},
                                           "conditions": [{"type": "Accepted", "status": "True"}]}]}}
    assert route_transformer(KEEP, keep_labels=True)(full_route("r1"))["metadata"]["labels"] == {"app": "a"}


def test_equal_route_parts_are_shared() -> None:
    transform = route_transformer(KEEP, keep_labels=False)
    a, b = transform(full_route("a")), transform(full_route("b"))
    assert a["status"] is b["status"] and a["spec"]["parentRefs"] is b["spec"]["parentRefs"]
    # the status names the spec's parentRef: one object
    assert a["status"]["parents"][0]["parentRef"] is a["spec"]["parentRefs"][0]
    other = full_route("c")
    other["status"]["parents"][0]["conditions"][0]["status"] = "False"
    assert transform(other)["status"] is not a["status"]


def test_gateway_and_namespace() -> None:
    gw = gateway(addresses=["192.0.2.1"], labels={"scope": "public"}, annotations={P + "target": "lb.example.net"},
                 listeners=[listener(hostname="*.example.org", tls={"certificateRefs": [{"name": "c"}]},
                                     allowedRoutes={"namespaces": {"from": "All"}})])
    gw["status"]["conditions"] = [{"type": "Programmed"}]
    gw["status"]["listeners"] = [{"name": "http", "attachedRoutes": 3}]
    out = gateway_transformer(KEEP, keep_labels=False)(gw)
    assert out["spec"] == {"listeners": [{"name": "http", "hostname": "*.example.org", "port": 80,
                                          "protocol": "HTTP", "allowedRoutes": {"namespaces": {"from": "All"}}}]}
    assert out["status"] == {"addresses": [{"type": "IPAddress", "value": "192.0.2.1"}]}
    assert "labels" not in out["metadata"] and out["metadata"]["annotations"] == {P + "target": "lb.example.net"}
    ns = namespace_transformer({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "apps", "labels": {"team": "a"}, "annotations": {"x": "y"}}, "spec": {"finalizers": ["kubernetes"]}})
    assert ns == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps", "labels": {"team": "a"}}}


def pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": {"app": "a"},
                         "annotations": {P + "hostname": "a.example.org", "x.io/y": "z"}},
            "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c"}]},
            "status": {"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}], "hostIP": "1.1.1.1"}}


def test_pod_needs() -> None:
    only_pod = pod_transformer_for(frozenset({NEED_ANNOTATIONS, NEED_POD_SOURCE}), KEEP)(pod())
    assert only_pod["metadata"] == {"name": "p", "namespace": "default",
                                    "annotations": {P + "hostname": "a.example.org"}}
    assert only_pod["spec"] == {"nodeName": "n1", "hostNetwork": True}
    assert only_pod["status"] == {"phase": "Running", "hostIP": "1.1.1.1", "podIP": "10.0.0.1"}  # single stack
    dual = pod()
    dual["status"]["podIPs"].append({"ip": "fd00::1"})
    assert pod_transformer_for(frozenset({NEED_POD_SOURCE}), KEEP)(dual)["status"]["podIPs"] == [
        {"ip": "10.0.0.1"}, {"ip": "fd00::1"}]
    with_labels = pod_transformer_for(frozenset({NEED_LABELS, NEED_ANNOTATIONS, NEED_POD_SOURCE}), KEEP)(pod())
    assert with_labels["metadata"]["labels"] == {"app": "a"}
    assert pod_transformer_for(frozenset({NEED_ALL}), KEEP)(pod())["spec"]["containers"] == [{"name": "c"}]


def test_node_needs_and_addresses() -> None:
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "labels": {"zone": "a"}, "annotations": {P + "ttl": "60", "x.io/y": "z"}},
            "spec": {"unschedulable": True, "podCIDR": "10.0.0.0/24"},
            "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"},
                                     {"type": "Hostname", "address": "n1"},
                                     {"type": "ExternalIP", "address": "203.0.113.1"}],
                       "images": [{"names": ["x"]}]}}
    plain = node_transformer(copy.deepcopy(node))
    assert plain["metadata"] == {"name": "n1"} and plain["spec"] == {"unschedulable": True}
    assert plain["status"] == {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"},
                                             {"type": "ExternalIP", "address": "203.0.113.1"}]}
    both = node_transformer_for(frozenset({NEED_ANNOTATIONS, NEED_LABELS}), KEEP)(copy.deepcopy(node))
    assert both["metadata"] == {"name": "n1", "labels": {"zone": "a"}, "annotations": {P + "ttl": "60"}}


def test_malformed_shapes_kept_and_idempotent() -> None:
    bad = full_route("bad")
    bad["spec"]["parentRefs"] = "gw"
    bad["status"]["parents"] = ["x"]
    out = route_transformer(KEEP, keep_labels=False)(bad)
    assert out["spec"]["parentRefs"] == "gw" and out["status"]["parents"] == ["x"]
    cases = [(route_transformer(KEEP, keep_labels=False), full_route("i")),
             (gateway_transformer(KEEP, keep_labels=True), gateway(addresses=["192.0.2.1"])),
             (pod_transformer_for(frozenset({NEED_POD_SOURCE, NEED_ANNOTATIONS}), KEEP), pod())]
    for transform, obj in cases:
        once = transform(copy.deepcopy(obj))
        assert transform(copy.deepcopy(once)) == once
