"""Time for the DNSRecord controller, injectable: wall-clock seconds (`status.queuedAt` is wall time), RFC 3339
formatting and parsing, Go-style durations for `status.validFor`, and the +/- 50 % randomised validation
requeue (`randomize(base, variance, rng)`: uniform in [base*(1-v), base*(1+v)), bases under 1 s raised to
1 s, as dns-operator's `RandomizeDuration`).

Tests pass `external_dns.workqueue.FakeClock(start=<epoch seconds>)` as the clock (any object with `now()`).
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime
from typing import Protocol

from external_dns.durations import format_go_duration, parse_duration

MIN_RANDOMIZE_BASE = 1.0


class WallClock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    """`time.time()`."""

    def now(self) -> float:
        return time.time()


SYSTEM_CLOCK = SystemClock()


def randomize(base: float, variance: float, rng: random.Random) -> float:
    """A duration uniform in [base*(1-variance), base*(1+variance)), millisecond-grained; base >= 1 s."""
    base = max(base, MIN_RANDOMIZE_BASE)
    lo, hi = int(base * 1000 * (1 - variance)), int(base * 1000 * (1 + variance))
    if hi <= lo:
        return lo / 1000.0
    return rng.randrange(lo, hi) / 1000.0


def format_time(epoch: float) -> str:
    """RFC 3339 with second precision, `Z` (metav1.Time)."""
    return datetime.fromtimestamp(int(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: object) -> float | None:
    """Seconds since the epoch of an RFC 3339 time; None when it is missing or does not parse."""
    if not isinstance(text, str) or not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def format_duration(seconds: float) -> str:
    """A Go duration string (`14m0s`, `3.2s`, `1h0m0s`) as metav1.Duration prints it; never negative."""
    return format_go_duration(max(seconds, 0.0))


def parse_valid_for(text: object) -> float:
    """`status.validFor` in seconds; 0 when it is missing, negative or does not parse."""
    if not isinstance(text, str) or not text:
        return 0.0
    try:
        value = parse_duration(text)
    except ValueError:
        return 0.0
    return max(value, 0.0)
