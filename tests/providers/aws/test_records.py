"""Unit tests of record-set conversion and our own validation (what moto would wrongly accept)."""

from __future__ import annotations

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.aws.canonical import CLOUDFRONT_ZONE
from external_dns.providers.aws.records import (
    InvalidRecordError,
    endpoint_from_rrset,
    quote_txt,
    routing_policy,
    rrset_for,
    rrset_size,
    unescape_name,
)
from tests.providers.aws.conftest import E


def test_unescape_wildcard_and_octal_escapes() -> None:
    assert unescape_name("\\052.wild.example.com.") == "*.wild.example.com"
    assert unescape_name("a\\100b.example.com.") == "a@b.example.com"
    assert unescape_name("plain.example.com") == "plain.example.com"


def test_read_aws_shaped_wildcard_and_txt() -> None:
    ep = endpoint_from_rrset({"Name": "\\052.example.com.", "Type": "TXT", "TTL": 60,
                              "ResourceRecords": [{"Value": '"hello world"'}]})
    assert ep is not None
    assert (ep.dns_name, ep.record_type, list(ep.targets), ep.record_ttl) == (
        "*.example.com", "TXT", ['"hello world"'], 60)


def test_read_alias_forces_ttl_300_and_eth() -> None:
    ep = endpoint_from_rrset({"Name": "www.example.com.", "Type": "A", "AliasTarget": {
        "HostedZoneId": "Z35SXDOTRQ7X7K", "DNSName": "lb-1.us-east-1.elb.amazonaws.com.",
        "EvaluateTargetHealth": False}})
    assert ep is not None
    assert ep.record_ttl == 300 and list(ep.targets) == ["lb-1.us-east-1.elb.amazonaws.com"]
    assert ep.get_provider_specific_property("alias") == "true"
    assert ep.get_provider_specific_property("aws/evaluate-target-health") == "false"


def test_read_routing_properties() -> None:
    ep = endpoint_from_rrset({"Name": "api.example.com.", "Type": "A", "TTL": 60, "SetIdentifier": "eu",
                              "GeoLocation": {"ContinentCode": "EU"}, "HealthCheckId": "hc-1",
                              "ResourceRecords": [{"Value": "1.2.3.4"}]})
    assert ep is not None and ep.set_identifier == "eu"
    assert ep.get_provider_specific_property("aws/geolocation-continent-code") == "EU"
    assert ep.get_provider_specific_property("aws/health-check-id") == "hc-1"
    assert routing_policy(ep) == "geolocation"


def test_read_skips_soa() -> None:
    assert endpoint_from_rrset({"Name": "example.com.", "Type": "SOA", "TTL": 900,
                                "ResourceRecords": [{"Value": "x"}]}) is None


def test_write_lower_cases_names_and_defaults_ttl() -> None:
    rrset = rrset_for(E("WWW.Example.COM", "A", ["1.2.3.4"]), "Z1")
    assert rrset == {"Name": "www.example.com", "Type": "A", "TTL": 300, "ResourceRecords": [{"Value": "1.2.3.4"}]}


def test_write_always_sets_ttl_or_alias() -> None:
    alias = E("www.example.com", "A", ["d111.cloudfront.net"]).with_provider_specific("alias", "true")
    rrset = rrset_for(alias, "Z1")
    assert "TTL" not in rrset and rrset["AliasTarget"] == {
        "DNSName": "d111.cloudfront.net", "HostedZoneId": CLOUDFRONT_ZONE, "EvaluateTargetHealth": True}
    same = E("x.example.com", "A", ["www.example.com"]).with_provider_specific("alias", "true")
    assert rrset_for(same, "ZSELF")["AliasTarget"]["HostedZoneId"] == "ZSELF"


def test_write_quotes_bare_txt() -> None:
    assert quote_txt('say "hi"') == '"say \\"hi\\""'
    assert quote_txt('"already"') == '"already"'
    rrset = rrset_for(E("t.example.com", "TXT", ["v=spf1 -all"]), "Z1")
    assert rrset["ResourceRecords"] == [{"Value": '"v=spf1 -all"'}]


