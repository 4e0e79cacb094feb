"""Conformance of the API servers, pinned with raw HTTP requests and the exact expected responses, so the test
server cannot drift into leniency (reference: client-go-informers-workqueue.md section 6). Each test runs
against the project's test server and against the real kube-apiserver (tests/kubeapi/targets.py); tests
of what only the test server has (its request log, fault knobs, a bounded history) run against it alone.
Where the servers differ on purpose, docs/testing.md says so."""

from __future__ import annotations

import base64
import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer
from tests.kubeapi.targets import BOTH, Target, make_target

pytestmark = pytest.mark.integration
# for tests of what only the test server has
TEST_SERVER_ONLY = pytest.mark.parametrize("k", [pytest.param("test", id="test-server")], indirect=True)
# Pinned behaviour where the real kube-apiserver answers otherwise and the two are not reconciled yet (each is
# listed in docs/testing.md): run against the test server only until then.
REAL_SERVER_DIFFERS = TEST_SERVER_ONLY


@pytest.fixture(params=BOTH)
def k(request: pytest.FixtureRequest) -> Iterator[Target]:
    yield from make_target(request, request.param)


@pytest.fixture
def raw(k: Target) -> RawClient:
    return k.raw


def svc(name: str, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                            "spec": {"ports": [{"port": 80}]}}
    body["spec"].update(spec)
    if labels:
        body["metadata"]["labels"] = labels
    return body


def dnsep(name: str, ttl: int = 60) -> dict[str, Any]:
    return {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint", "metadata": {"name": name},
            "spec": {"endpoints": [{"dnsName": f"{name}.example.org", "recordType": "A", "targets": ["10.0.0.1"],
                                    "recordTTL": ttl}]}}


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason}
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


# ---------------------------------------------------------------------------------------------- discovery
def test_version_and_discovery(k: Target, raw: RawClient) -> None:
    v = raw.get("/version")
    assert v.status == 200 and v.headers["content-type"] == "application/json"
    assert v.json["major"] == "1" and v.json["gitVersion"].startswith("v1.")
    api = raw.get("/api").json
    assert api["kind"] == "APIVersions" and api["versions"] == ["v1"]
    assert api["serverAddressByClientCIDRs"][0]["serverAddress"] == f"127.0.0.1:{k.raw.port}"
    groups = {g["name"]: g for g in raw.get("/apis").json["groups"]}
    served = {"discovery.k8s.io", "networking.k8s.io", "externaldns.k8s.io", "kuadrant.io", "coordination.k8s.io",
              "events.k8s.io", "gateway.networking.k8s.io"}
    # the test server serves the groups external-dns reads; the real one those and every other built-in group
    assert served <= set(groups) if k.real else set(groups) == served
    assert groups["externaldns.k8s.io"]["preferredVersion"] == {"groupVersion": "externaldns.k8s.io/v1alpha1",
                                                                "version": "v1alpha1"}
    core = raw.get("/api/v1").json
    assert core["kind"] == "APIResourceList" and core["groupVersion"] == "v1"
    names = {r["name"]: r for r in core["resources"]}
    assert names["services"]["namespaced"] is True and names["services"]["kind"] == "Service"
    assert names["services/status"]["verbs"] == ["get", "patch", "update"]
    assert names["namespaces"]["namespaced"] is False
    assert "events/status" not in names
    crd = raw.get("/apis/externaldns.k8s.io/v1alpha1").json
    assert [r["name"] for r in crd["resources"]] == ["dnsendpoints", "dnsendpoints/status"]
    assert raw.get("/apis/externaldns.k8s.io").json["kind"] == "APIGroup"
    missing = raw.get("/apis/nope.example.com/v1")
    # no group serves it: plain text, not a Status
    assert missing.status == 404 and missing.body == b"404 page not found\n"
    assert missing.headers["content-type"].startswith("text/plain")
    assert raw.get(k.nspath("nosuchthings")).status == 404
    # a cluster-scoped resource under a namespace path does not exist
    assert raw.get(k.nspath("nodes")).status == 404


