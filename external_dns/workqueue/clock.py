"""Clocks for the workqueue: the real monotonic clock and a manually stepped fake clock for tests.

Anything in this package that measures or waits for time takes a `Clock`, so delays and rate-limiter maths
can be tested without sleeping. `Clock.wait(cond, timeout)` is the only way code here blocks on time: the
real clock waits on the condition; the fake clock waits until it is stepped (or the condition notified).
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """Source of monotonic time (seconds) and of timed waits on a condition."""

    def now(self) -> float: ...

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        """Wait on `cond` (held by the caller) for at most `timeout` seconds of this clock's time."""
        ...


class RealClock:
    """`time.monotonic()` and `Condition.wait(timeout)`."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        cond.wait(timeout)


REAL_CLOCK = RealClock()

# A fake-clock waiter re-checks at least this often in real time, so a wait never blocks unbounded even if
# nobody steps the clock; the waiting code re-evaluates its state after every wake-up anyway.
_FAKE_WAIT_REAL_CAP = 1.0


class FakeClock:
    """A clock that only moves when `step()` or `set()` is called; waiters wake when it moves."""

    def __init__(self, start: float = 1000.0) -> None:
        self._lock = threading.Lock()
        self._now = start
        self._waiters: set[threading.Condition] = set()

    def now(self) -> float:
        with self._lock:
            return self._now

    def step(self, seconds: float) -> None:
        """Advance the clock and wake every waiter."""
        with self._lock:
            self._now += seconds
            waiters = list(self._waiters)
        for cond in waiters:
            with cond:
                cond.notify_all()

    def set(self, when: float) -> None:
        self.step(when - self.now())

    def has_waiters(self) -> bool:
        with self._lock:
            return bool(self._waiters)

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        if timeout is not None and timeout <= 0:
            return
        with self._lock:
            self._waiters.add(cond)
        try:
            cond.wait(_FAKE_WAIT_REAL_CAP)
        finally:
            with self._lock:
                self._waiters.discard(cond)
