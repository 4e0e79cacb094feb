"""Time for the DNSRecord controller (controller/dnsrecord/clock.py): the randomised validation requeue as
dns-operator's RandomizeDuration, RFC 3339 times as metav1.Time writes them, Go durations for status.validFor."""

from __future__ import annotations

import random

import pytest

from external_dns.controller.dnsrecord.clock import (
    format_duration,
    format_time,
    parse_time,
    parse_valid_for,
    randomize,
)


def test_randomised_validation_requeue_stays_within_fifty_percent() -> None:
    rng = random.Random(42)
    draws = [randomize(5.0, 0.5, rng) for _ in range(1000)]
    assert all(2.5 <= d < 7.5 for d in draws)
    assert min(draws) < 2.7 and max(draws) > 7.3  # spread over the whole range
    assert len(set(draws)) > 500
    assert all(0.5 <= randomize(0.2, 0.5, rng) < 1.5 for _ in range(100))  # bases under 1 s count as 1 s


def test_randomize_without_variance_is_the_base_in_milliseconds() -> None:
    assert randomize(2.0004, 0.0, random.Random(1)) == 2.0


def test_times_round_trip_at_second_precision() -> None:
    assert format_time(1796083200.9) == "2026-12-01T00:00:00Z"
    assert parse_time("2026-12-01T00:00:00Z") == 1796083200.0
    assert parse_time("2026-12-01T01:00:00+01:00") == 1796083200.0
    assert parse_time("2026-12-01T00:00:00") == 1796083200.0  # no zone: UTC


@pytest.mark.parametrize("text", [None, "", 5, "yesterday", "2026-13-01T00:00:00Z"])
def test_a_missing_or_unreadable_time_is_none(text: object) -> None:
    assert parse_time(text) is None


def test_durations_as_metav1_duration() -> None:
    assert format_duration(840) == "14m0s"
    assert format_duration(3600) == "1h0m0s"
    assert format_duration(-5) == "0s"  # never negative
    assert parse_valid_for("14m0s") == 840.0
    assert parse_valid_for("1h30m") == 5400.0


@pytest.mark.parametrize("text", [None, "", 30, "soon", "-5m"])
def test_a_missing_negative_or_unreadable_valid_for_is_zero(text: object) -> None:
    assert parse_valid_for(text) == 0.0