# ---------------------------------------------------------------------------------------------- create / get
def test_create_stamps_metadata_and_defaults(k: Target, raw: RawClient) -> None:
    before = k.rv()
    r = raw.request("POST", k.SVC, svc("web", uid="x"))
    assert r.status == 201
    obj = r.json
    assert list(obj)[:2] == ["kind", "apiVersion"]
    assert obj["kind"] == "Service" and obj["apiVersion"] == "v1"
    meta = obj["metadata"]
    assert meta["name"] == "web" and meta["namespace"] == k.ns
    assert k.next_rv(before, meta["resourceVersion"])
    assert re.fullmatch(r"[0-9a-f-]{36}", meta["uid"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"])
    assert "generation" not in meta  # Services have none (custom resources do)
    assert obj["spec"]["type"] == "ClusterIP"
    assert obj["spec"]["clusterIP"] == obj["spec"]["clusterIPs"][0]
    assert obj["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert obj["status"] == {"loadBalancer": {}}
    got = raw.get(f"{k.SVC}/web")
    assert got.status == 200 and got.json == obj


def test_create_ignores_status_and_server_fields(k: Target, raw: RawClient) -> None:
    body = svc("web", type="LoadBalancer")
    body["metadata"]["resourceVersion"] = "999"
    r = raw.request("POST", k.SVC, body)  # a resourceVersion is refused (with a 500, no reason)
    assert r.status == 500
    assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": "resourceVersion should not be set on objects to be created", "code": 500}
    del body["metadata"]["resourceVersion"]
    body["metadata"].update({"uid": "mine", "deletionTimestamp": "2020-01-01T00:00:00Z"})
    body["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}
    obj = raw.request("POST", k.SVC, body).json
    assert obj["status"] == {"loadBalancer": {}}
    assert obj["metadata"]["uid"] != "mine"
    assert "deletionTimestamp" not in obj["metadata"]


def test_create_already_exists(k: Target, raw: RawClient) -> None:
    assert raw.request("POST", k.SVC, svc("web")).status == 201
    r = raw.request("POST", k.SVC, svc("web"))
    assert r.status == 409
    assert r.json == status(409, "AlreadyExists", 'services "web" already exists', {"name": "web", "kind": "services"})
    r = raw.request("POST", k.DNSEP, dnsep("a"))
    r = raw.request("POST", k.DNSEP, dnsep("a"))
    assert r.json == status(409, "AlreadyExists", 'dnsendpoints.externaldns.k8s.io "a" already exists',
                            {"name": "a", "group": "externaldns.k8s.io", "kind": "dnsendpoints"})


def test_get_not_found(k: Target, raw: RawClient) -> None:
    r = raw.get(f"{k.SVC}/nope")
    assert r.status == 404
    assert r.json == status(404, "NotFound", 'services "nope" not found', {"name": "nope", "kind": "services"})
    r = raw.get(f"{k.INGRESSES}/nope")
    assert r.json == status(404, "NotFound", 'ingresses.networking.k8s.io "nope" not found',
                            {"name": "nope", "group": "networking.k8s.io", "kind": "ingresses"})


def test_create_requires_existing_namespace(raw: RawClient) -> None:
    r = raw.request("POST", "/api/v1/namespaces/ghost/services", svc("web"))
    assert r.status == 404
    assert r.json == status(404, "NotFound", 'namespaces "ghost" not found', {"name": "ghost", "kind": "namespaces"})
    assert raw.request("POST", "/api/v1/namespaces", {"metadata": {"name": "ghost"}}).status == 201
    assert raw.request("POST", "/api/v1/namespaces/ghost/services", svc("web")).status == 201


def test_create_namespace_mismatch_is_bad_request(k: Target, raw: RawClient) -> None:
    body = svc("web")
    body["metadata"]["namespace"] = "other"
    r = raw.request("POST", k.SVC, body)
    assert r.status == 400
    assert r.json == status(400, "BadRequest", "the namespace of the provided object does not match the namespace "
                                               "sent on the request")


def test_create_wrong_kind_is_bad_request(k: Target, raw: RawClient) -> None:
    body = svc("web")
    body["apiVersion"] = "v2"
    r = raw.request("POST", k.SVC, body)
    assert r.status == 400 and r.json["reason"] == "BadRequest"


@pytest.mark.parametrize(("path", "name", "kind", "group", "message"), [
    ("SVC", "Web", "Service", "", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                                  "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
                                  "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
    ("SVC", "web-", "Service", "", None),
    ("SVC", "a.b", "Service", "", None),
    ("DNSEP", "UPPER", "DNSEndpoint", "externaldns.k8s.io", "a lowercase RFC 1123 subdomain must consist of lower "
                                                          "case alphanumeric characters, '-' or '.', and must "
                                                          "start and end with an alphanumeric character (e.g. "
                                                          "'example.com', regex used for validation is "
                                                          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
                                                          "[a-z0-9])?)*')"),
    ("/api/v1/namespaces", "a.b", "Namespace", "", None),
])
def test_invalid_names(k: Target, raw: RawClient, path: str, name: str, kind: str, group: str,
                       message: str | None) -> None:
    path = getattr(k, path, path)
    body: dict[str, Any] = {"metadata": {"name": name}}
    if kind == "DNSEndpoint":  # a custom resource's body must say what it is (the real server: 400 without)
        body.update(apiVersion=f"{group}/v1alpha1", kind=kind)
    if kind == "Service":
        body["spec"] = {"ports": [{"port": 80}]}
    r = raw.request("POST", path, body)
    assert r.status == 422
    st = r.json
    assert st["reason"] == "Invalid" and st["code"] == 422
    assert st["details"]["kind"] == kind and st["details"]["name"] == name
    assert st["details"].get("group", "") == group
    cause = st["details"]["causes"][0]
    assert cause["field"] == "metadata.name" and cause["reason"] == "FieldValueInvalid"
    prefix = f'{kind}{"." + group if group else ""} "{name}" is invalid: metadata.name: Invalid value: "{name}": '
    assert st["message"].startswith(prefix)
    if message is not None:
        assert st["message"] == prefix + message


def test_custom_resource_body_says_what_it_is(k: Target, raw: RawClient) -> None:
    """A custom resource's body needs kind and apiVersion (a built-in's may leave them out)."""
    assert raw.request("POST", k.SVC, {"metadata": {"name": "nk"}, "spec": {"ports": [{"port": 80}]}}).status == 201
    body = {"apiVersion": "externaldns.k8s.io/v1alpha1", "metadata": {"name": "x"}, "spec": {}}
    r = raw.request("POST", k.DNSEP, body)
    assert r.json == status(400, "BadRequest", "the object provided is unrecognized (must be of type DNSEndpoint): "
                                               f"Object 'Kind' is missing in '{json.dumps(body)}' "
                                               f"({json.dumps(body)[:30]} ...)")
    r = raw.request("POST", k.DNSEP, {})
    assert r.json["message"] == ("the object provided is unrecognized (must be of type DNSEndpoint): Object 'Kind' "
                                 "is missing in '{}' ({})")
    r = raw.request("POST", k.DNSEP, {"kind": "DNSEndpoint", "metadata": {"name": "y"}, "spec": {}})
    assert r.json == status(400, "BadRequest", "the API version in the data () does not match the expected API "
                                               "version (externaldns.k8s.io/v1alpha1)")
    r = raw.request("POST", k.DNSEP, {**body, "kind": "Other", "metadata": {"name": "z"}})
    assert r.json == status(422, "Invalid", 'Other.externaldns.k8s.io "z" is invalid: kind: Invalid value: "Other": '
                                            "must be DNSEndpoint",
                            {"name": "z", "group": "externaldns.k8s.io", "kind": "Other",
                             "causes": [{"reason": "FieldValueInvalid", "message": 'Invalid value: "Other": must be '
                                                                                   "DNSEndpoint", "field": "kind"}]})


def test_service_names_are_rfc1123_labels(k: Target, raw: RawClient) -> None:
    """Since Kubernetes 1.34 a Service may be named like any RFC 1123 label: a leading digit is fine."""
    assert raw.request("POST", k.SVC, svc("1web")).status == 201


def test_missing_name_and_generate_name(k: Target, raw: RawClient) -> None:
    # a ConfigMap: a nameless Service gets a ClusterIP allocated first, and the real server then reports
    # the allocator's failure instead (docs/testing.md)
    r = raw.request("POST", k.nspath("configmaps"), {"metadata": {}, "data": {}})
    assert r.status == 422
    assert r.json == status(422, "Invalid", 'ConfigMap "" is invalid: metadata.name: Required value: name or '
                                            'generateName is required',
                            {"kind": "ConfigMap",
                             "causes": [{"reason": "FieldValueRequired",
                                         "message": "Required value: name or generateName is required",
                                         "field": "metadata.name"}]})
    r = raw.request("POST", k.SVC, {"metadata": {"generateName": "gen-"}, "spec": {"ports": [{"port": 80}]}})
    assert r.status == 201
    assert re.fullmatch(r"gen-[a-z0-9]{5}", r.json["metadata"]["name"])


def test_malformed_json_body(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", k.SVC, b"{not json")
    assert r.status == 400 and r.json["reason"] == "BadRequest"
    assert r.json["message"].startswith("the object provided is unrecognized (must be of type Service): couldn't "
                                        "get version/kind; json parse error: ")


# ---------------------------------------------------------------------------------------------- MicroTime
def lease(name: str, renew: str) -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
            "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15, "acquireTime": renew, "renewTime": renew}}


@pytest.mark.parametrize(("value", "detail"), [
    ("2026-11-23T10:00:00+00:00", 'cannot parse "+00:00" as ".000000"'),
    ("2026-11-23T10:00:00.123+00:00", 'cannot parse ".123+00:00" as ".000000"'),
    ("2026-11-23T10:00:00Z", 'cannot parse "Z" as ".000000"'),
])
def test_lease_micro_time_needs_six_digits(k: Target, raw: RawClient, value: str, detail: str) -> None:
    r = raw.request("POST", k.LEASES, lease("l", value))
    assert r.status == 400
    assert r.json == status(400, "BadRequest", f'Lease in version "v1" cannot be handled as a Lease: parsing time '
                                               f'"{value}" as "2006-01-02T15:04:05.000000Z07:00": {detail}')


def test_lease_micro_time_accepted_and_update_checked(k: Target, raw: RawClient) -> None:
    ok = raw.request("POST", k.LEASES, lease("l", "2026-11-23T10:00:00.000000Z"))
    assert ok.status == 201 and ok.json["spec"]["renewTime"] == "2026-11-23T10:00:00.000000Z"
    assert raw.request("POST", k.LEASES, lease("m", "2026-11-23T10:00:00.123456+01:00")).status == 201
    body = ok.json
    body["spec"]["renewTime"] = "2026-11-23T10:00:05+00:00"
    assert raw.request("PUT", f"{k.LEASES}/l", body).status == 400
    r = raw.request("PATCH", f"{k.LEASES}/l", {"spec": {"renewTime": "2026-11-23T10:00:05Z"}},
                    "application/merge-patch+json")
    # a patched object that does not decode is the patch's fault: 422 naming `patch`, quoting the patched object
    assert r.status == 422 and r.json["reason"] == "Invalid" and "kind" not in r.json["details"]
    why = 'parsing time "2026-11-23T10:00:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    [cause] = r.json["details"]["causes"]
    assert cause["field"] == "patch" and cause["reason"] == "FieldValueInvalid"
    assert cause["message"].startswith('Invalid value: "{') and cause["message"].endswith('}": ' + why)
    assert r.json["message"] == f' "" is invalid: patch: {cause["message"]}'


def test_events_k8s_io_event_time(k: Target, raw: RawClient) -> None:
    path = k.gpath("events.k8s.io/v1", "events")
    body = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1"},
            "eventTime": "2026-11-23T10:00:00Z", "reason": "Created", "action": "Create",
            "reportingController": "external-dns", "reportingInstance": "x", "type": "Normal",
            "regarding": {"kind": "Service", "apiVersion": "v1", "namespace": k.ns, "name": "web"}}
    r = raw.request("POST", path, body)
    assert r.status == 400
    assert "parsing time \"2026-11-23T10:00:00Z\"" in r.json["message"]
    body["eventTime"] = "2026-11-23T10:00:00.000001Z"
    assert raw.request("POST", path, body).status == 201


# ---------------------------------------------------------------------------------------------- update
def test_update_conflict_on_stale_rv(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    obj["metadata"]["labels"] = {"a": "1"}
    first = raw.request("PUT", f"{k.SVC}/web", obj)
    assert first.status == 200
    assert int(first.json["metadata"]["resourceVersion"]) > int(obj["metadata"]["resourceVersion"])
    r = raw.request("PUT", f"{k.SVC}/web", obj)
    assert r.status == 409
    assert r.json == status(409, "Conflict", 'Operation cannot be fulfilled on services "web": the object has been '
                                             'modified; please apply your changes to the latest version and try '
                                             'again', {"name": "web", "kind": "services"})


def test_update_without_rv_builtin_unconditional_cr_invalid(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    del obj["metadata"]["resourceVersion"]
    assert raw.request("PUT", f"{k.SVC}/web", obj).status == 200
    cr = raw.request("POST", k.DNSEP, dnsep("a")).json
    del cr["metadata"]["resourceVersion"]
    r = raw.request("PUT", f"{k.DNSEP}/a", cr)
    assert r.status == 422
    assert r.json == status(422, "Invalid", 'dnsendpoints.externaldns.k8s.io "a" is invalid: metadata.'
                                            'resourceVersion: Invalid value: 0: must be specified for an update',
                            {"name": "a", "group": "externaldns.k8s.io", "kind": "dnsendpoints",
                             "causes": [{"reason": "FieldValueInvalid",
                                         "message": "Invalid value: 0: must be specified for an update",
                                         "field": "metadata.resourceVersion"}]})


def test_update_missing_object_and_name_mismatch(k: Target, raw: RawClient) -> None:
    # a PUT creates a missing Service (its strategy allows it), not a missing custom resource
    r = raw.request("PUT", f"{k.SVC}/nope", svc("nope"))
    assert r.status == 201 and r.json["metadata"]["name"] == "nope"
    assert raw.request("PUT", f"{k.DNSEP}/nope", dnsep("nope")).status == 404
    raw.request("POST", k.SVC, svc("web"))
    r = raw.request("PUT", f"{k.SVC}/web", svc("other"))
    assert r.status == 400
    assert r.json["message"] == "the name of the object (other) does not match the name on the URL (web)"


def test_generation_bumps_on_spec_changes_only(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.DNSEP, dnsep("a")).json
    assert obj["metadata"]["generation"] == 1
    obj["metadata"]["labels"] = {"x": "y"}
    obj = raw.request("PUT", f"{k.DNSEP}/a", obj).json
    assert obj["metadata"]["generation"] == 1
    obj = raw.request("PUT", f"{k.DNSEP}/a/status", {**obj, "status": {"observedGeneration": 1}}).json
    assert obj["metadata"]["generation"] == 1
    obj["spec"]["endpoints"][0]["recordTTL"] = 300
    obj = raw.request("PUT", f"{k.DNSEP}/a", obj).json
    assert obj["metadata"]["generation"] == 2
    obj["metadata"]["generation"] = 99  # clients cannot set it
    obj = raw.request("PUT", f"{k.DNSEP}/a", obj).json
    assert obj["metadata"]["generation"] == 2


def test_noop_update_keeps_rv_and_sends_no_event(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    rv = obj["metadata"]["resourceVersion"]
    again = raw.request("PUT", f"{k.SVC}/web", obj).json
    assert again["metadata"]["resourceVersion"] == rv
    patched = raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"labels": None}}, "application/merge-patch+json")
    assert patched.json["metadata"]["resourceVersion"] == rv
    assert k.rv() == int(rv)


def test_status_subresource_separation(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web", type="LoadBalancer")).json
    # main-resource writes ignore status
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}]}}
    obj["metadata"]["labels"] = {"a": "b"}
    upd = raw.request("PUT", f"{k.SVC}/web", obj).json
    assert upd["status"] == {"loadBalancer": {}} and upd["metadata"]["labels"] == {"a": "b"}
    # status writes change status and (for a Service, unlike a custom resource) metadata, never spec
    upd["status"] = {"loadBalancer": {"ingress": [{"ip": "2.2.2.2"}]}}
    upd["metadata"]["labels"] = {"c": "d"}
    upd["spec"]["ports"] = [{"port": 443}]
    st = raw.request("PUT", f"{k.SVC}/web/status", upd).json
    assert st["status"] == {"loadBalancer": {"ingress": [{"ip": "2.2.2.2", "ipMode": "VIP"}]}}  # defaulted
    assert st["metadata"]["labels"] == {"c": "d"}
    assert st["spec"]["ports"][0]["port"] == 80
    got = raw.get(f"{k.SVC}/web/status").json
    assert got == st
    p = raw.request("PATCH", f"{k.SVC}/web/status", {"status": {"loadBalancer": {"ingress": [{"hostname": "lb"}]}}},
                    "application/merge-patch+json").json
    assert p["status"]["loadBalancer"]["ingress"] == [{"hostname": "lb"}]
    # resources without a status subresource: /status does not exist
    raw.request("POST", k.LEASES, lease("l", "2026-11-23T10:00:00.000000Z"))
    assert raw.get(f"{k.LEASES}/l/status").status == 404


def test_service_cluster_ip_immutable(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    ip = obj["spec"]["clusterIP"]
    del obj["spec"]["clusterIP"]
    del obj["spec"]["clusterIPs"]
    kept = raw.request("PUT", f"{k.SVC}/web", obj).json
    assert kept["spec"]["clusterIP"] == ip
    kept["spec"]["clusterIP"] = "10.0.0.1"
    r = raw.request("PUT", f"{k.SVC}/web", kept)
    assert r.status == 422 and r.json["details"]["causes"][0]["field"] == "spec.clusterIPs[0]"
    headless = raw.request("POST", k.SVC, svc("headless", clusterIP="None")).json
    assert headless["spec"]["clusterIP"] == "None"
    lb = raw.request("POST", k.SVC, svc("lb", type="LoadBalancer")).json
    assert 30000 <= lb["spec"]["ports"][0]["nodePort"] <= 32767


# ---------------------------------------------------------------------------------------------- patch
def test_merge_patch(k: Target, raw: RawClient) -> None:
    raw.request("POST", k.SVC, svc("web", labels={"a": "1", "b": "2"}))
    r = raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"labels": {"a": None, "c": "3"}}},
                    "application/merge-patch+json")
    assert r.status == 200 and r.json["metadata"]["labels"] == {"b": "2", "c": "3"}
    # merge patch replaces lists
    r = raw.request("PATCH", f"{k.SVC}/web", {"spec": {"ports": [{"port": 81}]}}, "application/merge-patch+json")
    assert [p["port"] for p in r.json["spec"]["ports"]] == [81]


def test_merge_patch_with_stale_rv_conflicts(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"labels": {"a": "1"}}}, "application/merge-patch+json")
    r = raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"resourceVersion": obj["metadata"]["resourceVersion"],
                                                         "labels": {"a": "2"}}}, "application/merge-patch+json")
    assert r.status == 409 and r.json["reason"] == "Conflict"


