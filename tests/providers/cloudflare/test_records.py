"""Cloudflare records <-> endpoints (providers/cloudflare/records.py), as external-dns's cloudflare provider reads and
writes them: one record per value grouped into one endpoint per type, MX and SRV from their fields, one record body
per target (automatic TTL, proxying, comments cut to the plan's limit, tags), bodies that need no request."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.cloudflare.config import CloudflareConfig
from external_dns.providers.cloudflare.records import (
    InvalidRecordError,
    body_matches,
    endpoints_at,
    parse_tags,
    read_back_target,
    record_body,
    record_target,
    should_be_proxied,
)
from tests.helpers.endpoints import ep

CFG = CloudflareConfig()
P = "external-dns.kubernetes.io/cloudflare-"


def props(e: Endpoint) -> dict[str, str]:
    return {p.name.removeprefix(P): p.value for p in e.provider_specific}


def test_records_of_one_name_group_into_one_endpoint_per_type() -> None:
    records: list[dict[str, Any]] = [
        {"name": "www.example.org", "type": "A", "content": "10.0.0.2", "ttl": 300, "proxied": True,
         "comment": "c", "tags": ["b:2", "a:1"]},
        {"name": "www.example.org", "type": "A", "content": "10.0.0.1", "ttl": 120},
        {"name": "www.example.org", "type": "MX", "content": "mail.example.org", "priority": 10, "ttl": 1},
        {"name": "www.example.org", "type": "SRV", "ttl": 1,
         "data": {"priority": 1, "weight": 2, "port": 5060, "target": "sip.example.org"}},
        {"name": "www.example.org", "type": "SOA", "content": "ignored"},
    ]
    eps = endpoints_at(records, CFG)
    assert [(e.record_type, list(e.targets), e.record_ttl) for e in eps] == [
        ("A", ["10.0.0.1", "10.0.0.2"], 120),  # the first record after sorting by value gives TTL and properties
        ("MX", ["10 mail.example.org"], 1),
        ("SRV", ["1 2 5060 sip.example.org."], 1),
    ]
    assert props(eps[0]) == {"proxied": "false"}
    assert props(endpoints_at(records[:1], CFG)[0]) == {"proxied": "true", "record-comment": "c", "tags": "a:1,b:2"}


def test_regional_hostnames_are_read_as_a_property() -> None:
    regional = CloudflareConfig(region_key="eu")
    records = [{"name": "www.example.org", "type": "A", "content": "10.0.0.1"},
               {"name": "www.example.org", "type": "_regional_hostname", "region_key": "us"}]
    assert props(endpoints_at(records, regional)[0])["region-key"] == "us"
    assert props(endpoints_at(records[:1], regional)[0])["region-key"] == ""  # none at the name: "" as Go


@pytest.mark.parametrize(("rtype", "target", "back"), [
    ("CNAME", "lb.example.net.", "lb.example.net"), ("MX", "10 mail.example.org.", "10 mail.example.org"),
    ("SRV", "1 2 5060 sip.example.org", "1 2 5060 sip.example.org."), ("A", "10.0.0.1", "10.0.0.1"),
])
def test_read_back_target_matches_what_is_read(rtype: str, target: str, back: str) -> None:
    assert read_back_target(rtype, target) == back


def test_record_target_of_odd_records() -> None:
    assert record_target({"type": "MX", "content": "m.example.org"}) == "0 m.example.org"
    assert record_target({"type": "SRV", "content": "raw", "data": {}}) == "raw"  # no data target: the content
    assert record_target({"type": "SRV", "data": {"target": "."}}) == "0 0 0 ."


def test_proxied_by_flag_overridden_by_the_property_never_for_other_types() -> None:
    on = CloudflareConfig(proxied_by_default=True)
    assert should_be_proxied(ep("a.example.org", "A", "10.0.0.1"), on)
    assert not should_be_proxied(ep("a.example.org", "A", "10.0.0.1", provider_specific=[(P + "proxied", "F")]), on)
    assert should_be_proxied(ep("a.example.org", "CNAME", "x.org", provider_specific=[(P + "proxied", "1")]), CFG)
    assert not should_be_proxied(ep("a.example.org", "TXT", "t", provider_specific=[(P + "proxied", "true")]), CFG)
    assert should_be_proxied(ep("a.example.org", "A", "1.1.1.1", provider_specific=[(P + "proxied", "maybe")]), on)


def test_record_bodies() -> None:
    mx = record_body(ep("Www.example.org.", "MX", "10 mail.example.org.", ttl=300), "10 mail.example.org.", CFG, False)
    assert mx == {"name": "www.example.org", "type": "MX", "ttl": 300, "proxied": False, "priority": 10,
                  "content": "mail.example.org"}
    srv = record_body(ep("s.example.org", "SRV"), "1 2 5060 sip.example.org.", CFG, False)
    assert srv["data"] == {"priority": 1, "weight": 2, "port": 5060, "target": "sip.example.org"} and srv["ttl"] == 1
    proxied = ep("p.example.org", "A", "10.0.0.1", ttl=300, provider_specific=[(P + "proxied", "true"),
                                                                                (P + "tags", " z , a ")])
    body = record_body(proxied, "10.0.0.1", CloudflareConfig(comment="x" * 600), paid_zone=False)
    assert body["ttl"] == 1 and body["proxied"] and body["tags"] == ["a", "z"]  # proxied: always automatic
    assert len(body["comment"]) == 100
    assert len(record_body(proxied, "10.0.0.1", CloudflareConfig(comment="x" * 600), paid_zone=True)["comment"]) == 500


@pytest.mark.parametrize(("e", "target", "message"), [
    (ep("a.example.org", "A", ttl=30), "10.0.0.1", "TTL 30 is not accepted by Cloudflare"),
    (ep("a.example.org", "MX"), "mail.example.org", "MX target 'mail.example.org' must be '<priority> <host>'"),
    (ep("a.example.org", "MX"), "70000 mail.example.org", "MX target '70000 mail.example.org' must be"),
    (ep("a.example.org", "SRV"), "1 2 sip.example.org",
     "SRV target '1 2 sip.example.org' must be '<priority> <weight> <port> <target>'"),
])
def test_what_cloudflare_refuses_is_named(e: Endpoint, target: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=f"record a.example.org {e.record_type}: {message}"):
        record_body(e, target, CFG, False)


def test_body_matches_only_an_identical_record() -> None:
    body = record_body(ep("a.example.org", "A", "10.0.0.1", ttl=300, provider_specific=[(P + "tags", "b,a")]),
                       "10.0.0.1", CFG, False)
    stored = {"ttl": 300, "proxied": False, "tags": ["b", "a"]}
    assert body_matches(stored, body)
    assert not body_matches({**stored, "ttl": 120}, body)
    assert not body_matches({**stored, "proxied": True}, body)
    assert not body_matches({**stored, "comment": "hand-written"}, body)
    assert not body_matches({**stored, "tags": ["a"]}, body)


def test_parse_tags() -> None:
    assert parse_tags(" env:prod, team:dns ,,") == ["env:prod", "team:dns"]