@pytest.mark.parametrize(("ep", "fragment"), [
    (E("w.example.com", "A", ["1.2.3.4"]).with_provider_specific("aws/weight", "10"), "set identifier"),
    (E("w.example.com", "A", ["1.2.3.4"], set_identifier="a"), "needs a routing policy"),
    (E("w.example.com", "A", ["1.2.3.4"], set_identifier="a").with_provider_specific("aws/weight", "x"),
     "aws/weight must be an integer"),
    (E("w.example.com", "A", ["1.2.3.4"], set_identifier="a").with_provider_specific("aws/weight", "300"),
     "between 0 and 255"),
    (E("w.example.com", "A", ["1.2.3.4"], set_identifier="a").with_provider_specific("aws/failover", "x"),
     "PRIMARY or SECONDARY"),
    (E("t.example.com", "TXT", ["a" * 300]), "longer than 255"),
    (E("c.example.com", "CNAME", ["a.example.com", "b.example.com"]), "exactly one target"),
    (E("x" * 64 + ".example.com", "A", ["1.2.3.4"]), "not a valid DNS name"),
    (E("w.example.com", "A", []), "no targets"),
    (E("w.example.com", "A", ["not-an-ip"]), "not an IPv4 address"),
    (E("w.example.com", "AAAA", ["1.2.3.4"]), "not an IPv6 address"),
])
def test_write_rejects_what_route53_refuses(ep: Endpoint, fragment: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        rrset_for(ep, "Z1")
    assert fragment in str(info.value)
    assert ep.dns_name in str(info.value)


def test_write_routing_fields() -> None:
    weighted = E("w.example.com", "A", ["1.2.3.4"], set_identifier="a").with_provider_specific(
        "aws/weight", "10").with_provider_specific("aws/health-check-id", "hc")
    assert rrset_for(weighted, "Z")["Weight"] == 10 and rrset_for(weighted, "Z")["HealthCheckId"] == "hc"
    latency = E("w.example.com", "A", ["1.2.3.4"], set_identifier="b").with_provider_specific(
        "aws/region", "eu-west-1")
    assert rrset_for(latency, "Z")["Region"] == "eu-west-1"
    multi = E("w.example.com", "A", ["1.2.3.4"], set_identifier="c").with_provider_specific(
        "aws/multi-value-answer", "")
    assert rrset_for(multi, "Z")["MultiValueAnswer"] is True
    prox = E("w.example.com", "A", ["1.2.3.4"], set_identifier="d").with_provider_specific(
        "aws/geoproximity-coordinates", "49.2,-123.1").with_provider_specific("aws/geoproximity-bias", "5")
    assert rrset_for(prox, "Z")["GeoProximityLocation"] == {
        "Coordinates": {"Latitude": "49.2", "Longitude": "-123.1"}, "Bias": 5}


def test_sizes() -> None:
    assert rrset_size({"ResourceRecords": [{"Value": "1.2.3.4"}, {"Value": "5.6.7.8"}]}) == (14, 2)
    assert rrset_size({"AliasTarget": {"DNSName": "abc"}}) == (3, 1)


def test_txt_string_limit_counts_each_string_and_escapes_once() -> None:
    two_strings = '"' + "a" * 255 + '" "' + "b" * 255 + '"'
    assert rrset_for(E("t.example.com", "TXT", [two_strings]), "Z1")["ResourceRecords"] == [{"Value": two_strings}]
    escaped = '"' + '\\"' * 200 + '"'  # 200 escaped quotes: 200 characters, 402 bytes of text
    assert rrset_for(E("t.example.com", "TXT", [escaped]), "Z1")
    with pytest.raises(InvalidRecordError, match="longer than 255"):
        rrset_for(E("t.example.com", "TXT", ['"' + "a" * 255 + '" "' + "b" * 256 + '"']), "Z1")