@REAL_SERVER_DIFFERS
def test_strategic_merge_patch(k: Target, raw: RawClient) -> None:
    assert raw.request("POST", k.SVC, svc("web", ports=[{"port": 80, "name": "http"}])).status == 201
    smp = "application/strategic-merge-patch+json"
    r = raw.request("PATCH", f"{k.SVC}/web", {"spec": {"ports": [{"port": 443, "name": "https"}]},
                                             "metadata": {"finalizers": ["a/b"]}}, smp)
    assert r.status == 200
    assert [p["port"] for p in r.json["spec"]["ports"]] == [80, 443]
    r = raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"finalizers": ["c/d"]}}, smp)
    assert r.json["metadata"]["finalizers"] == ["a/b", "c/d"]
    r = raw.request("PATCH", f"{k.SVC}/web", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a/b"]}}, smp)
    assert r.json["metadata"]["finalizers"] == ["c/d"]
    r = raw.request("PATCH", f"{k.SVC}/web", {"spec": {"ports": [{"port": 80, "$patch": "delete"}]}}, smp)
    assert [p["port"] for p in r.json["spec"]["ports"]] == [443]
    r = raw.request("PATCH", f"{k.SVC}/web", {"spec": {"ports": [{"port": 443, "name": "tls"}]}}, smp)
    assert r.json["spec"]["ports"] == [{"port": 443, "name": "tls", "protocol": "TCP", "targetPort": 443}]
    # CRs do not support strategic merge patch
    raw.request("POST", k.DNSEP, dnsep("a"))
    r = raw.request("PATCH", f"{k.DNSEP}/a", {"metadata": {"labels": {"a": "b"}}}, smp)
    assert r.status == 415 and r.json["reason"] == "UnsupportedMediaType"


def test_json_patch_and_unknown_patch_type(k: Target, raw: RawClient) -> None:
    raw.request("POST", k.SVC, svc("web", labels={"a": "1"}))
    r = raw.request("PATCH", f"{k.SVC}/web", [{"op": "replace", "path": "/metadata/labels/a", "value": "2"},
                                             {"op": "add", "path": "/metadata/annotations", "value": {"x": "y"}}],
                    "application/json-patch+json")
    assert r.status == 200
    assert r.json["metadata"]["labels"] == {"a": "2"} and r.json["metadata"]["annotations"] == {"x": "y"}
    r = raw.request("PATCH", f"{k.SVC}/web", [{"op": "test", "path": "/metadata/labels/a", "value": "1"}],
                    "application/json-patch+json")
    assert r.status == 422
    r = raw.request("PATCH", f"{k.SVC}/web", {"a": 1}, "text/plain")
    assert r.status == 415
    assert raw.request("PATCH", f"{k.SVC}/nope", {}, "application/merge-patch+json").status == 404


# ---------------------------------------------------------------------------------------------- delete
def test_delete_returns_object_or_status(k: Target, raw: RawClient) -> None:
    raw.request("POST", k.SVC, svc("web"))
    r = raw.request("DELETE", f"{k.SVC}/web")
    assert r.status == 200 and r.json["kind"] == "Service" and r.json["metadata"]["name"] == "web"
    created = raw.request("POST", k.LEASES, lease("l", "2026-11-23T10:00:00.000000Z")).json
    r = raw.request("DELETE", f"{k.LEASES}/l")
    assert r.status == 200
    assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                      "details": {"name": "l", "group": "coordination.k8s.io", "kind": "leases",
                                  "uid": created["metadata"]["uid"]}}
    r = raw.request("DELETE", f"{k.LEASES}/l")
    assert r.status == 404
    assert r.json == status(404, "NotFound", 'leases.coordination.k8s.io "l" not found',
                            {"name": "l", "group": "coordination.k8s.io", "kind": "leases"})


