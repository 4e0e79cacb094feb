"""Endpoint: construction rules, provider-specific helpers, ownership, validation, JSON round trip."""

from __future__ import annotations

import pytest
import structlog

from external_dns.endpoint import (
    Endpoint,
    ProviderSpecificProperty,
    Targets,
    endpoints_from_json,
    endpoints_to_json,
    new_endpoint,
    new_ptr_endpoint,
)


def psp(*pairs: tuple[str, str]) -> list[ProviderSpecificProperty]:
    return [ProviderSpecificProperty(n, v) for n, v in pairs]


# -- new_endpoint ---------------------------------------------------------------------------------------------


def test_new_endpoint_trims_one_trailing_dot() -> None:
    ep = new_endpoint("foo.example.com.", "CNAME", "lb.example.com.", ttl=60)
    assert ep is not None
    assert ep.dns_name == "foo.example.com"
    assert list(ep.targets) == ["lb.example.com"]
    assert ep.record_ttl == 60
    assert ep.labels == {}
    ep2 = new_endpoint("foo..", "A", "1.2.3.4")
    assert ep2 is not None and ep2.dns_name == "foo."


@pytest.mark.parametrize("rtype", ["TXT", "NAPTR", "SRV"])
def test_new_endpoint_keeps_dots_for_text_like_types(rtype: str) -> None:
    ep = new_endpoint("x.example.com", rtype, "10 5 5060 sip.example.com.")
    assert ep is not None and list(ep.targets) == ["10 5 5060 sip.example.com."]


def test_new_endpoint_rejects_long_label_with_log() -> None:
    label = "a" * 64
    with structlog.testing.capture_logs() as logs:
        assert new_endpoint(f"{label}.example.com", "A", "1.2.3.4") is None
    assert any(e["log_level"] == "error" and label in e["event"] for e in logs)
    assert new_endpoint(f"{'a' * 63}.example.com", "A", "1.2.3.4") is not None


def test_new_ptr_endpoint() -> None:
    ep = new_ptr_endpoint("1.2.3.4", 300, "web.example.com.")
    assert ep is not None
    assert (ep.dns_name, ep.record_type, list(ep.targets), ep.record_ttl) == (
        "4.3.2.1.in-addr.arpa",
        "PTR",
        ["web.example.com"],
        300,
    )
    ep6 = new_ptr_endpoint("2001:db8::1", 0, "v6.example.com")
    assert ep6 is not None and ep6.dns_name.endswith(".8.b.d.0.1.0.0.2.ip6.arpa")
    with pytest.raises(ValueError, match="not-an-ip"):
        new_ptr_endpoint("not-an-ip", 0, "x.example.com")


# -- provider-specific ------------------------------------------------------------------------------------------


def test_provider_specific_get_set_delete() -> None:
    ep = Endpoint("example.org", "A", Targets(["1.2.4.5"]), set_identifier="id")
    assert ep.get_provider_specific_property("any") is None
    ep.set_provider_specific_property("name1", "value1")
    ep.set_provider_specific_property("name2", "value2")
    ep.set_provider_specific_property("name1", "value3")
    assert ep.provider_specific == psp(("name1", "value3"), ("name2", "value2"))
    assert ep.get_provider_specific_property("name2") == "value2"
    ep.delete_provider_specific_property("name1")
    assert ep.provider_specific == psp(("name2", "value2"))
    ep.delete_provider_specific_property("missing")
    assert ep.provider_specific == psp(("name2", "value2"))
    assert str(ep) == "example.org 0 IN A id 1.2.4.5 [{name2 value2}]"


@pytest.mark.parametrize(
    ("value", "want"), [(None, (False, False)), ("true", (True, True)), ("false", (False, True)), ("yes", (False, True))]
)
def test_get_bool_provider_specific_property(value: str | None, want: tuple[bool, bool]) -> None:
    ep = Endpoint("a", "CNAME")
    if value is not None:
        ep.set_provider_specific_property("alias", value)
    assert ep.get_bool_provider_specific_property("alias") == want


