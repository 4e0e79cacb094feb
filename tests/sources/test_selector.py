"""Label selector parsing and matching (`--label-filter`, `--annotation-filter`)."""

from __future__ import annotations

import pytest

from external_dns.sources.selector import SelectorError, parse_selector, selector_from_set

LABELS = {"app": "web", "tier": "front", "version": "3", "example.com/team": "a"}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("", True),
        ("app", True),
        ("missing", False),
        ("!missing", True),
        ("!app", False),
        ("app=web", True),
        ("app==web", True),
        ("app=db", False),
        ("app!=db", True),
        ("app!=web", False),
        ("missing!=x", True),
        ("app in (web,db)", True),
        ("app in (db)", False),
        ("missing in (x)", False),
        ("app notin (db,cache)", True),
        ("app notin (web)", False),
        ("missing notin (x)", True),
        ("version>2", True),
        ("version<3", False),
        ("app>2", False),
        ("missing>1", False),
        ("app=web,tier=front", True),
        ("app=web,tier=back", False),
        ("app in (web, db) , tier", True),
        ("example.com/team=a", True),
        ("tier=", False),
    ],
)
def test_matching(selector: str, expected: bool) -> None:
    assert parse_selector(selector).matches(LABELS) is expected


def test_empty_value_matches_empty_label() -> None:
    assert parse_selector("x=").matches({"x": ""})
    assert parse_selector("x in (,a)").matches({"x": ""})


@pytest.mark.parametrize(
    ("selector", "fragment"),
    [
        ("a=b=c", "expected ','"),
        ("in", "expected a key"),
        ("a in ()", "must not be empty"),
        ("a in (b", "unexpected end"),
        ("a in b", "expected '('"),
        ("!", "unexpected end"),
        ("a,", "trailing ','"),
        ("-a", "name part"),
        ("a=b c", "expected ','"),
        ("a>b", "must be an integer"),
        ("a=" + "x" * 64, "no more than 63"),
        ("Foo.COM/x=y", "prefix part"),
        ("/x", "prefix part must be non-empty"),
        ("a!b", "expected '!='"),
    ],
)
def test_errors_name_the_selector(selector: str, fragment: str) -> None:
    with pytest.raises(SelectorError) as err:
        parse_selector(selector)
    assert fragment in str(err.value)
    assert repr(selector) in str(err.value)


def test_string_round_trip() -> None:
    sel = parse_selector("a=b, !c ,d in (y,x),e notin (z),f, g!=h")
    assert str(sel) == "a=b,!c,d in (x,y),e notin (z),f,g!=h"
    assert parse_selector(str(sel)) == sel
    assert sel.key_set() == {"a", "c", "d", "e", "f", "g"}


def test_selector_from_set_and_none() -> None:
    sel = selector_from_set({"app": "web", "tier": "front"})
    assert sel.matches(LABELS)
    assert not sel.matches({"app": "web"})
    assert selector_from_set(None).matches({})
    assert parse_selector(None).matches(None)
    assert parse_selector("   ").empty()
