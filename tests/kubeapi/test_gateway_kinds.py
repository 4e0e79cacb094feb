"""The test API server's Gateway API kinds behave as kube-apiserver serving the upstream CRDs: discovery,
status subresource separation, watch, the schema rules on the fields external-dns reads, pruning."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.gateway import gateway, listener, parent_status, path, route
from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


@pytest.fixture
def raw(kubeapi: KubeAPIServer) -> Iterator[RawClient]:
    with RawClient(kubeapi.url) as client:
        yield client


def causes(resp: Any) -> list[tuple[str, str]]:
    assert resp.status == 422, resp.json
    return [(c["field"], c["reason"]) for c in resp.json["details"]["causes"]]


def test_discovery_lists_both_versions(raw: RawClient) -> None:
    group = raw.get("/apis/gateway.networking.k8s.io").json
    assert [v["version"] for v in group["versions"]] == ["v1", "v1alpha2"]
    assert group["preferredVersion"]["version"] == "v1"
    v1 = {r["name"]: r for r in raw.get("/apis/gateway.networking.k8s.io/v1").json["resources"]}
    assert set(v1) == {"gateways", "gateways/status", "httproutes", "httproutes/status", "grpcroutes",
                       "grpcroutes/status", "listenersets", "listenersets/status"}
    assert v1["httproutes"]["kind"] == "HTTPRoute" and v1["httproutes"]["namespaced"] is True
    alpha = {r["name"] for r in raw.get("/apis/gateway.networking.k8s.io/v1alpha2").json["resources"]}
    assert {"tlsroutes", "tcproutes", "udproutes", "udproutes/status"} <= alpha
    assert raw.get("/apis/gateway.networking.k8s.io/v1alpha2/namespaces/default/httproutes").status == 404


@pytest.mark.parametrize("kind", ["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"])
def test_route_status_subresource(raw: RawClient, kind: str) -> None:
    created = raw.request("POST", path(kind), route(kind, hostnames=None)).json
    assert "status" not in created  # status is ignored on create
    created["status"] = route(kind)["status"]
    st = raw.request("PUT", path(kind, name="echo") + "/status", created).json
    assert st["status"]["parents"][0]["conditions"][0]["type"] == "Accepted"
    assert st["metadata"]["generation"] == 1
    # a main-resource write keeps the status and bumps the generation on spec changes only
    st["spec"]["parentRefs"] = [{"name": "other"}]
    st["status"] = {"parents": []}
    upd = raw.request("PUT", path(kind, name="echo"), st).json
    assert upd["metadata"]["generation"] == 2
    assert upd["status"]["parents"][0]["parentRef"] == {"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                                       "name": "gw"}


def test_gateway_status_addresses_and_watch(raw: RawClient, kubeapi: KubeAPIServer) -> None:
    gw = raw.request("POST", path("Gateway"), gateway()).json
    rv = gw["metadata"]["resourceVersion"]
    with raw.watch(path("Gateway") + f"?watch=true&resourceVersion={rv}&timeoutSeconds=5") as stream:
        gw["status"] = {"addresses": [{"type": "IPAddress", "value": "192.0.2.1"}]}
        assert raw.request("PUT", path("Gateway", name="gw") + "/status", gw).status == 200
        event = stream.next_event()
    assert event is not None and event["type"] == "MODIFIED"
    assert event["object"]["status"]["addresses"] == [{"type": "IPAddress", "value": "192.0.2.1"}]
    del kubeapi


def test_unknown_fields_pruned_known_kept(raw: RawClient) -> None:
    body = route(hostnames=["a.example.org"], status=False)
    body["spec"]["notAField"] = 1
    body["spec"]["rules"][0]["filters"] = [{"type": "RequestHeaderModifier"}]
    body["spec"]["parentRefs"][0]["bogus"] = "x"
    got = raw.request("POST", path("HTTPRoute"), body).json
    assert "notAField" not in got["spec"] and "bogus" not in got["spec"]["parentRefs"][0]
    assert got["spec"]["rules"][0]["filters"] == [{"type": "RequestHeaderModifier"}]
    # TCPRoutes have no spec.hostnames: the field is pruned
    tcp = raw.request("POST", path("TCPRoute"), route("TCPRoute", hostnames=["a.example.org"], status=False)).json
    assert "hostnames" not in tcp["spec"]


def test_structural_defaults(raw: RawClient) -> None:
    rt = route(status=False)
    del rt["spec"]["rules"]
    got = raw.request("POST", path("HTTPRoute"), rt).json
    assert got["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}]
    assert got["spec"]["rules"] == [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}]
    gw = raw.request("POST", path("Gateway"), gateway(listeners=[listener(), listener(
        "other", allowedRoutes={"kinds": [{"kind": "HTTPRoute"}]})])).json
    assert gw["spec"]["listeners"][0]["allowedRoutes"] == {"namespaces": {"from": "Same"}}
    assert gw["spec"]["listeners"][1]["allowedRoutes"] == {"namespaces": {"from": "Same"},
                                                           "kinds": [{"group": "gateway.networking.k8s.io",
                                                                      "kind": "HTTPRoute"}]}


def test_route_spec_validation(raw: RawClient) -> None:
    body = route(hostnames=["Bad_Host", "*.example.org", "a.example.org."], status=False)
    body["spec"]["parentRefs"] = [{"name": "gw", "port": 0, "sectionName": "Http"}, {"kind": "Gateway"}]
    assert sorted(causes(raw.request("POST", path("HTTPRoute"), body))) == [
        ("spec.hostnames[0]", "FieldValueInvalid"), ("spec.hostnames[2]", "FieldValueInvalid"),
        ("spec.parentRefs[0].port", "FieldValueInvalid"), ("spec.parentRefs[0].sectionName", "FieldValueInvalid"),
        ("spec.parentRefs[1].name", "FieldValueRequired")]
    many = route(hostnames=[f"h{i}.example.org" for i in range(17)], status=False)
    assert causes(raw.request("POST", path("HTTPRoute"), many)) == [("spec.hostnames", "FieldValueTooMany")]
    no_rules = route("TCPRoute", status=False)
    del no_rules["spec"]["rules"]
    assert causes(raw.request("POST", path("TCPRoute"), no_rules)) == [("spec.rules", "FieldValueRequired")]


def test_route_status_validation(raw: RawClient) -> None:
    created = raw.request("POST", path("HTTPRoute"), route(status=False)).json
    bad = parent_status({"name": "gw"})
    bad["conditions"][0]["status"] = "Yes"
    del bad["conditions"][0]["lastTransitionTime"]
    del bad["controllerName"]
    created["status"] = {"parents": [bad]}
    resp = raw.request("PUT", path("HTTPRoute", name="echo") + "/status", created)
    assert sorted(causes(resp)) == [("status.parents[0].conditions[0].lastTransitionTime", "FieldValueRequired"),
                                    ("status.parents[0].conditions[0].status", "FieldValueNotSupported"),
                                    ("status.parents[0].controllerName", "FieldValueRequired")]
    assert 'Unsupported value: "Yes": supported values: "True", "False", "Unknown"' in resp.json["message"]


def test_gateway_validation(raw: RawClient) -> None:
    body = gateway(listeners=[listener("http", "HTTP", 70000, hostname="*.example.org",
                                       allowedRoutes={"namespaces": {"from": "Everywhere"}}),
                              {"name": "x", "protocol": "bad proto!"}])
    assert sorted(causes(raw.request("POST", path("Gateway"), body))) == [
        ("spec.listeners[0].allowedRoutes.namespaces.from", "FieldValueNotSupported"),
        ("spec.listeners[0].port", "FieldValueInvalid"),
        ("spec.listeners[1].port", "FieldValueRequired"),
        ("spec.listeners[1].protocol", "FieldValueInvalid")]
    empty = gateway(listeners=[])
    assert causes(raw.request("POST", path("Gateway"), empty)) == [("spec.listeners", "FieldValueInvalid")]
    ok = raw.request("POST", path("Gateway"), gateway()).json
    ok["status"] = {"addresses": [{"type": "IPAddress"}]}
    assert causes(raw.request("PUT", path("Gateway", name="gw") + "/status", ok)) == [
        ("status.addresses[0].value", "FieldValueRequired")]