def test_delete_preconditions(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    r = raw.request("DELETE", f"{k.SVC}/web", {"preconditions": {"uid": "other"}})
    assert r.json == status(409, "Conflict", f'Operation cannot be fulfilled on Service "web": the UID in the '
                                             f'precondition (other) does not match the UID in record '
                                             f'({obj["metadata"]["uid"]}). The object might have been deleted and '
                                             f'then recreated', {"name": "web", "kind": "Service"})
    r = raw.request("DELETE", f"{k.SVC}/web", {"preconditions": {"resourceVersion": "1"}})
    assert r.json["message"] == (f'Operation cannot be fulfilled on Service "web": the ResourceVersion in the '
                                 f'precondition (1) does not match the ResourceVersion in record '
                                 f'({obj["metadata"]["resourceVersion"]}). The object might have been modified')
    raw.request("POST", k.DNSEP, dnsep("d"))
    r = raw.request("DELETE", f"{k.DNSEP}/d", {"preconditions": {"uid": "other"}})
    assert r.status == 409 and r.json["details"] == {"name": "d", "group": "externaldns.k8s.io", "kind": "DNSEndpoint"}
    assert r.json["message"].startswith('Operation cannot be fulfilled on DNSEndpoint.externaldns.k8s.io "d": the UID')
    r = raw.request("DELETE", f"{k.SVC}/web", {"preconditions": {"resourceVersion": obj["metadata"]["resourceVersion"]}})
    assert r.status == 200


def test_finalizers_keep_object_until_removed(k: Target, raw: RawClient) -> None:
    path = k.gpath("kuadrant.io/v1alpha1", "dnsrecords")
    body = {"apiVersion": "kuadrant.io/v1alpha1", "kind": "DNSRecord",
            "metadata": {"name": "rec", "finalizers": ["kuadrant.io/dns-record"]},
            "spec": {"rootHost": "a.example.org", "endpoints": []}}
    created = raw.request("POST", path, body).json
    start_rv = created["metadata"]["resourceVersion"]
    r = raw.request("DELETE", f"{path}/rec")
    assert r.status == 200  # 200 with the object, deleting; not 202
    deleting = r.json
    assert deleting["metadata"]["deletionTimestamp"]
    assert deleting["metadata"]["deletionGracePeriodSeconds"] == 0
    assert deleting["metadata"]["generation"] == 2
    # deleting again changes nothing
    again = raw.request("DELETE", f"{path}/rec")
    assert again.status == 200 and again.json == deleting
    # no new finalizers once deleting
    deleting["metadata"]["finalizers"].append("other/one")
    r = raw.request("PUT", f"{path}/rec", deleting)
    assert r.status == 422
    assert r.json["details"]["causes"][0]["field"] == "metadata.finalizers"
    # status writes still work while deleting
    st = raw.request("PATCH", f"{path}/rec/status", {"status": {"observedGeneration": 2}},
                     "application/merge-patch+json")
    assert st.status == 200
    r = raw.request("PATCH", f"{path}/rec", {"metadata": {"finalizers": None}}, "application/merge-patch+json")
    assert r.status == 200
    assert raw.get(f"{path}/rec").status == 404
    types = [e["type"] for e in k.watch_until_now(f"{path}?watch=true&resourceVersion={start_rv}")]
    assert types == ["MODIFIED", "MODIFIED", "DELETED"]


def test_namespace_delete_stays_terminating(raw: RawClient) -> None:
    raw.request("POST", "/api/v1/namespaces", {"metadata": {"name": "gone"}})
    r = raw.request("DELETE", "/api/v1/namespaces/gone")
    assert r.status == 200
    assert r.json["status"]["phase"] == "Terminating" and r.json["metadata"]["deletionTimestamp"]
    assert raw.get("/api/v1/namespaces/gone").json["status"]["phase"] == "Terminating"
    r = raw.request("POST", "/api/v1/namespaces/gone/services", svc("web"))
    assert r.status == 403 and r.json["reason"] == "Forbidden"
    assert "because it is being terminated" in r.json["message"]


def test_delete_collection(k: Target, raw: RawClient) -> None:
    for name, tier in (("a", "web"), ("b", "web"), ("c", "db")):
        raw.request("POST", k.SVC, svc(name, labels={"tier": tier}))
    r = raw.request("DELETE", f"{k.SVC}?labelSelector=tier%3Dweb")
    assert r.status == 200 and r.json["kind"] == "ServiceList"
    assert sorted(i["metadata"]["name"] for i in r.json["items"]) == ["a", "b"]
    assert [i["metadata"]["name"] for i in raw.get(k.SVC).json["items"]] == ["c"]


# ---------------------------------------------------------------------------------------------- list
def test_list_shape_builtin_vs_cr(k: Target, raw: RawClient) -> None:
    raw.request("POST", k.SVC, svc("web"))
    r = raw.get(k.SVC)
    assert r.status == 200
    body = r.json
    assert list(body) == ["kind", "apiVersion", "metadata", "items"]
    assert body["kind"] == "ServiceList" and body["apiVersion"] == "v1"
    assert body["metadata"] == {"resourceVersion": str(k.rv())}
    item = body["items"][0]
    assert "kind" not in item and "apiVersion" not in item
    raw.request("POST", k.DNSEP, dnsep("a"))
    crs = raw.get(k.DNSEP).json
    assert crs["kind"] == "DNSEndpointList" and crs["apiVersion"] == "externaldns.k8s.io/v1alpha1"
    assert crs["items"][0]["kind"] == "DNSEndpoint"
    assert crs["items"][0]["apiVersion"] == "externaldns.k8s.io/v1alpha1"
    empty = raw.get("/apis/discovery.k8s.io/v1/endpointslices").json
    assert empty["items"] == [] and empty["kind"] == "EndpointSliceList"


@REAL_SERVER_DIFFERS
def test_list_all_namespaces_and_namespace_scoping(k: Target, raw: RawClient) -> None:
    raw.request("POST", "/api/v1/namespaces", {"metadata": {"name": "other"}})
    raw.request("POST", k.SVC, svc("a"))
    raw.request("POST", "/api/v1/namespaces/other/services", svc("b"))
    everything = raw.get("/api/v1/services").json["items"]
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in everything] == [("default", "a"),
                                                                                         ("other", "b")]
    assert [i["metadata"]["name"] for i in raw.get("/api/v1/namespaces/other/services").json["items"]] == ["b"]


@pytest.mark.parametrize(("selector", "expected"), [
    ("tier=web", ["a", "b"]),
    ("tier==web", ["a", "b"]),
    ("tier!=web", ["c", "d"]),
    ("tier in (web,db)", ["a", "b", "c"]),
    ("tier notin (web)", ["c", "d"]),
    ("tier", ["a", "b", "c"]),
    ("!tier", ["d"]),
    ("tier=web,env=prod", ["a"]),
    ("tier in (web), !env", ["b"]),
    ("example.com/role=edge", ["d"]),
    ("n>1", ["c"]),
    ("n<2", ["a"]),
    ("", ["a", "b", "c", "d"]),
])
def test_label_selector_operators(k: Target, raw: RawClient, selector: str, expected: list[str]) -> None:
    for name, labels in (("a", {"tier": "web", "env": "prod", "n": "1"}), ("b", {"tier": "web"}),
                         ("c", {"tier": "db", "n": "5"}), ("d", {"example.com/role": "edge"})):
        k.create(svc(name, labels=labels))
    from urllib.parse import quote

    r = raw.get(f"{k.SVC}?labelSelector={quote(selector)}")
    assert r.status == 200
    assert [i["metadata"]["name"] for i in r.json["items"]] == expected


@pytest.mark.parametrize("selector", ["tier=", "=web", "tier in web", "a,", "tier=we b!", "x>y", "Bad Key=1"])
def test_label_selector_syntax_errors(k: Target, raw: RawClient, selector: str) -> None:
    from urllib.parse import quote

    if selector == "tier=":  # an empty value is valid: it selects objects whose label is ""
        assert raw.get(f"{k.SVC}?labelSelector={quote(selector)}").status == 200
        return
    r = raw.get(f"{k.SVC}?labelSelector={quote(selector)}")
    assert r.status == 400, selector
    assert r.json["reason"] == "BadRequest"


def test_label_selector_with_an_empty_set(k: Target, raw: RawClient) -> None:
    """`in ()` parses on a list: it selects nothing, `notin ()` everything (labelled or not)."""
    raw.request("POST", k.SVC, svc("web", labels={"tier": "web"}))
    raw.request("POST", k.SVC, svc("bare"))
    r = raw.get(f"{k.SVC}?labelSelector=tier%20in%20()")
    assert r.status == 200 and r.json["items"] == []
    r = raw.get(f"{k.SVC}?labelSelector=tier%20notin%20()")
    assert sorted(i["metadata"]["name"] for i in r.json["items"]) == ["bare", "web"]


