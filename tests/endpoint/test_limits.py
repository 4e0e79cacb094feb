"""Edge validation (endpoint/limits.py): every field of an endpoint against DNS's limits."""

from __future__ import annotations

import pytest

from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.endpoint.limits import MAX_TTL, endpoint_problem, is_ownership_text, short
from external_dns.endpoint.targets import Targets


def _ep(name: str, rtype: str, *targets: str, ttl: int = 0, **kw: object) -> Endpoint:
    return Endpoint(dns_name=name, record_type=rtype, targets=Targets(list(targets)), record_ttl=ttl, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("ep", [
    _ep("www.example.org", "A", "192.0.2.1", ttl=MAX_TTL),
    _ep("www.example.org", "A", "192.0.2.1", ttl=0),
    _ep("*.example.org", "A", "192.0.2.1"),
    _ep("bücher.example.org", "AAAA", "2001:db8::1"),
    _ep("_sip._tcp.example.org", "SRV", "1 2 5060 sip.example.org."),
    _ep("example.org", "MX", "10 mail.example.org", "0 ."),
    _ep("x.example.org", "TXT", 'v=spf1 include:"x" -all', "a" * 4096),
    _ep("x.example.org", "CNAME", "target.example.net."),
    _ep("sub.example.org", "NS", "ns-1.sub.example.org.", "ns2.example.net"),
    _ep("1.2.0.192.in-addr.arpa", "PTR", "host-1.example.org."),
    _ep("x.example.org", "NAPTR", '100 10 "u" "E2U+sip" "!^.*$!sip:x@example.org!" .'),
    _ep("lb.example.org", "A", "lb-1.elb.amazonaws.com", provider_specific=[ProviderSpecificProperty("alias", "true")]),
])
def test_valid_endpoints_pass(ep: Endpoint) -> None:
    assert endpoint_problem(ep) is None


@pytest.mark.parametrize(("ep", "field", "words"), [
    (_ep("www.example.org", "A", "192.0.2.1", ttl=99999999999999), "recordTTL", "outside 0..2147483647"),
    (_ep("www.example.org", "A", "192.0.2.1", ttl=-1), "recordTTL", "outside"),
    (_ep("\U0001f600.example.org", "A", "192.0.2.1"), "dnsName", "IDNA"),
    (_ep("a" * 64 + ".example.org", "A", "192.0.2.1"), "dnsName", "longer than 63"),
    (_ep(".".join(["a" * 60] * 5), "A", "192.0.2.1"), "dnsName", "longer than 253"),
    (_ep("a b.example.org", "A", "192.0.2.1"), "dnsName", "only letters"),
    (_ep("a.*.example.org", "A", "192.0.2.1"), "dnsName", "'*'"),
    (_ep("x..example.org", "A", "192.0.2.1"), "dnsName", "empty label"),
    (_ep("x.example.org", "A"), "targets", "no targets"),
    (_ep("x.example.org", "A", " "), "targets[0]", "empty target"),
    (_ep("x.example.org", "CNAME", "a.example.net", "b.example.net"), "targets", "exactly one"),
    (_ep("x.example.org", "CNAME", "a b.example.net"), "targets[0]", "only letters"),
    (_ep("x.example.org", "TXT", '"heritage=external-dns,external-dns/owner=x"'), "targets[0]", "ownership"),
    (_ep("x.example.org", "TXT", "a" * 4097), "targets[0]", "4096"),
    (_ep("x.example.org", "MX", "10 mail example.org"), "targets[0]", "MX"),
    (_ep("x.example.org", "SRV", "1 2 99999 x.example.org."), "targets[0]", "SRV"),
    (_ep("x.example.org", "NS", "ns1.example.net.", "ns_2.example.org."), "targets[1]", "NS target host"),
    (_ep("1.2.0.192.in-addr.arpa", "PTR", "a_b.example.org."), "targets[0]", "PTR target host"),
    (_ep("4.2.0.192.in-addr.arpa", "PTR", "*.example.org"), "targets[0]", "PTR target host"),
    (_ep("x.example.org", "A", "192.0.2.1\n"), "targets[0]", "control"),
    (_ep("x.example.org", "BOGUS", "1"), "recordType", "unknown"),
    (_ep("x.example.org", "A", "192.0.2.1", set_identifier="s\n"), "setIdentifier", "control"),
    (_ep("x.example.org", "A", "192.0.2.1", labels={"k": "v,external-dns/owner=other"}), 'labels["k"]', "','"),
    (_ep("x.example.org", "A", "192.0.2.1", labels={"k=x": "v"}), 'labels["k=x"]', "key"),
])
def test_invalid_endpoints_name_the_field(ep: Endpoint, field: str, words: str) -> None:
    problem = endpoint_problem(ep)
    assert problem is not None
    assert problem.field == field
    assert words in problem.reason


def test_ownership_text_detection() -> None:
    assert is_ownership_text('"heritage=external-dns,external-dns/owner=a"')
    assert is_ownership_text("v=1,heritage=external-dns")  # the registry would read this as ownership too
    assert not is_ownership_text("heritage=other")
    assert not is_ownership_text("v=spf1 -all")


def test_short_never_quotes_a_huge_value_whole() -> None:
    text = short("x" * 10_000_000)
    assert len(text) < 300 and "10000000 characters" in text
