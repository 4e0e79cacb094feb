"""Slimming transformers: what they keep and drop, idempotence, malformed shapes left for the object code."""

from __future__ import annotations

import copy
from typing import Any

from external_dns.informers.transform import LAST_APPLIED
from external_dns.sources.informer.slim import (
    annotation_keeper,
    dnsendpoint_transformer,
    endpointslice_transformer,
    generic_transformer,
    ingress_transformer,
    node_transformer,
    pod_transformer,
    service_transformer,
)

PREFIX = "external-dns.kubernetes.io/"
KEEP = annotation_keeper(PREFIX, ["kubernetes.io/ingress.class"])


def meta(**extra: Any) -> dict[str, Any]:
    return {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "7", "generation": 3,
            "labels": {"app": "web"}, "managedFields": [{"manager": "kubectl"}],
            "ownerReferences": [{"kind": "X"}], "creationTimestamp": "2026-01-01T00:00:00Z",
            "annotations": {PREFIX + "hostname": "web.example.org", LAST_APPLIED: "{}", "other.io/x": "y",
                            "kubernetes.io/ingress.class": "nginx"}, **extra}


def svc(svc_type: str = "NodePort") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta(),
            "spec": {"type": svc_type, "clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"], "ipFamilies": ["IPv4"],
                     "ports": [{"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP", "targetPort": 8080}],
                     "selector": {"app": "web"}, "externalTrafficPolicy": "Local", "sessionAffinity": "None"},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4", "ipMode": "VIP", "ports": []}]},
                       "conditions": [{"type": "x"}]}}


def test_service_node_port_keeps_what_the_source_reads() -> None:
    out = service_transformer(KEEP, keep_labels=True)(svc())
    assert out == {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7",
                                "labels": {"app": "web"},
                                "annotations": {PREFIX + "hostname": "web.example.org",
                                                "kubernetes.io/ingress.class": "nginx"}},
                   "spec": {"type": "NodePort", "clusterIP": "10.0.0.1",
                            "ports": [{"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}],
                            "selector": {"app": "web"}, "externalTrafficPolicy": "Local"},
                   "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}


def test_service_load_balancer_drops_ports_labels_and_empty_status() -> None:
    obj = svc("LoadBalancer")
    obj["status"] = {"loadBalancer": {}}
    out = service_transformer(annotation_keeper(PREFIX), keep_labels=False)(obj)
    assert out["spec"] == {"type": "LoadBalancer", "clusterIP": "10.0.0.1"}
    assert "labels" not in out["metadata"] and "status" not in out
    assert out["metadata"]["annotations"] == {PREFIX + "hostname": "web.example.org"}


def test_transformers_are_idempotent() -> None:
    cases = [(service_transformer(KEEP), svc()), (ingress_transformer(KEEP), {
        "metadata": meta(), "spec": {"ingressClassName": "nginx", "rules": [{"host": "a", "http": {}}],
                                     "tls": [{"hosts": ["b"], "secretName": "s"}], "defaultBackend": {}},
        "status": {"loadBalancer": {"ingress": [{"hostname": "lb"}]}}}),
             (pod_transformer(PREFIX), {"metadata": meta(), "spec": {"nodeName": "n", "containers": []},
                                        "status": {"phase": "Running", "conditions": [{"type": "Ready"}]}}),
             (node_transformer, {"metadata": meta(), "spec": {"unschedulable": True, "podCIDR": "x"},
                                 "status": {"addresses": [{"type": "InternalIP", "address": "1.1.1.1"}],
                                            "images": [{"names": ["a"]}]}}),
             (endpointslice_transformer, {"metadata": meta(labels={"kubernetes.io/service-name": "web", "a": "b"}),
                                          "addressType": "IPv4", "ports": [],
                                          "endpoints": [{"addresses": ["1.1.1.1"], "nodeName": "n",
                                                         "conditions": {"ready": True, "serving": True},
                                                         "targetRef": {"kind": "Pod", "name": "p", "uid": "u"}}]}),
             (dnsendpoint_transformer(KEEP), {"metadata": meta(), "spec": {"endpoints": [{"dnsName": "a"}]},
                                              "status": {"observedGeneration": 2, "conditions": []}}),
             (generic_transformer(KEEP), svc())]
    for transform, obj in cases:
        once = transform(copy.deepcopy(obj))
        assert transform(copy.deepcopy(once)) == once


def test_pod_keeps_almost_nothing() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta(),
           "spec": {"nodeName": "n1", "hostname": "web-0", "containers": [{"name": "c", "image": "i"}]},
           "status": {"phase": "Running", "hostIP": "10.0.0.1", "podIP": "10.1.0.1",
                      "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "t"},
                                     {"type": "Initialized", "status": "True"}],
                      "containerStatuses": [{"name": "c"}]}}
    out = pod_transformer(PREFIX)(pod)
    assert out == {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
                                "labels": {"app": "web"}, "annotations": {PREFIX + "hostname": "web.example.org"}},
                   "spec": {"hostname": "web-0", "nodeName": "n1"},
                   "status": {"phase": "Running", "hostIP": "10.0.0.1",
                              "conditions": [{"type": "Ready", "status": "True"}]}}