@REAL_SERVER_DIFFERS
def test_field_selectors(k: Target, raw: RawClient, kubeapi: KubeAPIServer) -> None:
    kubeapi.ensure_namespace("other")
    k.create(svc("a"))
    k.create(svc("b"))
    k.create({**svc("a"), "metadata": {"name": "a", "namespace": "other"}})
    def names(path: str) -> list[tuple[str, str]]:
        return [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in raw.get(path).json["items"]]

    assert names("/api/v1/services?fieldSelector=metadata.name%3Da") == [("default", "a"), ("other", "a")]
    assert names("/api/v1/services?fieldSelector=metadata.namespace%3Dother") == [("other", "a")]
    assert names("/api/v1/services?fieldSelector=metadata.name!%3Da") == [("default", "b")]
    assert names("/api/v1/services?fieldSelector=metadata.name%3D%3Da,metadata.namespace%3Ddefault") == [
        ("default", "a")]
    assert names("/api/v1/services?fieldSelector=spec.type%3DClusterIP") == [("default", "a"), ("default", "b"),
                                                                           ("other", "a")]
    r = raw.get("/api/v1/services?fieldSelector=spec.bogus%3Dx")
    assert r.status == 400
    assert r.json == status(400, "BadRequest", "field label not supported: spec.bogus")


def test_list_paging_consistent_snapshot(k: Target, raw: RawClient) -> None:
    for i in range(5):
        k.create(svc(f"s{i}"))
    first = raw.get(f"{k.SVC}?limit=2").json
    snapshot = first["metadata"]["resourceVersion"]
    assert [i["metadata"]["name"] for i in first["items"]] == ["s0", "s1"]
    assert first["metadata"]["remainingItemCount"] == 3
    token = first["metadata"]["continue"]
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded["v"] == "meta.k8s.io/v1" and decoded["rv"] == int(snapshot)
    # writes between pages are invisible to the continuation
    k.delete("v1", "Service", k.ns, "s3")
    k.create(svc("s2a"))
    k.patch("v1", "Service", k.ns, "s4", {"metadata": {"labels": {"changed": "yes"}}})
    second = raw.get(f"{k.SVC}?limit=2&continue={token}").json
    assert second["metadata"]["resourceVersion"] == snapshot
    assert [i["metadata"]["name"] for i in second["items"]] == ["s2", "s3"]
    third = raw.get(f"{k.SVC}?limit=2&continue={second['metadata']['continue']}").json
    assert [i["metadata"]["name"] for i in third["items"]] == ["s4"]
    assert "labels" not in third["items"][0]["metadata"]
    assert "continue" not in third["metadata"] and "remainingItemCount" not in third["metadata"]
    fresh = raw.get(k.SVC).json
    assert [i["metadata"]["name"] for i in fresh["items"]] == ["s0", "s1", "s2", "s2a", "s4"]


def test_paging_with_selector_omits_remaining_count(k: Target, raw: RawClient) -> None:
    for i in range(4):
        k.create(svc(f"s{i}", labels={"k": "v"}))
    page = raw.get(f"{k.SVC}?limit=1&labelSelector=k%3Dv").json
    assert len(page["items"]) == 1 and page["metadata"]["continue"]
    assert "remainingItemCount" not in page["metadata"]
    page = raw.get(f"{k.SVC}?limit=3&labelSelector=k%3Dv&continue={page['metadata']['continue']}").json
    assert len(page["items"]) == 3 and "continue" not in page["metadata"]


@REAL_SERVER_DIFFERS
def test_expired_continue_is_410(k: Target, raw: RawClient) -> None:
    for i in range(3):
        k.create(svc(f"s{i}"))
    token = raw.get(f"{k.SVC}?limit=1").json["metadata"]["continue"]
    k.compact()
    r = raw.get(f"{k.SVC}?limit=1&continue={token}")
    assert r.status == 410
    assert r.json == status(410, "Expired", "The provided continue parameter is too old to display a consistent "
                                            "list result. You can start a new list without the continue parameter.")
    r = raw.get(f"{k.SVC}?limit=1&continue=garbage!")
    assert r.status == 400 and r.json["message"].startswith("continue key is not valid")


@TEST_SERVER_ONLY
def test_continue_expires_when_history_rolls_over(k: Target, kubeapi_server: KubeAPIServer) -> None:
    server = KubeAPIServer(history_size=5).start()
    try:
        server.ensure_namespace("default")
        for i in range(3):
            server.create(svc(f"s{i}"))
        with RawClient(server.url) as raw:
            token = raw.get(f"{k.SVC}?limit=1").json["metadata"]["continue"]
            assert raw.get(f"{k.SVC}?limit=1&continue={token}").status == 200
            for i in range(6):
                server.create(lease(f"l{i}", "2026-11-23T10:00:00.000000Z"))
            assert raw.get(f"{k.SVC}?limit=1&continue={token}").status == 410
    finally:
        server.stop()


@REAL_SERVER_DIFFERS
def test_list_resource_version_rules(k: Target, raw: RawClient) -> None:
    k.create(svc("a"))
    old_rv = k.rv()
    k.create(svc("b"))
    now = k.rv()
    def names(body: dict[str, Any]) -> list[str]:
        return [i["metadata"]["name"] for i in body["items"]]

    # no limit: NotOlderThan -> current state
    r = raw.get(f"{k.SVC}?resourceVersion={old_rv}").json
    assert names(r) == ["a", "b"] and r["metadata"]["resourceVersion"] == str(now)
    # limit + rv = Exact
    r = raw.get(f"{k.SVC}?resourceVersion={old_rv}&limit=10").json
    assert names(r) == ["a"] and r["metadata"]["resourceVersion"] == str(old_rv)
    r = raw.get(f"{k.SVC}?resourceVersion={old_rv}&resourceVersionMatch=Exact").json
    assert names(r) == ["a"] and r["metadata"]["resourceVersion"] == str(old_rv)
    r = raw.get(f"{k.SVC}?resourceVersion={old_rv}&limit=10&resourceVersionMatch=NotOlderThan").json
    assert names(r) == ["a", "b"]
    # rv=0: any, the limit is ignored
    r = raw.get(f"{k.SVC}?resourceVersion=0&limit=1").json
    assert names(r) == ["a", "b"] and "continue" not in r["metadata"]
    # too new -> 504
    r = raw.get(f"{k.SVC}?resourceVersion={now + 100}")
    assert r.status == 504
    assert r.json == status(504, "Timeout", f"Timeout: Too large resource version: {now + 100}, current: {now}",
                            {"causes": [{"reason": "ResourceVersionTooLarge",
                                         "message": "Too large resource version"}], "retryAfterSeconds": 1})
    # exact but compacted -> 410
    k.compact()
    r = raw.get(f"{k.SVC}?resourceVersion={old_rv}&resourceVersionMatch=Exact")
    assert r.status == 410
    assert r.json == status(410, "Expired", "The resourceVersion for the provided list is too old.")


_FORBIDDEN_UNLESS_RV = "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"


