"""external_dns.durations: one Go-duration parser for flags, annotations and status fields."""

from __future__ import annotations

import pytest

from external_dns.cmd.flags import duration
from external_dns.durations import format_go_duration, parse_duration, parse_go_duration
from external_dns.sources.annotations import parse_ttl


@pytest.mark.parametrize(("text", "seconds"), [
    ("1m30s", 90.0), (".5s", 0.5), ("1.s", 1.0), ("0", 0.0), ("-1m", -60.0), ("+2h", 7200.0),
    ("1h2m3s4ms", 3723.004), ("2µs", 2e-6), ("3μs", 3e-6), ("7us", 7e-6), ("9ns", 9e-9),
    ("1.0000000009s", 1.0),  # digits past the nanosecond are dropped, as Go does
])
def test_go_forms(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == pytest.approx(seconds)
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(("text", "fragment"), [
    ("1x", "unknown unit"), ("h", "invalid"), ("5", "missing unit"), ("1h-3m", "unknown unit"),
    ("--1s", "invalid"), ("1.2.3s", "missing unit"), (".s", "invalid"), ("", "invalid"),
    ("nan", "invalid"), ("9999999999h", "invalid"),
])
def test_go_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_go_duration(text)


@pytest.mark.parametrize("text", ["90", "1.5", ".5", " 30s "])
def test_flag_accepts_plain_seconds(text: str) -> None:
    assert parse_duration(text) == float(text.strip().rstrip("s"))


@pytest.mark.parametrize("text", ["", "nan", "inf", "1e3", "5x"])
def test_flag_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_flag_and_annotation_agree_on_fractions() -> None:
    assert duration(".5s") == 0.5
    assert parse_ttl("1.9m") == 114  # fractions of a second truncated


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (0.5, "500ms"), (840, "14m0s"), (3.2, "3.2s"), (3600, "1h0m0s"), (1.5e-6, "1.5µs"),
    (5e-9, "5ns"), (-5, "-5s"), (90061.25, "25h1m1.25s"),
])
def test_format_as_go(seconds: float, text: str) -> None:
    assert format_go_duration(seconds) == text
    assert parse_go_duration(text) == pytest.approx(seconds)
