"""TXT registry admission (registry/admission.py): a record whose ownership TXT cannot exist is not created."""

from __future__ import annotations

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.admission import affix_problem, ownership_problem
from external_dns.registry.mapper import AffixNameMapper
from external_dns.registry.noop import NoopRegistry
from external_dns.registry.txt import TXTRegistry


def _ep(name: str) -> Endpoint:
    return Endpoint(dns_name=name, record_type="A", targets=Targets(["192.0.2.1"]))


ZONES = ["example.org"]


@pytest.mark.parametrize(("name", "words"), [
    ("example.org", "outside the zone"),                        # apex: a-example.org is in the parent
    ("b" * 62 + ".example.org", "longer than 63"),              # a- + 62 characters
    (".".join(["c" * 61] * 4)[:240] + ".example.org", "253"),   # the TXT name over 253 octets
])
def test_ownership_record_that_cannot_exist(name: str, words: str) -> None:
    problem = ownership_problem(_ep(name), AffixNameMapper(), ZONES)
    assert problem is not None and words in problem


def test_type_prefix_keeps_apex_inside_the_zone() -> None:
    assert ownership_problem(_ep("example.org"), AffixNameMapper(prefix="%{record_type}."), ZONES) is None
    assert ownership_problem(_ep("www.example.org"), AffixNameMapper(), ZONES) is None


def test_parent_zone_managed_too() -> None:
    assert ownership_problem(_ep("example.org"), AffixNameMapper(), ["example.org", "org"]) is None


def _provider() -> InMemoryProvider:
    return InMemoryProvider(zones=["example.org"])


def test_txt_registry_skips_orphans_and_keeps_the_rest(caplog: pytest.LogCaptureFixture) -> None:
    reg = TXTRegistry(_provider(), owner_id="me")
    eps = [_ep("example.org"), _ep("www.example.org"), _ep("d" * 63 + ".example.org")]
    kept = reg.adjust_endpoints(eps)
    assert [e.dns_name for e in kept] == ["www.example.org"]


def test_noop_registry_admits_everything() -> None:
    eps = [_ep("example.org"), _ep("d" * 63 + ".example.org")]
    assert len(NoopRegistry(_provider()).adjust_endpoints(eps)) == 2


def test_wildcard_records_keep_their_ownership() -> None:
    # `a-*.example.org` is a plain label in DNS: wildcard records are admitted with or without a replacement
    wild = _ep("*.example.org")
    assert ownership_problem(wild, AffixNameMapper(), ZONES) is None
    assert ownership_problem(wild, AffixNameMapper(wildcard_replacement="any"), ZONES) is None


@pytest.mark.parametrize(("prefix", "suffix", "ok"), [
    ("", "", True), ("txt.", "", True), ("%{record_type}.", "", True), ("", "-own", True),
    ("bad prefix", "", False), ("a..b", "", False), ("p" * 70, "", False), ("x/y", "", False),
])
def test_affix_problem(prefix: str, suffix: str, ok: bool) -> None:
    assert (affix_problem(prefix, suffix) is None) == ok
