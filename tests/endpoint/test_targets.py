"""Targets.same / is_less / new_targets (external-dns endpoint_test.go cases)."""

from __future__ import annotations

import pytest

from external_dns.endpoint import Targets, new_targets, sorted_targets, targets_is_less, targets_same


def test_new_targets_dedups_and_sorts() -> None:
    assert new_targets() == []
    assert new_targets("1.2.3.4") == ["1.2.3.4"]
    assert new_targets("example.com", "8.8.8.8", "::0001", "8.8.8.8") == ["8.8.8.8", "::0001", "example.com"]
    assert isinstance(new_targets("a"), Targets)
    assert str(new_targets("b", "a")) == "a;b"


@pytest.mark.parametrize(
    "t", [[""], ["1.2.3.4"], ["8.8.8.8", "8.8.4.4"], ["dd:dd::01", "::1", "::0001"], ["example.org", "EXAMPLE.ORG"]]
)
def test_same_with_itself(t: list[str]) -> None:
    assert Targets(t).same(Targets(t))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (["::1"], ["::0001"]),
        (["::1", "dd:dd::01"], ["dd:00dd::0001", "::0001"]),
        (["::1", "dd:dd::01"], ["00dd:dd::0001", "::0001"]),
        (["::1", "1.1.1.1", "2600.com", "3.3.3.3"], ["2600.com", "::0001", "3.3.3.3", "1.1.1.1"]),
        (["LB.Example.com"], ["lb.example.com"]),
        (["b.com", "a.com"], ["A.com", "B.COM"]),
    ],
)
def test_same_success(a: list[str], b: list[str]) -> None:
    assert targets_same(a, b)
    assert Targets(a).same(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (["1.2.3.4"], ["4.3.2.1"]),
        (["1.2.3.4"], ["1.2.3.4", "4.3.2.1"]),
        (["1.2.3.4", "4.3.2.1"], ["1.2.3.4"]),
        (["1.2.3.4", "4.3.2.1"], ["8.8.8.8", "8.8.4.4"]),
        (["::1", "2600.com", "3.3.3.3"], ["2600.com", "3.3.3.3", "1.1.1.1"]),
        (["a.com."], ["a.com"]),  # trailing dots are not normalised
    ],
)
def test_same_failures(a: list[str], b: list[str]) -> None:
    assert not targets_same(a, b)


def test_same_first_mismatch_quirk() -> None:
    # After sorting, the first differing pair is two equal IPs written differently: Go returns true at once
    # without looking at the remaining (different) elements.
    assert targets_same(["::1", "z.example.com"], ["::0001", "y.example.com"])


def test_same_does_not_mutate() -> None:
    a, b = Targets(["b", "a"]), Targets(["a", "b"])
    assert a.same(b)
    assert a == ["b", "a"]


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ([""], ["", ""], True),
        (["1.2.3.4"], ["1-2-3-4.example.org"], True),
        (["1.2.3.4"], ["1.2.3.5"], True),
        (["example.org", "example.com"], ["example.com", "examplea.org"], True),
        (["8.8.8.8", "8.8.4.4"], ["8.8.8.8"], False),
        (["1-2-3-4.example.org", "EXAMPLE.ORG"], ["1.2.3.4", "EXAMPLE.ORG"], False),
        (["1-2-3-4.example.org", "EXAMPLE.ORG", "1.2.3.4"], ["1-2-3-4.example.org", "EXAMPLE.ORG"], False),
        (["example.com", "example.org"], ["example.com", "example.org"], False),
        (["9.9.9.9"], ["10.0.0.1"], True),  # numeric, not lexicographic
        (["255.255.255.255"], ["::1"], True),  # IPv4 before IPv6
    ],
)
def test_is_less(a: list[str], b: list[str], want: bool) -> None:
    assert targets_is_less(a, b) is want
    assert Targets(a).is_less(Targets(b)) is want


def test_sort_order_ip_canonical() -> None:
    assert sorted_targets(["dd:dd::01", "::1"]) == ["::1", "dd:dd::01"]
    assert sorted_targets(["b.com", "a.com"]) == ["a.com", "b.com"]
    many = [f"host{i:02d}.example.com" for i in range(30, 0, -1)]
    assert sorted_targets(many) == sorted(many)