@pytest.mark.parametrize(("query", "causes"), [
    ("resourceVersionMatch=NotOlderThan", [("resourceVersionMatch", _FORBIDDEN_UNLESS_RV)]),
    ("resourceVersionMatch=Exact&resourceVersion=0",
     [("resourceVersionMatch", 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]),
    ("resourceVersionMatch=Exact&continue=abc",
     [("resourceVersionMatch", _FORBIDDEN_UNLESS_RV),
      ("resourceVersionMatch", "Forbidden: resourceVersionMatch is forbidden when continue is provided")]),
    ("resourceVersionMatch=Newest&resourceVersion=1",
     [("resourceVersionMatch", 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')]),
    ("sendInitialEvents=true", [("sendInitialEvents", "Forbidden: sendInitialEvents is forbidden for list")]),
])
def test_list_options_validation(k: Target, raw: RawClient, query: str, causes: list[tuple[str, str]]) -> None:
    r = raw.get(f"{k.SVC}?{query}")
    assert r.status == 422
    parts = [f"{field}: {message}" for field, message in causes]
    summary = parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    assert r.json == status(422, "Invalid", f'ListOptions.meta.k8s.io "" is invalid: {summary}',
                            {"group": "meta.k8s.io", "kind": "ListOptions", "causes": [
                                {"reason": "FieldValueNotSupported" if m.startswith("Unsupported")
                                 else "FieldValueForbidden", "message": m, "field": f} for f, m in causes]})


@REAL_SERVER_DIFFERS
def test_list_bad_parameters(k: Target, raw: RawClient) -> None:
    r = raw.get(f"{k.SVC}?limit=2&continue=x&resourceVersion=5")
    assert r.status == 400
    assert r.json == status(400, "BadRequest", "specifying resource version is not allowed when using continue")
    assert raw.get(f"{k.SVC}?resourceVersion=abc").status == 400
    assert raw.get(f"{k.SVC}?limit=ten").status == 400
    assert raw.get(f"{k.SVC}?watch=yes").status == 400


def test_endpoints_deprecation_warning_on_list(k: Target, raw: RawClient) -> None:
    r = raw.get(k.nspath("endpoints"))
    assert r.headers["warning"] == '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'


# ---------------------------------------------------------------------------------------------- watch
def test_watch_from_unset_rv_sends_synthetic_added(k: Target, raw: RawClient) -> None:
    for i in range(3):
        k.create(svc(f"s{i}"))
    with raw.watch(f"{k.SVC}?watch=true&timeoutSeconds=1") as w:
        assert w.status == 200
        assert w.headers["transfer-encoding"] == "chunked"
        assert w.headers["content-type"] == "application/json"
        events = list(w.events())
    assert sorted(e["object"]["metadata"]["name"] for e in events) == ["s0", "s1", "s2"]
    assert {e["type"] for e in events} == {"ADDED"}
    assert all(e["object"]["kind"] == "Service" and e["object"]["apiVersion"] == "v1" for e in events)
    for query in ("watch=True", "watch=1", "watch=true&resourceVersion=0"):
        events = k.watch_until_now(f"{k.SVC}?{query}")
        assert sorted((e["type"], e["object"]["metadata"]["name"]) for e in events) == [
            ("ADDED", "s0"), ("ADDED", "s1"), ("ADDED", "s2")]


@REAL_SERVER_DIFFERS
def test_watch_replays_history_from_rv(k: Target, raw: RawClient) -> None:
    k.create(svc("a"))
    start = k.rv()
    k.create(svc("b"))
    k.patch("v1", "Service", k.ns, "a", {"metadata": {"labels": {"x": "1"}}})
    deleted = k.delete("v1", "Service", k.ns, "b")
    events = k.watch_until_now(f"{k.SVC}?watch=true&resourceVersion={start}")
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b")]
    rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert rvs == sorted(rvs) and rvs[-1] == k.rv()
    assert events[-1]["object"]["metadata"]["resourceVersion"] == deleted["metadata"]["resourceVersion"]


@REAL_SERVER_DIFFERS
def test_watch_live_events_and_clean_timeout(k: Target, kubeapi: KubeAPIServer) -> None:
    start = k.rv()
    sock = socket.create_connection(("127.0.0.1", kubeapi.port), timeout=5)
    try:
        sock.sendall(f"GET {k.SVC}?watch=true&resourceVersion={start}&timeoutSeconds=1 HTTP/1.1\r\n"
                     f"Host: x\r\nAccept: application/json\r\n\r\n".encode())
        time.sleep(0.1)
        k.create(svc("live"))
        data = b""
        t0 = time.monotonic()
        while not data.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            assert chunk, "connection closed before the terminating chunk"
            data += chunk
        assert 0.8 < time.monotonic() - t0 < 3
        head, _, body = data.partition(b"\r\n\r\n")
        assert b"Transfer-Encoding: chunked" in head and head.startswith(b"HTTP/1.1 200")
        assert b'"type":"ADDED"' in body and b'"name":"live"' in body
        # the connection stays usable after a clean end (keep-alive)
        sock.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    finally:
        sock.close()


@REAL_SERVER_DIFFERS
def test_watch_too_old_rv_gets_410_error_event(k: Target, raw: RawClient) -> None:
    k.create(svc("a"))
    old = k.rv()
    k.compact()
    compacted = k.rv()
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={old}") as w:
        assert w.status == 200
        events = list(w.events())
    assert events == [{"type": "ERROR", "object": status(410, "Expired",
                                                         f"too old resource version: {old} ({compacted})")}]
    # a watch from the rv of a fresh list works after compaction
    rv = raw.get(k.SVC).json["metadata"]["resourceVersion"]
    assert k.watch_until_now(f"{k.SVC}?watch=true&resourceVersion={rv}") == []


@TEST_SERVER_ONLY
def test_watch_history_window_is_bounded(k: Target) -> None:
    server = KubeAPIServer(history_size=3).start()
    try:
        server.ensure_namespace("default")
        start = server.resource_version
        for i in range(5):
            server.create(svc(f"s{i}"))
        with RawClient(server.url) as raw, raw.watch(f"{k.SVC}?watch=true&resourceVersion={start}") as w:
            ev = w.next_event()
            assert ev is not None and ev["type"] == "ERROR" and ev["object"]["code"] == 410
            assert w.next_event() is None
        with RawClient(server.url) as raw, \
                raw.watch(f"{k.SVC}?watch=true&resourceVersion={server.resource_version - 3}&timeoutSeconds=1") as w:
            assert [e["object"]["metadata"]["name"] for e in w.events()] == ["s2", "s3", "s4"]
    finally:
        server.stop()


@REAL_SERVER_DIFFERS
def test_watch_too_new_rv(k: Target, raw: RawClient) -> None:
    now = k.rv()
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={now + 50}") as w:
        events = list(w.events())
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 504 and events[0]["object"]["reason"] == "Timeout"


@REAL_SERVER_DIFFERS
def test_watch_bookmarks(k: Target, raw: RawClient) -> None:
    k.create(svc("a"))
    rv = k.rv()
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=1") as w:
        events = list(w.events())
    assert events == [{"type": "BOOKMARK", "object": {"kind": "Service", "apiVersion": "v1", "metadata": {
        "resourceVersion": str(rv), "creationTimestamp": None}}}]
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={rv}&timeoutSeconds=1") as w:
        assert list(w.events()) == []  # no bookmarks unless asked
    with raw.watch(f"{k.DNSEP}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=1") as w:
        assert list(w.events()) == [{"type": "BOOKMARK", "object": {
            "kind": "DNSEndpoint", "apiVersion": "externaldns.k8s.io/v1alpha1",
            "metadata": {"resourceVersion": str(rv)}}}]


@TEST_SERVER_ONLY
def test_periodic_and_on_demand_bookmarks(k: Target, raw: RawClient, kubeapi: KubeAPIServer) -> None:
    kubeapi.bookmark_interval = 0.2
    rv = k.rv()
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=30") as w:
        ev = w.next_event()
        assert ev is not None and ev["type"] == "BOOKMARK"
        k.create(svc("x"))
        seen = []
        while True:
            ev = w.next_event()
            assert ev is not None
            seen.append(ev["type"])
            if ev["type"] == "BOOKMARK" and "ADDED" in seen:
                assert int(ev["object"]["metadata"]["resourceVersion"]) >= k.rv()
                break
    kubeapi.bookmark_interval = 60
    with raw.watch(f"{k.SVC}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=30") as w:
        ev = w.next_event()
        assert ev is not None and ev["type"] == "ADDED"
        assert kubeapi.send_bookmarks() >= 1
        ev = w.next_event()
        assert ev is not None and ev["type"] == "BOOKMARK"


@REAL_SERVER_DIFFERS
def test_send_initial_events(k: Target, raw: RawClient) -> None:
    k.create(svc("a"))
    k.create(svc("b"))
    rv = k.rv()
    q = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    with raw.watch(f"{k.SVC}?{q}&timeoutSeconds=1") as w:
        events = list(w.events())
    assert sorted(e["object"]["metadata"]["name"] for e in events[:2]) == ["a", "b"]
    assert events[2] == {"type": "BOOKMARK", "object": {"kind": "Service", "apiVersion": "v1", "metadata": {
        "resourceVersion": str(rv), "creationTimestamp": None,
        "annotations": {"k8s.io/initial-events-end": "true"}}}}
    r = raw.get(f"{k.SVC}?watch=true&sendInitialEvents=true")
    assert r.status == 422
    r = raw.get(f"{k.SVC}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1")
    assert r.status == 422 and r.json["details"]["causes"][0]["field"] == "resourceVersionMatch"


@REAL_SERVER_DIFFERS
def test_watch_selector_transitions(k: Target, raw: RawClient) -> None:
    k.create(svc("a", labels={"team": "x"}))
    rv = k.rv()
    k.patch("v1", "Service", k.ns, "a", {"metadata": {"labels": {"team": "y"}}})
    k.patch("v1", "Service", k.ns, "a", {"metadata": {"labels": {"team": "x"}}})
    k.patch("v1", "Service", k.ns, "a", {"metadata": {"annotations": {"n": "1"}}})
    k.create(svc("b", labels={"team": "y"}))
    events = [(e["type"], e["object"]["metadata"]["name"])
              for e in k.watch_until_now(f"{k.SVC}?watch=true&resourceVersion={rv}&labelSelector=team%3Dx")]
    assert events == [("DELETED", "a"), ("ADDED", "a"), ("MODIFIED", "a")]
    by_name = k.watch_until_now("/api/v1/services?watch=true&fieldSelector=metadata.name%3Db")
    assert [e["object"]["metadata"]["name"] for e in by_name] == ["b"]


@REAL_SERVER_DIFFERS
def test_watch_namespace_scope(k: Target, raw: RawClient, kubeapi: KubeAPIServer) -> None:
    kubeapi.ensure_namespace("other")
    rv = k.rv()
    k.create({**svc("a"), "metadata": {"name": "a", "namespace": "other"}})
    k.create(svc("b"))
    events = k.watch_until_now(f"{k.SVC}?watch=true&resourceVersion={rv}")
    assert [e["object"]["metadata"]["name"] for e in events] == ["b"]
    events = k.watch_until_now(f"/api/v1/services?watch=true&resourceVersion={rv}")
    assert [e["object"]["metadata"]["name"] for e in events] == ["a", "b"]


# ---------------------------------------------------------------------------------------------- errors / misc
def test_method_not_allowed(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", f"{k.SVC}/web", svc("web"))
    assert r.status == 405 and r.json["reason"] == "MethodNotAllowed"
    r = raw.request("PUT", k.SVC, svc("web"))
    assert r.status == 405


@TEST_SERVER_ONLY
def test_requests_log(k: Target, raw: RawClient, kubeapi: KubeAPIServer) -> None:
    kubeapi.clear_requests()
    raw.get(f"{k.SVC}?limit=5&labelSelector=a%3Db")
    raw.get(f"{k.SVC}/nope")
    assert kubeapi.requests == [("GET", k.SVC, {"limit": "5", "labelSelector": "a=b"}, 200),
                                ("GET", f"{k.SVC}/nope", {}, 404)]
    assert kubeapi.request_count("GET") == 2 and kubeapi.request_count(status=404) == 1
    assert kubeapi.request_count(path_contains="/services", limit="5") == 1
    assert kubeapi.request_count("POST") == 0
    kubeapi.clear_requests()
    assert kubeapi.requests == []


# ---------------------------------------------------------------------------------------------- validation
def test_label_and_annotation_validation(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", k.SVC, svc("web", labels={"app": "bad value"}))
    assert r.status == 422
    cause = r.json["details"]["causes"][0]
    assert cause["field"] == "metadata.labels" and cause["message"].startswith('Invalid value: "bad value": ')
    r = raw.request("POST", k.SVC, {**svc("web"), "metadata": {"name": "web", "annotations": {"-bad": "x"}}})
    assert r.status == 422 and r.json["details"]["causes"][0]["field"] == "metadata.annotations"
    r = raw.request("POST", k.SVC, {**svc("web"), "metadata": {"name": "web", "labels": {"n": 1}}})
    assert r.status == 400
    ok = {"external-dns.alpha.kubernetes.io/hostname": "a.example.org,b.example.org"}
    assert raw.request("POST", k.SVC, {**svc("web"), "metadata": {"name": "web", "annotations": ok}}).status == 201


def test_service_spec_validation(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", k.SVC, {"metadata": {"name": "web"}, "spec": {}})
    assert r.status == 422
    assert r.json["message"] == 'Service "web" is invalid: spec.ports: Required value'
    r = raw.request("POST", k.SVC, svc("web", ports=[{"port": 70000}]))
    assert r.json["message"] == ('Service "web" is invalid: [spec.ports[0].port: Invalid value: 70000: must be '
                                 'between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: '
                                 'must be between 1 and 65535, inclusive]')  # targetPort defaulted from port
    r = raw.request("POST", k.SVC, svc("web", ports=[{"port": 80}, {"port": 443}]))
    assert r.status == 422 and [c["field"] for c in r.json["details"]["causes"]] == ["spec.ports[0].name",
                                                                                    "spec.ports[1].name"]
    r = raw.request("POST", k.SVC, svc("web", type="Weird"))
    assert r.status == 422 and r.json["details"]["causes"][0]["reason"] == "FieldValueNotSupported"
    assert raw.request("POST", k.SVC, {"metadata": {"name": "hl"}, "spec": {"clusterIP": "None"}}).status == 201
    ext = raw.request("POST", k.SVC, {"metadata": {"name": "ext"},
                                    "spec": {"type": "ExternalName", "externalName": "db.example.org"}})
    assert ext.status == 201 and "clusterIP" not in ext.json["spec"]


def test_dnsendpoint_schema_types_and_pruning(k: Target, raw: RawClient) -> None:
    body = dnsep("a")
    body["spec"]["endpoints"][0]["unknownField"] = "dropped"
    body["spec"]["extra"] = 1
    body["topLevel"] = True
    created = raw.request("POST", k.DNSEP, body)
    assert created.status == 201
    assert "unknownField" not in created.json["spec"]["endpoints"][0]
    assert "extra" not in created.json["spec"] and "topLevel" not in created.json
    bad = dnsep("b")
    bad["spec"]["endpoints"][0]["recordTTL"] = "300"
    bad["spec"]["endpoints"][0]["targets"] = "1.2.3.4"
    r = raw.request("POST", k.DNSEP, bad)
    assert r.status == 422
    # the real server lists schema errors in no fixed order
    assert sorted(r.json["details"]["causes"], key=lambda c: c["field"]) == [
        {"reason": "FieldValueTypeInvalid", "field": "spec.endpoints[0].recordTTL",
         "message": 'Invalid value: "string": spec.endpoints[0].recordTTL in body must be of type integer: "string"'},
        {"reason": "FieldValueTypeInvalid", "field": "spec.endpoints[0].targets",
         "message": 'Invalid value: "string": spec.endpoints[0].targets in body must be of type array: "string"'}]
    assert r.json["message"].startswith('DNSEndpoint.externaldns.k8s.io "b" is invalid: [spec.endpoints[0].')
    r = raw.request("PATCH", f"{k.DNSEP}/a/status", {"status": {"observedGeneration": "one"}},
                    "application/merge-patch+json")
    assert r.status == 422


def test_create_through_all_namespaces_path_not_allowed(raw: RawClient) -> None:
    r = raw.request("POST", "/api/v1/services", svc("web"))
    assert r.status == 405
    assert r.json == status(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                     "resource", {})
    assert raw.request("POST", "/api/v1/nodes", {"metadata": {"name": "n1"}}).status == 201


@REAL_SERVER_DIFFERS
def test_required_fields_per_kind(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", k.nspath("pods"), {"metadata": {"name": "p"}, "spec": {}})
    assert r.status == 422 and r.json["message"] == 'Pod "p" is invalid: spec.containers: Required value'
    r = raw.request("POST", k.gpath("discovery.k8s.io/v1", "endpointslices"),
                    {"metadata": {"name": "s"}, "addressType": "IPv5", "endpoints": [{"addresses": []}]})
    assert r.status == 422
    assert [c["field"] for c in r.json["details"]["causes"]] == ["addressType", "endpoints[0].addresses"]
    assert r.json["message"].startswith('EndpointSlice.discovery.k8s.io "s" is invalid: [addressType: Unsupported')
    r = raw.request("POST", k.gpath("events.k8s.io/v1", "events"),
                    {"metadata": {"name": "e"}, "eventTime": "2026-11-23T10:00:00.000000Z", "type": "Info"})
    assert r.status == 422
    assert [c["field"] for c in r.json["details"]["causes"]] == ["reportingController", "reportingInstance",
                                                                 "action", "reason", "type"]
    r = raw.request("POST", k.nspath("events"),
                    {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "x", "namespace": "kube"}})
    assert r.status == 422
    assert r.json["details"]["causes"][0] == {"reason": "FieldValueInvalid", "field": "involvedObject.namespace",
                                              "message": 'Invalid value: "kube": does not match event.namespace'}


def test_update_with_other_uid_conflicts(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.SVC, svc("web")).json
    raw.request("DELETE", f"{k.SVC}/web")
    raw.request("POST", k.SVC, svc("web"))
    del obj["metadata"]["resourceVersion"]
    r = raw.request("PUT", f"{k.SVC}/web", obj)
    assert r.status == 409
    assert r.json["message"].startswith(f'Operation cannot be fulfilled on services "web": StorageError: invalid '
                                        f'object, Code: 4, Key: /registry/services/specs/{k.ns}/web, ResourceVersion: '
                                        f'0, AdditionalErrorMsg: Precondition failed: UID in precondition: '
                                        f'{obj["metadata"]["uid"]}, UID in object meta: ')


def test_paging_survives_many_writes_between_pages(k: Target, raw: RawClient) -> None:
    for i in range(30):
        k.create(svc(f"s{i:02d}"))
    page = raw.get(f"{k.SVC}?limit=10").json
    names = [i["metadata"]["name"] for i in page["items"]]
    while page["metadata"].get("continue"):
        for i in range(5):  # churn: new objects and deletes of not-yet-listed ones
            k.create(svc(f"n{len(names)}-{i}"))
        victim = f"s{len(names) + 5:02d}"
        if k.get("v1", "Service", k.ns, victim) is not None:
            k.delete("v1", "Service", k.ns, victim)
        page = raw.get(f"{k.SVC}?limit=10&continue={page['metadata']['continue']}").json
        names += [i["metadata"]["name"] for i in page["items"]]
    assert names == [f"s{i:02d}" for i in range(30)]


@REAL_SERVER_DIFFERS
def test_strategic_merge_patch_is_path_aware(k: Target, raw: RawClient) -> None:
    pods = k.nspath("pods")
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "a", "image": "img:1", "ports": [{"containerPort": 80}]}, {"name": "b", "image": "img:1"}]}}
    assert raw.request("POST", pods, pod).status == 201
    smp = "application/strategic-merge-patch+json"
    r = raw.request("PATCH", f"{pods}/p", {"spec": {"containers": [
        {"name": "a", "image": "img:2", "ports": [{"containerPort": 443}]}]}}, smp)
    assert r.status == 200
    containers = r.json["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("a", "img:2"), ("b", "img:1")]
    assert containers[0]["ports"] == [{"containerPort": 80}, {"containerPort": 443}]
    # atomic lists are replaced: EndpointSlice endpoints, Service status.loadBalancer.ingress
    slices = k.gpath("discovery.k8s.io/v1", "endpointslices")
    raw.request("POST", slices, {"metadata": {"name": "s"}, "addressType": "IPv4",
                                 "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2"]}]})
    r = raw.request("PATCH", f"{slices}/s", {"endpoints": [{"addresses": ["10.0.0.3"]}]}, smp)
    assert r.json["endpoints"] == [{"addresses": ["10.0.0.3"]}]


def test_dry_run_changes_nothing(k: Target, raw: RawClient) -> None:
    rv = k.rv()
    r = raw.request("POST", f"{k.SVC}?dryRun=All", svc("web"))
    assert r.status == 201 and r.json["metadata"]["name"] == "web" and r.json["metadata"]["uid"]
    assert raw.get(f"{k.SVC}/web").status == 404 and k.rv() == rv
    created = raw.request("POST", k.SVC, svc("web")).json
    r = raw.request("PATCH", f"{k.SVC}/web?dryRun=All", {"metadata": {"labels": {"a": "b"}}},
                    "application/merge-patch+json")
    assert r.status == 200 and r.json["metadata"]["labels"] == {"a": "b"}
    assert raw.get(f"{k.SVC}/web").json == created
    assert raw.request("DELETE", f"{k.SVC}/web?dryRun=All").status == 200
    assert raw.get(f"{k.SVC}/web").json == created
    r = raw.request("POST", f"{k.SVC}?dryRun=Some", svc("other"))
    assert r.status == 422
    assert r.json["message"] == ('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
                                 '["Some"]: supported values: "All"')




def dnsrec(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "kuadrant.io/v1alpha1", "kind": "DNSRecord", "metadata": {"name": name},
            "spec": {"rootHost": "app.example.org", "endpoints": [
                {"dnsName": "app.example.org", "recordType": "A", "targets": ["1.2.3.4"], "recordTTL": 60}],
                **spec}}


def test_dnsrecord_schema_and_immutable_fields(k: Target, raw: RawClient) -> None:
    r = raw.request("POST", k.DNSREC, {"apiVersion": "kuadrant.io/v1alpha1", "kind": "DNSRecord",
                                       "metadata": {"name": "x"}, "spec": {"endpoints": []}})
    assert r.status == 422
    assert r.json["message"] == ('DNSRecord.kuadrant.io "x" is invalid: [spec.rootHost: Required value, <nil>: Invalid '
                                 'value: null: some validation rules were not checked because the object was '
                                 'invalid; correct the existing errors to complete validation]')
    r = raw.request("POST", k.DNSREC, dnsrec("x", ownerID="abc"))
    assert r.status == 422
    assert r.json["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.ownerID",
                                            "message": 'Invalid value: "abc": spec.ownerID in body should be at '
                                                       'least 6 chars long'}]
    created = raw.request("POST", k.DNSREC, dnsrec("rec", ownerID="owner-1", bogus=True))
    assert created.status == 201 and "bogus" not in created.json["spec"]
    obj = created.json
    obj["spec"]["rootHost"] = "other.example.org"
    r = raw.request("PUT", f"{k.DNSREC}/rec", obj)
    assert r.status == 422
    assert r.json["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.rootHost",
                                            "message": 'Invalid value: "other.example.org": RootHost is immutable'}]
    r = raw.request("PATCH", f"{k.DNSREC}/rec", {"spec": {"ownerID": None}}, "application/merge-patch+json")
    assert r.status == 422 and "OwnerID is immutable" in r.json["message"]
    # status is kept (the chart's CRD checks conditions; the test server's schema does not); spec changes bump
    # generation
    st = raw.request("PATCH", f"{k.DNSREC}/rec/status", {"status": {"writeCounter": 2, "ownerID": "owner-1",
                                                                   "conditions": [{
        "type": "Ready", "status": "True", "reason": "ProviderSuccess", "message": "",
        "lastTransitionTime": "2026-11-23T10:00:00Z"}]}},
                     "application/merge-patch+json").json
    assert st["status"]["writeCounter"] == 2 and st["metadata"]["generation"] == 1
    r = raw.request("PATCH", f"{k.DNSREC}/rec", {"spec": {"endpoints": []}}, "application/merge-patch+json")
    assert r.status == 200 and r.json["metadata"]["generation"] == 2


