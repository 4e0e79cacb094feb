"""--regex-domain-filter runs on RE2 (Go's regexp semantics): linear time, Go's syntax."""

from __future__ import annotations

import threading

import pytest

from external_dns.endpoint.domain_filter import DomainFilter


def test_backtracking_pattern_does_not_hang() -> None:
    flt = DomainFilter(regex=r"^(a+)+$")
    result: list[bool] = []
    t = threading.Thread(target=lambda: result.append(flt.match("a" * 34 + "b.example.org")), daemon=True)
    t.start()
    t.join(timeout=5)  # Python's re takes minutes on this input
    assert result == [False]
    assert DomainFilter(regex=r"(a+)+\.example\.org$").match("aaaa.example.org")


@pytest.mark.parametrize("pattern", [r"(a)\1", r"foo(?=bar)", r"(?<!x)y"])
def test_what_go_rejects_is_a_flag_error(pattern: str) -> None:
    with pytest.raises(ValueError, match="--regex-domain-filter: invalid regular expression"):
        DomainFilter(regex=pattern)


def test_exclusion_and_go_classes() -> None:
    flt = DomainFilter(regex=r"\.example\.(org|net)$", regex_exclusion=r"^internal\b")
    assert flt.match("www.example.org") and not flt.match("internal.example.org")
    assert DomainFilter(regex=r"^[[:alpha:]]+\.example\.org$").match("www.example.org")
