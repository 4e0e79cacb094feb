"""endpoint/zones.py: which zone holds a DNS name, and the one normal form of zone names."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from external_dns.endpoint.zones import display_zone, normalize_zone, zone_finder, zone_for_name


def test_longest_zone_on_a_label_boundary() -> None:
    zones = ["example.org", "sub.example.org", "org"]
    assert zone_for_name("www.sub.example.org", zones) == "sub.example.org"
    assert zone_for_name("www.example.org", zones) == "example.org"
    assert zone_for_name("example.org", zones) == "example.org"
    assert zone_for_name("badexample.org", zones) == "org"  # not example.org: not a label boundary
    assert zone_for_name("example.com", zones) is None


def test_case_and_trailing_dots_do_not_matter_and_the_zone_comes_back_as_given() -> None:
    assert zone_for_name("WWW.Example.ORG.", ["Example.org."]) == "Example.org."


def test_the_empty_zone_holds_every_name_but_loses_to_a_real_one() -> None:
    assert zone_for_name("www.example.com", [""]) == ""
    assert zone_for_name("www.example.org", ["", "example.org"]) == "example.org"


def test_normal_forms() -> None:
    assert normalize_zone(" Example.ORG. ") == "example.org"
    assert normalize_zone("") == ""
    assert display_zone("example.org") == "example.org." == display_zone("Example.Org.")
    assert display_zone("") == "." == display_zone(None)


labels = st.text(alphabet="abcxyz-0", min_size=1, max_size=5)


@given(st.lists(labels, min_size=1, max_size=4), st.lists(st.lists(labels, min_size=1, max_size=3), max_size=5))
def test_the_chosen_zone_is_a_suffix_and_no_longer_zone_fits(name_labels: list[str],
                                                             zone_labels: list[list[str]]) -> None:
    name = ".".join(name_labels)
    zones = [".".join(z) for z in zone_labels]
    found = zone_for_name(name, zones)
    fits = [z for z in zones if name == z or name.endswith("." + z)]
    if found is None:
        assert fits == []
    else:
        assert found in fits and len(found) == max(len(z) for z in fits)


def _spelled(draw: st.DrawFn, name: str) -> str:
    """`name` as a user may write it: any case, maybe a trailing dot, maybe blanks around."""
    cased = "".join(c.upper() if draw(st.booleans()) else c for c in name)
    return draw(st.sampled_from(["", " "])) + cased + draw(st.sampled_from(["", ".", ". "]))


@st.composite
def _names_and_zones(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    pool = [".".join(parts) for parts in draw(st.lists(st.lists(labels, min_size=1, max_size=3), min_size=1,
                                                         max_size=6))]
    zones = [_spelled(draw, draw(st.sampled_from(pool))) for _ in range(draw(st.integers(0, 5)))]
    if draw(st.booleans()):
        zones.insert(draw(st.integers(0, len(zones))), draw(st.sampled_from(["", ".", " "])))
    names = []
    for _ in range(draw(st.integers(1, 8))):
        base = draw(st.sampled_from(pool))
        prefix = draw(st.lists(labels, max_size=2))
        names.append(_spelled(draw, ".".join([*prefix, base])))
    return names, zones


@example((["www.example.org"], ["example.org", "Example.org."]))  # equal normal forms: the first given wins
@example((["a.b", "b", "x"], ["", "b"]))
@given(_names_and_zones())
def test_zone_finder_answers_as_zone_for_name(case: tuple[list[str], list[str]]) -> None:
    names, zones = case
    find = zone_finder(zones)
    for name in names:
        assert find(name) == zone_for_name(name, zones)
