"""sources/annotations.py answers plain names and dotted quads before its memo: the answers are exactly those
of the full checks (hypothesis over names and targets built from the characters that matter)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.sources.annotations import (
    _hostname_problem,
    _target_problem,
    hostname_problem,
    target_problem,
)

_LABEL = st.text(alphabet="abcXYZ019-_*:. \t٣é", min_size=0, max_size=70)
_NAMES = st.one_of(
    st.lists(_LABEL, min_size=1, max_size=5).map(".".join),
    st.lists(st.integers(min_value=0, max_value=300).map(str), min_size=1, max_size=5).map(".".join),
    st.lists(st.text(alphabet="ab0-", min_size=1, max_size=64), min_size=1, max_size=5).map(".".join),
    st.text(alphabet="a0.", min_size=240, max_size=260),
)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_hostname_fast_path_agrees_with_the_full_check(name: str) -> None:
    assert hostname_problem(name) == _hostname_problem.__wrapped__(name)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_target_fast_path_agrees_with_the_full_check(target: str) -> None:
    assert target_problem(target) == _target_problem.__wrapped__(target)


def test_examples() -> None:
    assert hostname_problem("h000001.bench.test") is None and target_problem("10.0.0.1") is None
    assert target_problem("lb.example.com.") is None
    assert target_problem("1.2.3") == "'1.2.3' is not a valid IP address"
    assert target_problem("010.0.0.1") == _target_problem.__wrapped__("010.0.0.1")
    assert target_problem("*.example.com") == "target '*.example.com' must not be a wildcard name"
    assert hostname_problem("a b.example.com") is not None