def test_endpointslice_and_node() -> None:
    es = endpointslice_transformer({"metadata": meta(labels={"kubernetes.io/service-name": "web", "x": "y"}),
                                    "addressType": "IPv4",
                                    "endpoints": [{"addresses": ["1.1.1.1"], "zone": "a",
                                                   "conditions": {"ready": False, "serving": True},
                                                   "targetRef": {"kind": "Pod", "name": "p", "uid": "u"}}]})
    assert es["metadata"]["labels"] == {"kubernetes.io/service-name": "web"}
    assert es["endpoints"] == [{"addresses": ["1.1.1.1"], "conditions": {"ready": False},
                                "targetRef": {"kind": "Pod", "name": "p"}}]
    node = node_transformer({"metadata": meta(), "spec": {"unschedulable": True, "taints": []},
                             "status": {"addresses": [{"type": "ExternalIP", "address": "2.2.2.2"}],
                                        "capacity": {"cpu": "4"}}})
    assert node == {"metadata": {"name": "web", "uid": "u-1", "resourceVersion": "7"},
                    "spec": {"unschedulable": True},
                    "status": {"addresses": [{"type": "ExternalIP", "address": "2.2.2.2"}]}}


def test_malformed_shapes_are_kept_for_the_object_code() -> None:
    bad = {"metadata": meta(), "spec": {"type": "NodePort", "ports": "80", "externalIPs": "1.2.3.4"},
           "status": {"loadBalancer": ["x"]}}
    out = service_transformer(KEEP)(bad)
    assert out["spec"]["ports"] == "80" and out["spec"]["externalIPs"] == "1.2.3.4"
    assert out["status"] == {"loadBalancer": ["x"]}
    out = service_transformer(KEEP)({"metadata": meta(), "spec": ["not", "an", "object"]})
    assert out["spec"] == ["not", "an", "object"]
    ing = ingress_transformer(KEEP)({"metadata": meta(), "spec": {"rules": [{"host": 5}, "x"], "tls": {"a": 1}}})
    assert ing["spec"] == {"rules": [{"host": 5}, "x"], "tls": {"a": 1}}
    dnse = dnsendpoint_transformer(KEEP)({"metadata": meta(), "spec": "nope", "status": 4})
    assert dnse["spec"] == "nope" and dnse["status"] == 4


def test_generic_transformer_keeps_fields_a_template_may_read() -> None:
    out = generic_transformer(None)(svc())
    assert "managedFields" not in out["metadata"]
    assert LAST_APPLIED not in out["metadata"]["annotations"]
    assert out["metadata"]["annotations"]["other.io/x"] == "y"  # None = keep every other annotation
    assert out["spec"]["sessionAffinity"] == "None" and "conditions" not in out["status"]
