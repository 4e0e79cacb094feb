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
@given(zones, zones, st.lists(spelled, max_size=20), st.booleans())
def test_match_equals_zone_for_name(good: list[str], broken: list[str], names: list[str], by_suffix: bool) -> None:
    """Both ways of matching (each zone tried, for few zones; the name's suffixes looked up, for many)."""
    flt = ZoneDomainFilter(good, broken)
    if by_suffix:
        flt._few = None  # as with more than _FEW_ZONES zones
    else:
        assert flt._few is not None
    for n in names:
        zone = zone_for_name(n, flt._all)
        assert flt.match(n) == (zone is not None and zone in flt.good), n


# -- the by-name view over a zone file ---------------------------------------------------------------------------
from external_dns.endpoint.endpoint import Endpoint  # noqa: E402
from external_dns.providers.snapshot import ZoneSnapshot  # noqa: E402
from external_dns.providers.zonefile import ZoneFile, ZoneView  # noqa: E402
from external_dns.providers.zonetext import ZoneData  # noqa: E402

ORIGIN = "example.org"
owners = st.sampled_from(["www", "WWW", "a-www", "mail", "x.sub", ""])
rrset = st.tuples(owners, st.sampled_from(["A", "TXT", "MX", "CNAME"]), st.sampled_from([300, 60]),
                  st.sampled_from([("10.0.0.1",), ("10.0.0.2", "10.0.0.1"), ('"v"',)]))


def zone_file(sets: list[tuple[str, str, int, tuple[str, ...]]]) -> ZoneFile:
    data = ZoneData(ORIGIN)
    for owner, rtype, ttl, targets in sets:
        display = f"{owner}.{ORIGIN}" if owner else ORIGIN
        lower = display.lower()
        spelled = next((r[0] for (n, _t), r in data.rrsets.items() if n == lower), display)  # one spelling a name
        data.rrsets[(lower, rtype)] = (spelled, ttl, targets)
    return ZoneFile(f"/nonexistent/{ORIGIN}.zone", ORIGIN, data=data)


def canon(pairs: list[tuple[str, tuple[Endpoint, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    return {k: [(e.dns_name, e.record_type, tuple(e.targets), e.record_ttl, e.set_identifier) for e in v]
            for k, v in pairs}


@settings(max_examples=300, deadline=None)
@given(st.lists(rrset, max_size=8), st.lists(rrset, max_size=8), st.lists(owners, max_size=4))
def test_zone_view_equals_a_by_name_snapshot(first: list[tuple[str, str, int, tuple[str, ...]]],
                                             second: list[tuple[str, str, int, tuple[str, ...]]],
                                             written: list[str]) -> None:
    """The view reads like a snapshot built from the file's endpoints; following another version journals
    exactly the names whose records changed (all names, or among the names our write says it touched)."""
    one, two = zone_file(first), zone_file(second)
    ref = ZoneSnapshot(ORIGIN, one.endpoints(ordered=False))
    view = ZoneView(ORIGIN, one)
    assert canon(view.items()) == canon(ref.items())
    assert all(canon([(k, view.get(k.upper()))]) == canon([(k, ref.get(k))]) for k in ref.names())
    assert len(view) == len(ref) and sorted(view.names()) == sorted(ref.names())
    v0 = view.version
    ref.replace_all(two.endpoints(ordered=False))
    told = {f"{o}.{ORIGIN}".lower() if o else ORIGIN for o in written}
    other = ZoneView(ORIGIN, one)
    view.follow(two)
    other.follow(two, told)
    assert view.changed_since(v0) == ref.changed_since(0)
    assert other.changed_since(v0) == (ref.changed_since(0) or set()) & told
    assert canon(view.items()) == canon(ref.items())
    view.follow(None)
    assert view.items() == [] and view.changed_since(view.version - len(ref.names())) == set(ref.names())
    first_read = view.get("www.example.org")
    assert first_read == () or first_read is not view.get("www.example.org")


@settings(max_examples=300, deadline=None)
@given(st.lists(rrset, max_size=8), st.sets(st.sampled_from(["www", "a-www", "mail", "x.sub", ""]), max_size=5))
def test_items_taking_equals_items_without_the_claimed_txts(sets: list[tuple[str, str, int, tuple[str, ...]]],
                                                            claim: set[str]) -> None:
    """`items_taking(take)` is `items()` with exactly the TXT record sets `take` claims left out (each handed
    to it once, as (name key, name, values)); every name stays, in the same order."""
    view = ZoneView(ORIGIN, zone_file(sets))
    claimed_names = {f"{o}.{ORIGIN}" if o else ORIGIN for o in claim}
    handed: list[tuple[str, str, tuple[str, ...]]] = []

    def take(key: str, name: str, values: tuple[str, ...]) -> bool:
        if key not in claimed_names:
            return False
        handed.append((key, name, values))
        return True

    full, got = view.items(), view.items_taking(take)
    assert [k for k, _ in got] == [k for k, _ in full]
    expected = [(k, tuple(e for e in eps if not (e.record_type == "TXT" and k in claimed_names))) for k, eps in full]
    assert canon(got) == canon(expected)
    assert sorted(handed) == sorted((k, e.dns_name, tuple(e.targets)) for k, eps in full for e in eps
                                    if e.record_type == "TXT" and k in claimed_names)
    assert canon(view.items_taking(lambda *_: False)) == canon(full)
