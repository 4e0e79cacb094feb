"""endpoint/zones.py: which zone holds a DNS name, and the one normal form of zone names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from external_dns.endpoint.zones import display_zone, name_key, normalize_zone, zone_for_name


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
    assert name_key("WWW.Example.org.") == "www.example.org"


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
