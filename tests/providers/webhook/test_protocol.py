"""The webhook protocol's wire format (providers/webhook/protocol.py), shared by client and server: the media type,
bodies decoded with keys in any letter case as Go's encoding/json does, and every refusal naming where it is."""

from __future__ import annotations

import json

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.webhook.protocol import (
    MEDIA_TYPE,
    changes_from_body,
    endpoints_from_body,
    endpoints_to_body,
    is_media_type,
)


@pytest.mark.parametrize(("content_type", "allow_json", "want"), [
    (MEDIA_TYPE, False, True),
    ("Application/External.DNS.Webhook+JSON; Version=1", False, True),
    ("application/external.dns.webhook+json;version=2", False, False),
    ("application/json", False, False),
    ("application/json; charset=utf-8", True, True),
    ("text/plain", True, False),
    (None, True, False),
    ("", False, False),
])
def test_is_media_type(content_type: str | None, allow_json: bool, want: bool) -> None:
    assert is_media_type(content_type, allow_json) is want


def test_endpoints_round_trip_and_keys_in_any_case() -> None:
    eps = [Endpoint("www.example.org", "A", Targets(["10.0.0.1"]), 300, labels={"owner": "a"}),
           Endpoint("lb.example.org", "CNAME", Targets(["x.example.net"]), set_identifier="eu")
           .with_provider_specific("aws/weight", "10")]
    back = endpoints_from_body(endpoints_to_body(eps))
    assert [e.to_json() for e in back] == [e.to_json() for e in eps]
    go_spelled = json.dumps([{"DNSName": "a.example.org", "RecordType": "TXT", "Targets": ["t"], "RecordTTL": 60,
                              "ProviderSpecific": [{"Name": "n", "Value": "v"}]}]).encode()
    [got] = endpoints_from_body(go_spelled)
    assert (got.dns_name, got.record_type, list(got.targets), got.record_ttl) == ("a.example.org", "TXT", ["t"], 60)
    assert [(p.name, p.value) for p in got.provider_specific] == [("n", "v")]


def test_changes_with_keys_in_any_case() -> None:
    body = json.dumps({"Create": [{"dnsname": "c.example.org", "recordtype": "A", "targets": ["10.0.0.1"]}],
                       "UPDATEOLD": [{"dnsName": "u.example.org", "recordType": "A", "targets": ["10.0.0.1"]}],
                       "updateNew": [{"dnsName": "u.example.org", "recordType": "A", "targets": ["10.0.0.2"]}],
                       "delete": None}).encode()
    changes = changes_from_body(body)
    assert [e.dns_name for e in changes.create] == ["c.example.org"]
    assert [list(e.targets) for e in changes.update_new] == [["10.0.0.2"]] and changes.delete == []


@pytest.mark.parametrize(("body", "message"), [
    (b"\xff", "invalid JSON"),
    (b"{", "invalid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "invalid JSON"),
    (b'{"dnsName": "a"}', "expected a JSON array of endpoints"),
    (b'[{"dnsName": "a", "targets": ["1"]}, {"dnsName": "b", "targets": "x"}]', "endpoint [1]: "),
])
def test_endpoint_bodies_refused_naming_where(body: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        endpoints_from_body(body)


@pytest.mark.parametrize(("body", "message"), [
    (b"[]", "expected a JSON object with create/updateOld/updateNew/delete"),
    (b'{"create": {}}', "changes field 'create' must be a list"),
    (b'{"updateOld": [{"dnsName": "u", "recordType": "A", "targets": ["1.1.1.1"]}]}',
     "updateOld has 1 endpoints but updateNew has 0; they must be pairs"),
])
def test_change_bodies_refused_naming_where(body: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        changes_from_body(body)
