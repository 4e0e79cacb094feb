"""The webhook server answered with raw HTTP requests taken from the external-dns webhook protocol."""

from __future__ import annotations

import json

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.webhook.protocol import MEDIA_TYPE
from external_dns.providers.webhook.server import WebhookServer
from tests.providers.webhook.conftest import DictProvider, raw

CT = {"Content-Type": MEDIA_TYPE}


def test_negotiation_returns_domain_filter_with_exact_media_type(webhook_server: WebhookServer) -> None:
    status, ctype, body = raw(webhook_server.port, "GET", "/", headers={"Accept": MEDIA_TYPE})
    assert status == 200
    assert ctype == MEDIA_TYPE
    assert json.loads(body) == {"include": ["example.com"]}


def test_get_and_post_records(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    body = json.dumps({"create": [
        {"dnsName": "app.example.com", "targets": ["1.2.3.4"], "recordType": "A",
         "labels": {"owner": "default", "resource": "service/default/nginx"}},
        {"dnsName": "a-app.example.com", "targets": ['"heritage=external-dns,external-dns/owner=default"'],
         "recordType": "TXT", "labels": {"ownedRecord": "app.example.com"}},
    ]}).encode()
    status, _, resp = raw(webhook_server.port, "POST", "/records", body, CT)
    assert status == 204 and resp == b""
    assert set(dict_provider.store) == {("app.example.com", "A", ""), ("a-app.example.com", "TXT", "")}

    status, ctype, resp = raw(webhook_server.port, "GET", "/records", headers={"Accept": MEDIA_TYPE})
    assert status == 200 and ctype == MEDIA_TYPE
    got = {(e["dnsName"], e["recordType"]): e for e in json.loads(resp)}
    assert got[("app.example.com", "A")]["targets"] == ["1.2.3.4"]
    assert got[("a-app.example.com", "TXT")]["labels"] == {"ownedRecord": "app.example.com"}

    update = json.dumps({"updateOld": [got[("app.example.com", "A")]],
                         "updateNew": [{"dnsName": "app.example.com", "targets": ["5.6.7.8"], "recordType": "A"}],
                         "delete": [got[("a-app.example.com", "TXT")]]}).encode()
    assert raw(webhook_server.port, "POST", "/records", update, CT)[0] == 204
    assert list(dict_provider.store) == [("app.example.com", "A", "")]
    assert dict_provider.store[("app.example.com", "A", "")].targets == ["5.6.7.8"]


def test_changes_keys_are_case_insensitive(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    body = json.dumps({"Create": [{"DNSName": "mixed.example.com", "Targets": ["1.1.1.1"], "RecordType": "A",
                                   "RecordTTL": 60}]}).encode()
    assert raw(webhook_server.port, "POST", "/records", body, CT)[0] == 204
    assert dict_provider.store[("mixed.example.com", "A", "")].record_ttl == 60


def test_bad_json_and_bad_fields_are_400_and_change_nothing(webhook_server: WebhookServer,
                                                            dict_provider: DictProvider) -> None:
    status, _, body = raw(webhook_server.port, "POST", "/records", b"{not json", CT)
    assert status == 400 and b"invalid JSON" in body
    status, _, body = raw(webhook_server.port, "POST", "/records",
                          json.dumps({"create": [{"dnsName": "x.example.com", "recordTTL": "sixty"}]}).encode(), CT)
    assert status == 400 and b"recordTTL" in body
    status, _, body = raw(webhook_server.port, "POST", "/records",
                          json.dumps({"updateOld": [{"dnsName": "x.example.com"}]}).encode(), CT)
    assert status == 400 and b"pairs" in body
    status, _, body = raw(webhook_server.port, "POST", "/adjustendpoints", b'{"a": 1}', CT)
    assert status == 400 and b"array" in body
    assert dict_provider.applied == []


def test_wrong_content_type_is_415(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    body = json.dumps({"create": [{"dnsName": "x.example.com", "targets": ["1.1.1.1"], "recordType": "A"}]})
    status, _, resp = raw(webhook_server.port, "POST", "/records", body.encode(), {"Content-Type": "text/plain"})
    assert status == 415 and MEDIA_TYPE.encode() in resp
    assert dict_provider.applied == []
    # plain JSON is accepted too
    assert raw(webhook_server.port, "POST", "/records", body.encode(), {"Content-Type": "application/json"})[0] == 204


def test_body_over_the_cap_is_413(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    eps = [{"dnsName": f"n{i}.example.com", "targets": ["1.1.1.1"], "recordType": "A"} for i in range(200)]
    body = json.dumps({"create": eps}).encode()
    assert len(body) > 4096
    status, _, resp = raw(webhook_server.port, "POST", "/records", body, CT)
    assert status == 413 and b"4096" in resp
    assert dict_provider.applied == []
    # the server still serves afterwards
    assert raw(webhook_server.port, "GET", "/records")[0] == 200


def test_adjust_endpoints(webhook_server: WebhookServer) -> None:
    body = json.dumps([{"dnsName": "a.example.com", "targets": ["1.2.3.4"], "recordType": "A"}]).encode()
    status, ctype, resp = raw(webhook_server.port, "POST", "/adjustendpoints", body,
                              {"Content-Type": MEDIA_TYPE, "Accept": MEDIA_TYPE})
    assert status == 200 and ctype == MEDIA_TYPE
    assert json.loads(resp) == [{"dnsName": "a.example.com", "targets": ["1.2.3.4"], "recordType": "A",
                                 "recordTTL": 300}]


def test_wrong_methods_are_400_and_unknown_paths_404(webhook_server: WebhookServer) -> None:
    assert raw(webhook_server.port, "GET", "/adjustendpoints")[0] == 400
    assert raw(webhook_server.port, "PUT", "/records", b"[]", CT)[0] == 400
    assert raw(webhook_server.port, "DELETE", "/records")[0] == 400
    assert raw(webhook_server.port, "GET", "/nope")[0] == 404


def test_provider_errors_are_500(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    dict_provider.fail = True
    status, _, body = raw(webhook_server.port, "GET", "/records")
    assert status == 500 and b"backend down" in body
    status, _, body = raw(webhook_server.port, "POST", "/records",
                          json.dumps({"create": [Endpoint("a.example.com", "A", Targets(["1.1.1.1"])).to_json()]}).encode(), CT)
    assert status == 500 and b"refused" in body


def test_healthz_and_metrics_on_both_listeners(webhook_server: WebhookServer) -> None:
    for port in (webhook_server.port, webhook_server.health_port):
        status, _, body = raw(port, "GET", "/healthz")
        assert status == 200 and body == b"ok\n"
    raw(webhook_server.port, "GET", "/records")
    status, ctype, body = raw(webhook_server.health_port, "GET", "/metrics")
    assert status == 200 and ctype.startswith("text/plain")
    assert b'external_dns_webhook_server_requests_total{code="200",method="GET",path="/records"}' in body
    # the health listener does not expose the provider
    assert raw(webhook_server.health_port, "GET", "/records")[0] == 404
