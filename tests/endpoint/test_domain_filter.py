"""DomainFilter (external-dns domain_filter_test.go cases), MatchAllDomainFilters, JSON form, TargetNetFilter."""

from __future__ import annotations

import pytest

from external_dns.endpoint import DomainFilter, MatchAllDomainFilters, TargetNetFilter


@pytest.mark.parametrize(
    ("include", "exclude", "domain", "want"),
    [
        (["example.com"], [], "example.com", True),
        (["example.com"], [], "a.example.com", True),
        (["example.com"], [], "*.a.example.com", True),
        (["example.com"], [], "Example.COM.", True),
        (["example.com"], [], "badexample.com", False),
        (["example.com"], [], "example.org", False),
        ([".example.com"], [], "a.example.com", True),
        ([".example.com"], [], "example.com", False),
        (["example.com"], ["ex.example.com"], "ex.example.com", False),
        (["example.com"], ["ex.example.com"], "a.ex.example.com", False),
        (["example.com"], ["ex.example.com"], "example.com", True),
        (["example.com"], ["ex.example.com"], "fooex.example.com", True),
        ([], ["example.com"], "foo.org", True),
        ([], ["example.com"], "a.example.com", False),
        ([""], [""], "anything.at.all", True),
        ([" Example.COM. "], [], "www.example.com", True),
        (["example.com", "example.org"], [], "www.example.org", True),
        (["bücher.de"], [], "www.xn--bcher-kva.de", True),
        (["xn--bcher-kva.de"], [], "shop.Bücher.de.", True),
    ],
)
def test_list_match(include: list[str], exclude: list[str], domain: str, want: bool) -> None:
    assert DomainFilter(include, exclude).match(domain) is want


def test_regex_mode() -> None:
    df = DomainFilter(regex=r"\.example\.com$")
    assert df.match("a.example.com")
    assert not df.match("example.com")
    assert df.match("A.Example.COM.")  # normalised before matching
    excl = DomainFilter(regex_exclusion=r"^internal\.")
    assert not excl.match("internal.x.com")
    assert excl.match("x.com")
    both = DomainFilter(regex=r"example\.com$", regex_exclusion=r"^internal\.")
    assert both.match("a.example.com") and not both.match("internal.example.com") and not both.match("a.org")
    unanchored = DomainFilter(regex="example")
    assert unanchored.match("www.example.org")


def test_regex_discards_lists() -> None:
    df = DomainFilter(["other.org"], ["a.example.com"], regex=r"example\.com$")
    assert df.include == [] and df.exclude == []
    assert df.match("a.example.com")
    assert not df.match("other.org")


def test_bad_regex_names_the_flag() -> None:
    with pytest.raises(ValueError, match="--regex-domain-filter"):
        DomainFilter(regex="(")
    with pytest.raises(ValueError, match="--regex-domain-exclusion"):
        DomainFilter(regex_exclusion="[")


@pytest.mark.parametrize(
    ("include", "exclude", "zone", "want"),
    [
        (["a.b.example.com"], [], "example.com", True),
        (["a.b.example.com"], [], "b.example.com", True),
        (["a.b.example.com"], [], "c.example.com", False),
        (["a.b.example.com"], [], "a.b.example.com", False),
        ([".b.example.com"], [], "example.com", False),
        ([], [], "anything.com", True),
        (["a.b.example.com"], ["example.com"], "example.com", False),
    ],
)
def test_match_parent(include: list[str], exclude: list[str], zone: str, want: bool) -> None:
    assert DomainFilter(include, exclude).match_parent(zone) is want


def test_is_configured() -> None:
    assert not DomainFilter().is_configured()
    assert not DomainFilter([""], [""]).is_configured()
    assert DomainFilter(["a.com"]).is_configured()
    assert DomainFilter(exclude=["a.com"]).is_configured()
    assert DomainFilter(regex="a").is_configured()
    assert DomainFilter(regex_exclusion="a").is_configured()


def test_json_forms() -> None:
    assert DomainFilter(["b.com", "a.com"], ["x.a.com"]).to_json() == {"include": ["a.com", "b.com"], "exclude": ["x.a.com"]}
    assert DomainFilter().to_json() == {}
    assert DomainFilter(regex="a$", regex_exclusion="^b").to_json() == {"regexInclude": "a$", "regexExclude": "^b"}
    for df in (DomainFilter(["a.com"], ["x.a.com"]), DomainFilter(regex="a$", regex_exclusion="^b"), DomainFilter()):
        assert DomainFilter.from_json(df.to_json()) == df


def test_from_json_rejects_lists_and_regex_together() -> None:
    with pytest.raises(ValueError, match="cannot have both domain list and regex"):
        DomainFilter.from_json({"include": ["a.com"], "regexInclude": "a"})


def test_from_json_filters_key_is_match_all_quirk() -> None:
    df = DomainFilter.from_json({"filters": ["a.com"]})
    assert not df.is_configured() and df.match("anything.org")


@pytest.mark.parametrize("bad", [{"include": "a.com"}, {"exclude": [1]}, {"regexInclude": 3}, ["a.com"]])
def test_from_json_type_errors(bad: object) -> None:
    with pytest.raises(ValueError):
        DomainFilter.from_json(bad)  # type: ignore[arg-type]


def test_match_all_domain_filters() -> None:
    assert MatchAllDomainFilters().match("x.org")
    assert not MatchAllDomainFilters().is_configured()
    both = MatchAllDomainFilters([DomainFilter(["example.com"]), None, DomainFilter(exclude=["b.example.com"])])
    assert both.match("a.example.com")
    assert not both.match("b.example.com")
    assert not both.match("a.example.org")
    assert both.is_configured()
    assert not MatchAllDomainFilters([DomainFilter(), DomainFilter([""])]).is_configured()


def test_target_net_filter() -> None:
    f = TargetNetFilter(["10.0.0.0/8", "2001:db8::/32", "not-a-cidr", ""], ["10.1.0.0/16"])
    assert f.is_enabled()
    assert f.match("10.2.3.4")
    assert not f.match("10.1.2.3")
    assert not f.match("192.168.0.1")
    assert f.match("2001:db8::5")
    assert not f.match("lb.example.com")  # non-IP never matches an include list
    host_bits = TargetNetFilter(["10.0.0.1/8"])
    assert host_bits.match("10.200.0.1")
    excl_only = TargetNetFilter([], ["10.0.0.0/8"])
    assert excl_only.match("lb.example.com") and excl_only.match("11.0.0.1") and not excl_only.match("10.0.0.1")
    assert not TargetNetFilter().is_enabled() and TargetNetFilter().match("anything")
