"""Every served resource through its generated `kubernetes` client method: create, read, list across
namespaces, watch from the list's resourceVersion, status subresource, delete."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import kubernetes.client as kc
import pytest
from kubernetes.client.rest import ApiException

from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

MICRO = "2026-11-23T10:00:00.000000Z"
C = Any  # kubernetes.client.ApiClient (untyped package)


@dataclass(frozen=True)
class Case:
    kind: str
    body: dict[str, Any]
    create: Callable[[C, str, dict[str, Any]], Any]
    read: Callable[[C, str, str], Any]
    list_all: Callable[..., Any]
    delete: Callable[[C, str, str], Any]
    status: Callable[[C, str, str, dict[str, Any]], Any] | None = None
    namespaced: bool = True


def _custom(kind: str, body: dict[str, Any], group: str, version: str, plural: str) -> Case:
    def api(c: C) -> Any:
        return kc.CustomObjectsApi(c)

    return Case(
        kind, body,
        lambda c, ns, b: api(c).create_namespaced_custom_object(group, version, ns, plural, b),
        lambda c, ns, n: api(c).get_namespaced_custom_object(group, version, ns, plural, n),
        lambda c, **kw: api(c).list_cluster_custom_object(group, version, plural, **kw),
        lambda c, ns, n: api(c).delete_namespaced_custom_object(group, version, ns, plural, n),
        lambda c, ns, n, b: api(c).patch_namespaced_custom_object_status(group, version, ns, plural, n, b),
    )


CASES = [
    Case("Service", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "obj"},
                     "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}},
         lambda c, ns, b: kc.CoreV1Api(c).create_namespaced_service(ns, b),
         lambda c, ns, n: kc.CoreV1Api(c).read_namespaced_service(n, ns),
         lambda c, **kw: kc.CoreV1Api(c).list_service_for_all_namespaces(**kw),
         lambda c, ns, n: kc.CoreV1Api(c).delete_namespaced_service(n, ns),
         lambda c, ns, n, b: kc.CoreV1Api(c).patch_namespaced_service_status(n, ns, b)),
    Case("Event", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "obj"},
                   "involvedObject": {"kind": "Service", "name": "x", "namespace": "default"},
                   "reason": "Sync", "message": "hello", "type": "Normal"},
         lambda c, ns, b: kc.CoreV1Api(c).create_namespaced_event(ns, b),
         lambda c, ns, n: kc.CoreV1Api(c).read_namespaced_event(n, ns),
         lambda c, **kw: kc.CoreV1Api(c).list_event_for_all_namespaces(**kw),
         lambda c, ns, n: kc.CoreV1Api(c).delete_namespaced_event(n, ns)),
    Case("Pod", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "obj"},
                 "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
         lambda c, ns, b: kc.CoreV1Api(c).create_namespaced_pod(ns, b),
         lambda c, ns, n: kc.CoreV1Api(c).read_namespaced_pod(n, ns),
         lambda c, **kw: kc.CoreV1Api(c).list_pod_for_all_namespaces(**kw),
         lambda c, ns, n: kc.CoreV1Api(c).delete_namespaced_pod(n, ns),
         lambda c, ns, n, b: kc.CoreV1Api(c).patch_namespaced_pod_status(n, ns, b)),
    Case("Node", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "obj"}},
         lambda c, ns, b: kc.CoreV1Api(c).create_node(b),
         lambda c, ns, n: kc.CoreV1Api(c).read_node(n),
         lambda c, **kw: kc.CoreV1Api(c).list_node(**kw),
         lambda c, ns, n: kc.CoreV1Api(c).delete_node(n),
         lambda c, ns, n, b: kc.CoreV1Api(c).patch_node_status(n, b), namespaced=False),
    Case("Endpoints", {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "obj"},
                       "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]},
         lambda c, ns, b: kc.CoreV1Api(c).create_namespaced_endpoints(ns, b),
         lambda c, ns, n: kc.CoreV1Api(c).read_namespaced_endpoints(n, ns),
         lambda c, **kw: kc.CoreV1Api(c).list_endpoints_for_all_namespaces(**kw),
         lambda c, ns, n: kc.CoreV1Api(c).delete_namespaced_endpoints(n, ns)),
    Case("EndpointSlice", {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                           "metadata": {"name": "obj", "labels": {"kubernetes.io/service-name": "web"}},
                           "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}]},
         lambda c, ns, b: kc.DiscoveryV1Api(c).create_namespaced_endpoint_slice(ns, b),
         lambda c, ns, n: kc.DiscoveryV1Api(c).read_namespaced_endpoint_slice(n, ns),
         lambda c, **kw: kc.DiscoveryV1Api(c).list_endpoint_slice_for_all_namespaces(**kw),
         lambda c, ns, n: kc.DiscoveryV1Api(c).delete_namespaced_endpoint_slice(n, ns)),
    Case("Ingress", {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "obj"},
                     "spec": {"rules": [{"host": "a.example.org"}]}},
         lambda c, ns, b: kc.NetworkingV1Api(c).create_namespaced_ingress(ns, b),
         lambda c, ns, n: kc.NetworkingV1Api(c).read_namespaced_ingress(n, ns),
         lambda c, **kw: kc.NetworkingV1Api(c).list_ingress_for_all_namespaces(**kw),
         lambda c, ns, n: kc.NetworkingV1Api(c).delete_namespaced_ingress(n, ns),
         lambda c, ns, n, b: kc.NetworkingV1Api(c).patch_namespaced_ingress_status(n, ns, b)),
    Case("Lease", {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "obj"},
                   "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15, "renewTime": MICRO}},
         lambda c, ns, b: kc.CoordinationV1Api(c).create_namespaced_lease(ns, b),
         lambda c, ns, n: kc.CoordinationV1Api(c).read_namespaced_lease(n, ns),
         lambda c, **kw: kc.CoordinationV1Api(c).list_lease_for_all_namespaces(**kw),
         lambda c, ns, n: kc.CoordinationV1Api(c).delete_namespaced_lease(n, ns)),
    Case("events.k8s.io/Event", {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "obj"},
                                 "eventTime": MICRO, "reportingController": "external-dns",
                                 "reportingInstance": "external-dns-0", "action": "Sync", "reason": "Synced",
                                 "type": "Normal", "regarding": {"kind": "Service", "name": "x"}},
         lambda c, ns, b: kc.EventsV1Api(c).create_namespaced_event(ns, b),
         lambda c, ns, n: kc.EventsV1Api(c).read_namespaced_event(n, ns),
         lambda c, **kw: kc.EventsV1Api(c).list_event_for_all_namespaces(**kw),
         lambda c, ns, n: kc.EventsV1Api(c).delete_namespaced_event(n, ns)),
    _custom("DNSEndpoint", {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
                         "metadata": {"name": "obj"},
                         "spec": {"endpoints": [{"dnsName": "a.example.org", "recordType": "A",
                                                 "targets": ["1.2.3.4"]}]}},
            "externaldns.k8s.io", "v1alpha1", "dnsendpoints"),
    _custom("DNSRecord", {"apiVersion": "kuadrant.io/v1alpha1", "kind": "DNSRecord", "metadata": {"name": "obj"},
                       "spec": {"rootHost": "a.example.org", "endpoints": []}},
            "kuadrant.io", "v1alpha1", "dnsrecords"),
]


def _meta(obj: Any) -> tuple[str, str]:
    if isinstance(obj, dict):
        return obj["metadata"]["name"], obj["metadata"]["resourceVersion"]
    return obj.metadata.name, obj.metadata.resource_version


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_resource_round_trip(case: Case, kubeapi: KubeAPIServer, kube_api_client: kc.ApiClient) -> None:
    c = kube_api_client
    ns = "default" if case.namespaced else ""
    created = case.create(c, ns, json.loads(json.dumps(case.body)))
    name, rv = _meta(created)
    assert name == "obj"
    assert _meta(case.read(c, ns, "obj")) == ("obj", rv)
    listed = case.list_all(c, _preload_content=False)
    body = json.loads(listed.data)
    assert [i["metadata"]["name"] for i in body["items"]] == ["obj"]
    list_rv = body["metadata"]["resourceVersion"]
    if case.status is not None:
        status: dict[str, Any] = {"status": {"conditions": []}}
        if case.kind in ("DNSEndpoint", "DNSRecord"):
            status = {"status": {"observedGeneration": 1}}
        if case.kind in ("Service", "Ingress"):
            status = {"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}
        updated = case.status(c, ns, "obj", status)
        assert int(_meta(updated)[1]) > int(rv)
    case.delete(c, ns, "obj")
    with pytest.raises(ApiException) as exc:
        case.read(c, ns, "obj")
    assert exc.value.status == 404
    resp = case.list_all(c, watch=True, resource_version=list_rv, allow_watch_bookmarks=True, timeout_seconds=30,
                         _preload_content=False, _request_timeout=(5, 10))
    kubeapi.send_bookmarks()  # queued behind every event so far: read up to it instead of waiting for a timeout
    events = []
    try:
        for line in resp:
            ev = json.loads(line)
            if ev["type"] == "BOOKMARK":
                break
            events.append(ev)
    finally:
        resp.close()
        resp.release_conn()
    types = [e["type"] for e in events]
    assert types[-1] == "DELETED" and set(types) <= {"MODIFIED", "DELETED"}
    assert all(e["object"]["kind"] == case.body["kind"] for e in events)
