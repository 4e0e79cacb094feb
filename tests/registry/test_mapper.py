"""AffixNameMapper: TXT names for every record type, affixes, templates, wildcards and apexes (3.2, 3.3)."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.cmd.config import parse_config, validate
from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.endpoint import KNOWN_RECORD_TYPES
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import AffixNameMapper
from external_dns.registry.admission import affix_problem
from external_dns.registry.mapper import SUPPORTED_RECORD_TYPES
from external_dns.registry.txt import TXTRegistry

ALL_TYPES = sorted(KNOWN_RECORD_TYPES)
assert len(ALL_TYPES) == 10

# (prefix, suffix, name, TXT name pattern with {t} = lower-case type)
MATRIX = [
    ("", "", "foo.example.com", "{t}-foo.example.com"),
    ("txt.", "", "foo.example.com", "txt.{t}-foo.example.com"),
    ("txt-", "", "foo.example.com", "txt-{t}-foo.example.com"),
    ("", "-txt", "foo.example.com", "{t}-foo-txt.example.com"),
    ("", ".txt", "foo.example.com", "{t}-foo.txt.example.com"),
    ("%{record_type}-", "", "foo.example.com", "{t}-foo.example.com"),
    ("prefix%{record_type}.", "", "new-record-1.test-zone.example.org", "prefix{t}.new-record-1.test-zone.example.org"),
    ("someprefix-%{record_type}.", "", "example.com", "someprefix-{t}.example.com"),
    ("", "-%{record_type}suffix", "new-record-1.test-zone.example.org", "new-record-1-{t}suffix.test-zone.example.org"),
    ("", "-.%{record_type}", "www.ex.com", "www-.{t}.ex.com"),
    ("", "-%{record_type}", "foo.example.com", "foo-{t}.example.com"),
]


@pytest.mark.parametrize("rtype", ALL_TYPES)
@pytest.mark.parametrize(("prefix", "suffix", "name", "pattern"), MATRIX)
def test_matrix_round_trip(prefix: str, suffix: str, name: str, pattern: str, rtype: str) -> None:
    mapper = AffixNameMapper(prefix, suffix, "")
    txt = mapper.to_txt_name(name, rtype)
    assert txt == pattern.format(t=rtype.lower())
    assert mapper.to_endpoint_name(txt) == (name, rtype)


@pytest.mark.parametrize(
    ("prefix", "suffix", "name", "rtype", "expected"),
    [
        ("txt.", "", "example", "CNAME", "txt.cname-example"),
        ("txt.", "", "example.com", "A", "txt.a-example.com"),  # apex: lands outside the zone (known pain)
        ("%{record_type}-abc-.", "", "ex.com", "CNAME", "cname-abc-.ex.com"),
        ("", "-.%{record_type}", "ex.com", "A", "ex-.a.com"),
        ("", "-txt", "example", "A", "a-example-txt"),
        ("", "", "example", "MX", "mx-example"),
        ("TXT.", "", "Foo.Example.com", "A", "txt.a-Foo.Example.com"),  # affix lower-cased, name kept
    ],
)
def test_to_txt_name_apex_and_single_label(prefix: str, suffix: str, name: str, rtype: str, expected: str) -> None:
    assert AffixNameMapper(prefix, suffix, "").to_txt_name(name, rtype) == expected


@pytest.mark.parametrize(
    ("prefix", "suffix", "repl", "name", "rtype", "expected"),
    [
        ("", "-txt", "wildcard", "*.wildcard.test-zone.example.org", "CNAME",
         "cname-wildcard-txt.wildcard.test-zone.example.org"),
        ("", "-txt", "wildcard", "bar.test-zone.example.org", "CNAME", "cname-bar-txt.test-zone.example.org"),
        ("txt-", "", "wild", "*.example.com", "A", "txt-a-wild.example.com"),
        ("", "", "", "*.example.com", "A", "a-*.example.com"),
        ("", "", "WildCard", "*.example.com", "AAAA", "aaaa-wildcard.example.com"),
        ("", "", "w", "a.*.example.com", "A", "a-a.*.example.com"),  # only a leading '*' label is replaced
    ],
)
def test_wildcard_replacement(prefix: str, suffix: str, repl: str, name: str, rtype: str, expected: str) -> None:
    assert AffixNameMapper(prefix, suffix, repl).to_txt_name(name, rtype) == expected


@pytest.mark.parametrize(
    ("prefix", "suffix", "txt", "expected"),
    [
        ("", "", "foo.example.com", ("foo.example.com", "")),  # old format: no type
        ("txt.", "", "txt.www.example.com", ("www.example.com", "")),
        ("txt.", "", "txt.cname-www.example.com", ("www.example.com", "CNAME")),
        ("txt.", "", "other.a-www.example.com", ("", "")),  # not our prefix
        ("", "-txt", "foo-txt.example.com", ("foo.example.com", "")),
        ("", "-txt", "a-foo.example.com", ("", "")),  # not our suffix
        ("", "", "A-Foo.Example.COM", ("foo.example.com", "A")),  # lower-cased
        ("", "", "ns-1.example.com", ("1.example.com", "NS")),  # QUIRK: old-format name read as new format
        ("%{record_type}-", "", "www.example.com", ("", "")),  # template-less fallback prefix is "-"
        ("prefix%{record_type}.", "", "prefix.www.example.com", ("www.example.com", "")),
        ("", "-%{record_type}", "foo.example.com", ("", "")),
        ("", "-%{record_type}", "foo-.example.com", ("foo.example.com", "")),  # old record: template removed
        ("", "-.%{record_type}", "ex-.a.com", ("ex.com", "A")),  # apex with a dotted suffix
        ("", "-txt", "a-example-txt", ("example", "A")),  # single label
    ],
)
def test_to_endpoint_name(prefix: str, suffix: str, txt: str, expected: tuple[str, str]) -> None:
    assert AffixNameMapper(prefix, suffix, "").to_endpoint_name(txt) == expected


def test_record_type_in_affix() -> None:
    assert AffixNameMapper("%{record_type}-", "", "").record_type_in_affix()
    assert AffixNameMapper("", "-%{record_type}", "").record_type_in_affix()
    assert not AffixNameMapper("txt-", "", "").record_type_in_affix()


# -- exact parsing (issue 27, item 5) -----------------------------------------------------------------------------
_TYPE_WORDS = ["a", "aaaa", "cname", "ns", "mx", "ptr", "srv", "naptr", "txt", "dname"]
_affixes = st.lists(st.sampled_from([*_TYPE_WORDS, "-", ".", "_", "x", "%{record_type}", "%{RECORD_TYPE}"]),
                    max_size=5).map("".join)
_labels = st.lists(st.sampled_from([*_TYPE_WORDS, "-", "x", "b", "0", "_"]), min_size=1, max_size=4).map("".join)
_names = st.lists(_labels, min_size=1, max_size=3).map(lambda labels: ".".join(labels) + ".example.org")


@settings(max_examples=3000, deadline=None, derandomize=os.environ.get("CI") == "true")
@given(affix=_affixes, as_suffix=st.booleans(), name=_names, rtype=st.sampled_from(SUPPORTED_RECORD_TYPES))
def test_accepted_affixes_parse_back_exactly_and_refused_ones_do_collide(affix: str, as_suffix: bool, name: str,
                                                                         rtype: str) -> None:
    """Every --txt-prefix / --txt-suffix accepted at start-up maps every record's ownership name back to that
    record (names starting with type words, `aaaa.b`, `aaaaa.b`, included); one refused for sharing names
    really makes two records share one (the refusal is not a guess)."""
    prefix, suffix = ("", affix) if as_suffix else (affix, "")
    mapper = AffixNameMapper(prefix, suffix)
    shared = mapper.collision()
    if shared is not None:
        (name1, type1), (name2, type2), txt_name = shared
        assert mapper.to_txt_name(name1, type1) == mapper.to_txt_name(name2, type2) == txt_name
        assert (name1, type1) != (name2, type2)
        assert affix_problem(prefix, suffix) is not None
        with pytest.raises(ValueError, match="share"):
            TXTRegistry(InMemoryProvider(zones=["example.org"]), prefix=prefix, suffix=suffix, owner_id="o")
        return
    if affix_problem(prefix, suffix) is not None:
        return  # no valid ownership names at all (a '..', a label over 63): refused at start-up for that
    assert mapper.to_endpoint_name(mapper.to_txt_name(name, rtype)) == (name, rtype)


@pytest.mark.parametrize(("prefix", "suffix"), [("%{record_type}", ""), ("", "%{record_type}"),
                                                ("-%{record_type}", ""), ("", "%{record_type}x")])
def test_a_type_word_affix_without_separator_is_refused_at_start_up(prefix: str, suffix: str) -> None:
    """`--txt-prefix=%{record_type}`: `aaaa.b` A and `a.b` AAAA both own `aaaaa.b`; the TXT of the AAAA record
    was read back as the A record's, and a hand-made `aaaa.b` A was deleted. Refused, naming the flag."""
    ns = parse_config(["--source=service", "--provider=inmemory", "--policy=sync", f"--txt-prefix={prefix}",
                       f"--txt-suffix={suffix}"], {})
    flag = "--txt-suffix" if suffix else "--txt-prefix"
    with pytest.raises(ConfigError, match=f"{flag}=.* makes ownership record names that two records share"):
        validate(ns)