@pytest.mark.parametrize(
    ("value", "want"), [(None, None), ("true", True), ("false", False), ("A", "A"), ("AAAA", "AAAA"), ("x", None)]
)
def test_get_alias_property(value: str | None, want: object) -> None:
    ep = Endpoint("a", "A")
    if value is not None:
        ep.set_provider_specific_property("alias", value)
    assert ep.get_alias_property() == want


def test_retain_provider_properties() -> None:
    props = psp(("aws/weight", "10"), ("alias", "true"), ("google/x", "1"), ("aws/evaluate-target-health", "true"))
    ep = Endpoint("a", "A", provider_specific=list(props))
    ep.retain_provider_properties("aws")
    assert [p.name for p in ep.provider_specific] == ["alias", "aws/evaluate-target-health", "aws/weight"]
    cf = Endpoint("a", "A", provider_specific=psp(("z/x", "1"), ("external-dns.kubernetes.io/cloudflare-proxied", "t")))
    cf.retain_provider_properties("cloudflare")
    assert [p.name for p in cf.provider_specific] == ["external-dns.kubernetes.io/cloudflare-proxied", "z/x"]
    none = Endpoint("a", "A", provider_specific=psp(("b/x", "1"), ("a/x", "1")))
    none.retain_provider_properties("")
    assert [p.name for p in none.provider_specific] == ["a/x", "b/x"]


# -- ownership, TTL ---------------------------------------------------------------------------------------------


def test_ownership_helpers() -> None:
    ep = Endpoint("www.example.com", "A", set_identifier="set-1")
    assert not ep.is_owned_by("foo")
    assert not ep.is_owned_by("")  # label must exist
    assert ep.get_owner() == "set-1"
    ep.labels["owner"] = "bar"
    assert not ep.is_owned_by("foo")
    ep.labels["owner"] = "foo"
    assert ep.is_owned_by("foo")
    assert ep.get_owner() == "foo"


@pytest.mark.parametrize(
    ("name", "want"),
    [("www.example.com", "example.com"), ("example.com", "example.com"), ("a.b.c.d", "b.c.d"), ("com", "com"), ("", "")],
)
def test_get_naked_domain(name: str, want: str) -> None:
    assert Endpoint(name, "A").get_naked_domain() == want


def test_with_min_ttl() -> None:
    ep = Endpoint("a", "A")
    ep.with_min_ttl(0)
    assert ep.record_ttl == 0
    ep.with_min_ttl(300)
    assert ep.record_ttl == 300
    ep.with_min_ttl(600)
    assert ep.record_ttl == 300


# -- check_endpoint ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rtype", "targets", "props", "valid"),
    [
        ("example.com", "MX", ["10 example.com"], (), True),
        ("example.com", "MX", ["10 example.com", "20 backup.example.com"], (), True),
        ("example.com", "MX", ["example.com", "backup.example.com"], (), False),
        ("example.com", "MX", ["10 example.com abc"], (), False),
        ("example.com", "MX", ["abc example.com"], (), False),
        ("example.com", "MX", ["65536 example.com"], (), False),
        ("_sip._tls.example.com", "SRV", ["10 20 5060 service.example.com."], (), True),
        ("_sip._tls.example.com", "SRV", ["10 20 5060"], (), False),
        ("_sip._tls.example.com", "SRV", ["10 20 abc service.example.com."], (), False),
        ("_sip._tls.example.com", "SRV", ["10 20 5060 service.example.com"], (), False),
        ("a.example.com", "A", ["1.2.3.4", "5.6.7.8"], (), True),
        ("a.example.com", "A", ["2001:db8::1"], (), False),
        ("a.example.com", "A", ["lb.example.com"], (), False),
        ("a.example.com", "A", ["lb.example.com"], (("alias", "true"),), True),
        ("a.example.com", "AAAA", ["2001:db8::1"], (), True),
        ("a.example.com", "AAAA", ["1.2.3.4"], (), False),
        ("a.example.com", "CNAME", ["lb.example.com"], (("alias", "true"),), True),
        ("a.example.com", "TXT", ["hello"], (("alias", "true"),), False),
        ("a.example.com", "MX", ["10 mx.example.com"], (("alias", "false"),), False),
        ("4.3.2.1.in-addr.arpa", "PTR", ["web.example.com"], (), True),
        ("1.0.ip6.arpa", "PTR", ["web.example.com"], (), True),
        ("in-addr.arpa", "PTR", ["web.example.com"], (), False),
        ("web.example.com", "PTR", ["web.example.com"], (), False),
        ("4.3.2.1.in-addr.arpa", "PTR", [], (), False),
        ("4.3.2.1.in-addr.arpa", "PTR", ["1.2.3.4"], (), False),
        ("4.3.2.1.in-addr.arpa", "PTR", [" "], (), False),
        ("x.example.com", "NS", ["ns1.example.com"], (), True),
    ],
)
def test_check_endpoint(
    name: str, rtype: str, targets: list[str], props: tuple[tuple[str, str], ...], valid: bool
) -> None:
    ep = Endpoint(name, rtype, Targets(targets), provider_specific=psp(*props))
    assert ep.check_endpoint() is valid
    reason = ep.invalid_reason()
    assert (reason is None) is valid
    if reason is not None:
        assert reason  # a readable explanation


