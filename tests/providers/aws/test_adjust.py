"""Unit tests of adjust_endpoints: desired endpoints take the shape records() reads back."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.aws import AWSConfig, AWSProvider
from tests.providers.aws.conftest import E


def provider(**kwargs: Any) -> AWSProvider:
    return AWSProvider(AWSConfig(**kwargs), clients={})


def props(ep: Endpoint) -> dict[str, str]:
    return {p.name: p.value for p in ep.provider_specific}


def test_cname_to_elb_becomes_a_and_aaaa_alias() -> None:
    out = provider().adjust_endpoints([E("WWW.example.com", "CNAME", ["lb-1.us-east-1.elb.amazonaws.com"])])
    assert [(e.dns_name, e.record_type) for e in out] == [("www.example.com", "A"), ("www.example.com", "AAAA")]
    assert all(props(e) == {"alias": "true", "aws/evaluate-target-health": "true"} for e in out)
    assert all(e.record_ttl == 0 for e in out)


def test_prefer_cname_keeps_cname() -> None:
    out = provider(prefer_cname=True).adjust_endpoints(
        [E("www.example.com", "CNAME", ["lb-1.us-east-1.elb.amazonaws.com"])])
    assert [(e.record_type, props(e)) for e in out] == [("CNAME", {"alias": "false"})]


def test_explicit_alias_a_only() -> None:
    ep = E("x.example.com", "CNAME", ["lb-1.us-east-1.elb.amazonaws.com"]).with_provider_specific("alias", "A")
    out = provider().adjust_endpoints([ep])
    assert [(e.record_type, props(e)["alias"]) for e in out] == [("A", "true")]


def test_plain_cname_gets_alias_false() -> None:
    out = provider().adjust_endpoints([E("c.example.com", "CNAME", ["other.example.org"])])
    assert props(out[0]) == {"alias": "false"}


@pytest.mark.parametrize(("eth_flag", "expected"), [(True, "true"), (False, "false")])
def test_alias_ttl_and_eth_default(eth_flag: bool, expected: str) -> None:
    ep = E("a.example.com", "A", ["d1.cloudfront.net"], 60).with_provider_specific("alias", "true")
    out = provider(evaluate_target_health=eth_flag).adjust_endpoints([ep])[0]
    assert out.record_ttl == 300 and props(out)["aws/evaluate-target-health"] == expected


def test_non_alias_a_drops_alias_properties() -> None:
    ep = E("a.example.com", "A", ["1.2.3.4"]).with_provider_specific("alias", "false").with_provider_specific(
        "aws/evaluate-target-health", "true")
    assert props(provider().adjust_endpoints([ep])[0]) == {}


def test_txt_quoted_and_geoproximity_bias_default() -> None:
    txt = E("t.example.com", "TXT", ["v=spf1 -all"])
    geo = E("g.example.com", "A", ["1.2.3.4"], set_identifier="g").with_provider_specific(
        "aws/geoproximity-region", "us-east-1")
    out = provider().adjust_endpoints([txt, geo])
    assert list(out[0].targets) == ['"v=spf1 -all"']
    assert props(out[1])["aws/geoproximity-bias"] == "0"


def test_input_not_mutated() -> None:
    ep = E("WWW.example.com", "CNAME", ["lb-1.us-east-1.elb.amazonaws.com"])
    provider().adjust_endpoints([ep])
    assert ep.dns_name == "WWW.example.com" and ep.record_type == "CNAME" and not ep.provider_specific