def test_load_balancer_status_and_ingress_host_validation(k: Target, raw: RawClient) -> None:
    raw.request("POST", k.SVC, svc("lb", type="LoadBalancer"))
    r = raw.request("PATCH", f"{k.SVC}/lb/status", {"status": {"loadBalancer": {"ingress": [
        {"ip": "not-an-ip"}, {"hostname": "10.0.0.1"}, {"hostname": "Bad_Host"}]}}}, "application/merge-patch+json")
    assert r.status == 422
    assert [c["field"] for c in r.json["details"]["causes"]] == [
        "status.loadBalancer.ingress[0].ip", "status.loadBalancer.ingress[1].hostname",
        "status.loadBalancer.ingress[2].hostname"]
    assert r.json["details"]["causes"][1]["message"] == ('Invalid value: "10.0.0.1": must be a DNS name, not an IP '
                                                         'address')
    ok = raw.request("PATCH", f"{k.SVC}/lb/status", {"status": {"loadBalancer": {"ingress": [
        {"ip": "2001:db8::1"}, {"hostname": "lb-1.elb.example.com"}]}}}, "application/merge-patch+json")
    assert ok.status == 200
    ing = {"metadata": {"name": "ing"}, "spec": {"rules": [{"host": "*.example.org"}, {"host": "1.2.3.4"}],
                                                 "tls": [{"hosts": ["UPPER.example.org"]}]}}
    r = raw.request("POST", k.INGRESSES, ing)
    assert r.status == 422
    assert [c["field"] for c in r.json["details"]["causes"]] == ["spec.rules[1].host", "spec.tls[0].hosts[0]"]
    assert r.json["message"].startswith('Ingress.networking.k8s.io "ing" is invalid: [spec.rules[1].host: ')