# -- JSON -------------------------------------------------------------------------------------------------------


def test_json_round_trip() -> None:
    ep = Endpoint(
        "foo.example.com",
        "A",
        Targets(["1.2.3.4", "5.6.7.8"]),
        record_ttl=300,
        set_identifier="eu",
        labels={"owner": "me", "resource": "service/ns/x"},
        provider_specific=psp(("aws/weight", "10")),
    )
    data = ep.to_json()
    assert data == {
        "dnsName": "foo.example.com",
        "targets": ["1.2.3.4", "5.6.7.8"],
        "recordType": "A",
        "setIdentifier": "eu",
        "recordTTL": 300,
        "labels": {"owner": "me", "resource": "service/ns/x"},
        "providerSpecific": [{"name": "aws/weight", "value": "10"}],
    }
    back = Endpoint.from_json(data)
    assert back == ep
    assert endpoints_from_json(endpoints_to_json([ep, Endpoint("b", "CNAME")])) == [ep, Endpoint("b", "CNAME")]
    assert Endpoint("b", "CNAME").to_json() == {"dnsName": "b", "recordType": "CNAME"}


def test_json_keeps_trailing_dots() -> None:
    # Decoded endpoints bypass new_endpoint (QUIRK kept: CRD CNAMEs written "foo.com." stay so).
    ep = Endpoint.from_json({"dnsName": "a.example.com.", "recordType": "CNAME", "targets": ["foo.com."]})
    assert ep.dns_name == "a.example.com." and list(ep.targets) == ["foo.com."]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"dnsName": 1}, "dnsName"),
        ({"targets": "1.2.3.4"}, "targets"),
        ({"recordTTL": -1}, "recordTTL"),
        ({"recordTTL": "300"}, "recordTTL"),
        ({"labels": {"a": 1}}, "labels"),
        ({"providerSpecific": [{"value": "x"}]}, "providerSpecific"),
    ],
)
def test_json_errors_name_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Endpoint.from_json(data)


def test_equality_ignores_ref_objects_and_copy_is_deep() -> None:
    a = Endpoint("a", "A", Targets(["1.1.1.1"]), labels={"k": "v"}, ref_objects=[{"kind": "Service"}])
    b = Endpoint("a", "A", Targets(["1.1.1.1"]), labels={"k": "v"})
    assert a == b
    c = a.copy()
    c.labels["k"] = "w"
    c.targets.append("2.2.2.2")
    assert a.labels == {"k": "v"} and list(a.targets) == ["1.1.1.1"]
    assert c.ref_objects == a.ref_objects
    assert a != Endpoint("a", "A", Targets(["1.1.1.1"]), record_ttl=1, labels={"k": "v"})
