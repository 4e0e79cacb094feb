"""TargetNetFilter (endpoint/target_filter.py), as external-dns's endpoint/target_filter.go: include and exclude
CIDR lists, host bits allowed, bad CIDRs logged and ignored, a hostname never matched by an include list."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from external_dns.endpoint.target_filter import TargetNetFilter


def test_no_lists_match_everything_and_are_disabled() -> None:
    flt = TargetNetFilter()
    assert not flt.is_enabled()
    assert flt.match("10.0.0.1") and flt.match("lb.example.org") and flt.match("2001:db8::1")


@pytest.mark.parametrize(("target", "want"), [
    ("10.1.2.3", True),
    ("10.255.255.255", True),
    ("11.0.0.1", False),
    ("2001:db8::5", True),
    ("2001:db9::5", False),
    ("lb.example.org", False),  # only an IP can be inside a net
])
def test_include_list(target: str, want: bool) -> None:
    flt = TargetNetFilter(include=["10.0.0.1/8", "2001:db8::/32"])  # host bits allowed: 10.0.0.0/8
    assert flt.is_enabled()
    assert flt.match(target) is want


@pytest.mark.parametrize(("target", "want"), [
    ("10.1.2.3", True),
    ("10.9.0.1", False),
    ("192.0.2.1", False),  # outside the include list
    ("::ffff:10.9.0.1", False),  # an IPv6 address never matches an IPv4 net, either way
])
def test_exclude_wins_over_include(target: str, want: bool) -> None:
    flt = TargetNetFilter(include=["10.0.0.0/8"], exclude=["10.9.0.0/16"])
    assert flt.match(target) is want


def test_exclude_only_never_excludes_a_hostname() -> None:
    flt = TargetNetFilter(exclude=["192.0.2.0/24"])
    assert flt.is_enabled()
    assert not flt.match("192.0.2.7")
    assert flt.match("198.51.100.1") and flt.match("lb.example.org")


def test_bad_cidrs_are_logged_and_ignored_empty_ones_silently() -> None:
    with capture_logs() as logs:
        flt = TargetNetFilter(include=["", "  ", "not-a-net", "10.0.0.0/33", " 192.0.2.0/24 "])
    assert [(e["event"], e["filter"]) for e in logs] == [("Invalid target net filter", "not-a-net"),
                                                          ("Invalid target net filter", "10.0.0.0/33")]
    assert flt.match("192.0.2.9") and not flt.match("10.0.0.1")
    with capture_logs():
        assert not TargetNetFilter(include=["bad"]).is_enabled()  # nothing valid left: no filter at all