def test_endpoints_warning_on_every_verb(k: Target, raw: RawClient) -> None:
    path = k.nspath("endpoints")
    warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'
    r = raw.request("POST", path, {"metadata": {"name": "e"}, "subsets": []})
    assert r.status == 201 and r.headers["warning"] == warning
    assert raw.get(f"{path}/e").headers["warning"] == warning
    with raw.watch(f"{path}?watch=true&timeoutSeconds=1") as w:
        assert w.headers["warning"] == warning
    assert "warning" not in raw.get(k.SVC).headers


@REAL_SERVER_DIFFERS
def test_paging_within_a_namespace_ends_exactly(k: Target, raw: RawClient, kubeapi: KubeAPIServer) -> None:
    kubeapi.ensure_namespace("zzz")
    k.create(svc("a"))
    k.create(svc("b"))
    k.create({**svc("c"), "metadata": {"name": "c", "namespace": "zzz"}})
    page = raw.get(f"{k.SVC}?limit=2").json
    assert [i["metadata"]["name"] for i in page["items"]] == ["a", "b"]
    assert page["metadata"] == {"resourceVersion": str(k.rv())}
    page = raw.get("/api/v1/services?limit=2").json
    assert page["metadata"]["remainingItemCount"] == 1 and page["metadata"]["continue"]


def test_pruned_fields_do_not_bump_generation_or_rv(k: Target, raw: RawClient) -> None:
    obj = raw.request("POST", k.DNSEP, dnsep("a")).json
    obj["spec"]["unknown"] = {"x": 1}
    same = raw.request("PUT", f"{k.DNSEP}/a", obj).json
    assert same["metadata"]["generation"] == 1
    assert same["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]
    assert "unknown" not in same["spec"]


def test_secrets_fold_string_data_and_check_base64(k: Target, raw: RawClient) -> None:
    path = k.nspath("secrets")
    r = raw.request("POST", path, {"metadata": {"name": "creds"}, "data": {"a": "eA=="},
                                   "stringData": {"token": "s3cret"}})
    assert r.status == 201
    assert r.json["type"] == "Opaque" and "stringData" not in r.json
    assert r.json["data"] == {"a": "eA==", "token": "czNjcmV0"}
    r = raw.request("POST", path, {"metadata": {"name": "bad"}, "data": {"a": "not base64!"}})
    assert r.status == 400 and "illegal base64 data" in r.json["message"]
    assert raw.request("POST", k.nspath("configmaps"),
                       {"metadata": {"name": "cm"}, "data": {"k": "v"}}).status == 201


def test_event_series_last_observed_time_is_micro_time(k: Target, raw: RawClient) -> None:
    path = k.gpath("events.k8s.io/v1", "events")
    body: dict[str, Any] = {"metadata": {"name": "e1"}, "eventTime": "2026-11-23T10:00:00.000000Z", "reason": "Synced",
            "regarding": {"kind": "Service", "apiVersion": "v1", "namespace": k.ns, "name": "web"},
            "action": "Sync", "reportingController": "external-dns", "reportingInstance": "x", "type": "Normal",
            "series": {"count": 2, "lastObservedTime": "2026-11-23T10:00:05Z"}}
    r = raw.request("POST", path, body)
    assert r.status == 400 and 'parsing time "2026-11-23T10:00:05Z"' in r.json["message"]
    body["series"]["lastObservedTime"] = "2026-11-23T10:00:05.000000Z"
    assert raw.request("POST", path, body).status == 201
