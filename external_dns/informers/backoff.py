"""Reflector backoff (client-go `defaultBackoff*`): 0.8 s doubling to a 30 s cap, jitter 1.0 (each delay
uniform in [d, 2d), never above the cap), reset to 0.8 s once 2 minutes passed without a step.

`wait(stop, retry_after)` sleeps one step (at least `retry_after`) on the stop event, so shutdown
interrupts it at once. Clock and random source are injectable for tests.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

INITIAL = 0.8
CAP = 30.0
FACTOR = 2.0
JITTER = 1.0
RESET_AFTER = 120.0
MAX_RETRY_AFTER = 60.0  # a server's Retry-After is honoured up to this


class Backoff:
    def __init__(self, initial: float = INITIAL, cap: float = CAP, factor: float = FACTOR, jitter: float = JITTER,
                 reset_after: float = RESET_AFTER, clock: Callable[[], float] = time.monotonic,
                 rand: Callable[[], float] = random.random) -> None:
        self.initial, self.cap, self.factor, self.jitter, self.reset_after = initial, cap, factor, jitter, reset_after
        self._clock, self._rand = clock, rand
        self._duration = initial
        self._last_step: float | None = None
        self._lock = threading.Lock()

    def step(self) -> float:
        """The next delay in seconds (and advance)."""
        with self._lock:
            now = self._clock()
            if self._last_step is not None and now - self._last_step > self.reset_after:
                self._duration = self.initial
            self._last_step = now
            base = self._duration
            self._duration = min(self._duration * self.factor, self.cap)
            return min(base * (1.0 + self._rand() * self.jitter), self.cap)

    def reset(self) -> None:
        with self._lock:
            self._duration = self.initial
            self._last_step = None

    def wait(self, stop: threading.Event, retry_after: float | None = None) -> float:
        """Sleep one step (at least `retry_after`, up to 60 s) unless `stop` is set first; returns the delay."""
        delay = self.step()
        if retry_after is not None and retry_after > delay:
            delay = min(retry_after, MAX_RETRY_AFTER)
        stop.wait(delay)
        return delay
