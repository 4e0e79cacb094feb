"""Unit tests of the rrset <-> endpoint conversions (records.py): canonical names, TXT quoting, every type's
content form, the read-back form and that a desired endpoint after `canonical_target` equals its read-back."""

from __future__ import annotations

import pytest

from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.providers.pdns.records import (
    InvalidRecordError,
    canonical_name,
    canonical_target,
    content_for,
    endpoint_from_rrset,
    quote_txt,
    read_target,
    rrset_delete,
    rrset_replace,
)
from tests.helpers.endpoints import ep


@pytest.mark.parametrize(("value", "quoted"), [
    ("hello", '"hello"'),
    ('"already"', '"already"'),
    ('"a" "b"', '"a" "b"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("back\\slash", '"back\\\\slash"'),
    ('"open', '"\\"open"'),
    ('"a" b', '"\\"a\\" b"'),
    ("", '""'),
])
def test_txt_quoting(value: str, quoted: str) -> None:
    assert quote_txt(value) == quoted


@pytest.mark.parametrize(("rtype", "target", "content"), [
    ("A", "10.0.0.1", "10.0.0.1"),
    ("AAAA", "2001:0db8:0000::0001", "2001:db8::1"),
    ("CNAME", "target.example.net", "target.example.net."),
    ("CNAME", "target.example.net.", "target.example.net."),
    ("NS", "ns1.example.net", "ns1.example.net."),
    ("PTR", "host.example.org", "host.example.org."),
    ("MX", "10 mail.example.org", "10 mail.example.org."),
    ("SRV", "0 5 5060 sip.example.org", "0 5 5060 sip.example.org."),
    ("CAA", '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'),
    ("TXT", "v=spf1 -all", '"v=spf1 -all"'),
])
def test_content_for(rtype: str, target: str, content: str) -> None:
    assert content_for(rtype, target) == content


@pytest.mark.parametrize(("rtype", "target"), [
    ("A", "not-an-ip"), ("A", "2001:db8::1"), ("AAAA", "10.0.0.1"), ("MX", "mail.example.org"),
    ("SRV", "5060 sip.example.org"), ("CNAME", "two words"),
])
def test_malformed_targets_are_refused(rtype: str, target: str) -> None:
    with pytest.raises(InvalidRecordError):
        content_for(rtype, target)


def test_read_back_form_keeps_dots_only_for_srv_txt() -> None:
    assert read_target("CNAME", "x.example.org.") == "x.example.org"
    assert read_target("MX", "10 Mail.example.org.") == "10 Mail.example.org"
    assert read_target("SRV", "0 5 5060 sip.example.org.") == "0 5 5060 sip.example.org."
    assert read_target("TXT", '"a."') == '"a."'


@pytest.mark.parametrize(("rtype", "desired", "stored"), [
    ("CNAME", "target.example.net.", "target.example.net."),
    ("MX", "10 mail.example.org.", "10 mail.example.org."),
    ("SRV", "0 5 5060 sip.example.org", "0 5 5060 sip.example.org."),
    ("TXT", "plain text", '"plain text"'),
    ("AAAA", "2001:0db8::0001", "2001:db8::1"),
])
def test_canonical_target_equals_read_back(rtype: str, desired: str, stored: str) -> None:
    assert canonical_target(rtype, desired) == read_target(rtype, stored)


def test_canonical_name() -> None:
    assert canonical_name("WWW.Example.org") == "www.example.org."
    assert canonical_name("www.example.org.") == "www.example.org."


def test_rrset_replace_and_delete() -> None:
    rr = rrset_replace(ep("Web.Example.org", "A", "10.0.0.2", "10.0.0.1"))
    assert rr == {"name": "web.example.org.", "type": "A", "ttl": 300, "changetype": "REPLACE",
                  "records": [{"content": "10.0.0.1", "disabled": False}, {"content": "10.0.0.2", "disabled": False}]}
    assert rrset_replace(ep("web.example.org", "A", "10.0.0.1", ttl=60))["ttl"] == 60
    assert rrset_delete(ep("web.example.org", "A", "10.0.0.1")) == {
        "name": "web.example.org.", "type": "A", "changetype": "DELETE"}


@pytest.mark.parametrize(("endpoint", "reason"), [
    (ep("x.example.org", "HINFO", "a b"), "not supported"),
    (ep("x.example.org", "A"), "no targets"),
    (ep("x.example.org", "A", "10.0.0.1", ttl=2**31), "out of range"),
    (ep("x.example.org", "CNAME", "a.example.org", "b.example.org"), "exactly one"),
])
def test_rrset_replace_refuses(endpoint: Endpoint, reason: str) -> None:
    with pytest.raises(InvalidRecordError, match=reason):
        rrset_replace(endpoint)


def test_alias_round_trip() -> None:
    alias = ep("apex.example.org", "CNAME", "lb.example.net")
    alias.provider_specific.append(ProviderSpecificProperty("alias", "true"))
    rr = rrset_replace(alias)
    assert rr["type"] == "ALIAS" and rr["records"][0]["content"] == "lb.example.net."
    back = endpoint_from_rrset({"name": "apex.example.org.", "type": "ALIAS", "ttl": 300,
                                "records": [{"content": "lb.example.net.", "disabled": False}]})
    assert back == ep("apex.example.org", "CNAME", "lb.example.net", ttl=300).with_provider_specific("alias", "true")


def test_endpoint_from_rrset_skips_soa_and_disabled() -> None:
    assert endpoint_from_rrset({"name": "example.org.", "type": "SOA", "ttl": 3600,
                                "records": [{"content": "ns1. h. 1 2 3 4 5", "disabled": False}]}) is None
    assert endpoint_from_rrset({"name": "x.example.org.", "type": "A", "ttl": 60,
                                "records": [{"content": "10.0.0.1", "disabled": True}]}) is None
    got = endpoint_from_rrset({"name": "X.example.org.", "type": "A", "ttl": 60,
                               "records": [{"content": "10.0.0.2", "disabled": False},
                                           {"content": "10.0.0.1", "disabled": True},
                                           {"content": "10.0.0.3", "disabled": False}]})
    assert got == ep("x.example.org", "A", "10.0.0.2", "10.0.0.3", ttl=60)
