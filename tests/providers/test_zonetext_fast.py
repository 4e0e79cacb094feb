"""zonetext's inline reading of lines in our own simple form (`name TTL IN A|TXT value`, the bulk of a file
we wrote) gives exactly what dnspython's parser gives, also beside `$ORIGIN` changes, blank-led lines taking
the previous owner, `@`, repeated names in other case, duplicate records and differing TTLs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.providers.zonefile import read_with_dnspython
from external_dns.providers.zonetext import Unusual, read_zone_text

ORIGIN = "example.org"

label = st.sampled_from(["www", "WWW", "x", "*", "sub", "a-b_c"])
relative = st.one_of(st.just("@"), label, st.lists(label, min_size=2, max_size=2).map(".".join))
ttl = st.one_of(st.integers(0, 600), st.just(2**31 - 1))
value = st.one_of(
    st.tuples(st.just("A"), st.sampled_from(["10.0.0.1", "10.0.0.2", "192.168.1.255"])),
    st.tuples(st.just("TXT"), st.sampled_from(['"heritage=external-dns,external-dns/owner=me"', '"v=spf1 -all"',
                                               '"a" "b"', '""'])),
)
line = st.one_of(
    st.tuples(st.just("simple"), relative, ttl, value),
    st.tuples(st.just("blank"), st.just(""), st.integers(0, 600), value),
    st.tuples(st.just("origin"), st.sampled_from([f"{ORIGIN}.", f"sub.{ORIGIN}."]), st.just(0), value),
    st.tuples(st.just("comment"), st.just(""), st.just(0), value),
)


def text_of(lines: list[tuple[str, str, int, tuple[str, str]]]) -> str:
    out = [f"$ORIGIN {ORIGIN}.", f"@ 3600 IN SOA ns1.example.net. hostmaster.{ORIGIN}. 1 3600 600 86400 300",
           "@ 3600 IN NS ns1.example.net."]
    for kind, name, ttl, (rtype, rdata) in lines:
        if kind == "simple":
            out.append(f"{name} {ttl} IN {rtype} {rdata}")
        elif kind == "blank":
            out.append(f" {ttl} IN {rtype} {rdata}")
        elif kind == "origin":
            out.append(f"$ORIGIN {name}")
        else:
            out.append("; a comment")
    return "\n".join(out) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=30))
def test_simple_lines_read_like_dnspython(lines: list[tuple[str, str, int, tuple[str, str]]]) -> None:
    text = text_of(lines)
    try:
        ref = read_with_dnspython("test.zone", text, ORIGIN)
    except Exception:
        with pytest.raises(Unusual):
            read_zone_text(text, ORIGIN)
        return
    try:
        mine = read_zone_text(text, ORIGIN)
    except Unusual:
        return  # declined: dnspython reads it
    assert mine.soa == ref.soa
    assert mine.rrsets == ref.rrsets


@pytest.mark.parametrize("bad", ['www 300 IN A "10.0.0.1"', "www 2147483648 IN A 10.0.0.1",
                                 "www 300 IN TXT 10.0.0.1x", "www 300 IN A \u0661.2.3.4",
                                 "www \u0661\u0662 IN A 10.0.0.1", "www 300 IN MX \u0661 mx.example.org.",
                                 "$TTL \u0661\u0662\nwww IN A 10.0.0.1", "www 300 IN SRV \u0661 1 1 x.example.org."])
def test_simple_looking_lines_that_are_not(bad: str) -> None:
    """Refused (`Unusual`, so dnspython reads the file and reports it) or read as dnspython reads them."""
    text = text_of([]) + bad + "\n"
    try:
        ref = read_with_dnspython("test.zone", text, ORIGIN)
    except Exception:
        with pytest.raises(Unusual):
            read_zone_text(text, ORIGIN)
        return
    try:
        mine = read_zone_text(text, ORIGIN)
    except Unusual:
        return  # dnspython reads the file
    assert mine.rrsets == ref.rrsets
