"""The zonefile provider's shortcuts equal the plain rules: the domain filter's suffix lookup against
`zone_for_name` over the good and broken zones (nested zones, a catch-the-rest zone, odd case, dots)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.endpoint.zones import zone_for_name
from external_dns.providers.zonefile import ZoneDomainFilter

label = st.sampled_from(["example", "org", "sub", "Example", "a", "", "x-y"])
name = st.lists(label, min_size=1, max_size=4).map(".".join)
spelled = st.tuples(name, st.sampled_from(["", ".", " ", ".."])).map(lambda t: t[0] + t[1])
zones = st.lists(st.one_of(name, st.just(""), st.just("example.org"), st.just("sub.example.org")), max_size=4)


@settings(max_examples=500, deadline=None)
@given(zones, zones, st.lists(spelled, max_size=20))
def test_match_equals_zone_for_name(good: list[str], broken: list[str], names: list[str]) -> None:
    flt = ZoneDomainFilter(good, broken)
    for n in names:
        zone = zone_for_name(n, flt._all)
        assert flt.match(n) == (zone is not None and zone in flt.good), n
