"""When the long-running controller syncs: external-dns's `ShouldRunOnce` / `ScheduleRunOnce` maths
(periodic runs every `interval`, events bringing the next run forward) and a blocking `wait_next()` for
the thread that fires the syncs: it sleeps on a Condition, never polls. Times are monotonic seconds from
an injectable clock.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

EVENT_BATCH_DELAY = 5.0  # upstream's hard-coded delay between an event and the sync it schedules
PERIODIC = "periodic"
EVENT = "event"


class Scheduler:
    """Thread-safe run scheduler. `interval`: periodic full resync; `min_event_sync_interval`: the minimum
    gap between the start of one run and an event-triggered next one."""

    def __init__(self, interval: float, min_event_sync_interval: float = 5.0, *, event_delay: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if interval <= 0:
            raise ValueError(f"scheduler: --interval must be positive, got {interval}")
        if min_event_sync_interval < 0:
            raise ValueError(f"scheduler: --min-event-sync-interval must not be negative, got "
                             f"{min_event_sync_interval}")
        self.interval = float(interval)
        self.min_event_sync_interval = float(min_event_sync_interval)
        # Capped by --min-event-sync-interval: with the default 5 s (or more) the maths are upstream's; a
        # smaller value also shortens the batching delay, so =0 syncs as soon as an event arrives (upstream
        # would still wait 5 s).
        self.event_delay = (min(EVENT_BATCH_DELAY, self.min_event_sync_interval) if event_delay is None
                            else float(event_delay))
        self._clock = clock
        self._cond = threading.Condition()
        self._next_run_at = clock()  # due at once (upstream: ScheduleRunOnce(now) at start with nextRunAt 0)
        self._periodic_at = self._next_run_at  # when the next run is due without any event
        self._last_run_at = -math.inf
        self.last_reason = ""
        self._stopped = False
        self.runs = 0
        self.scheduled = 0

    # -- state --------------------------------------------------------------------------------------------
    @property
    def next_run_at(self) -> float:
        with self._cond:
            return self._next_run_at

    @property
    def last_run_at(self) -> float:
        with self._cond:
            return self._last_run_at

    # -- upstream maths -----------------------------------------------------------------------------------
    def should_run_once(self, now: float) -> bool:
        """True when a run is due at `now` (not before `next_run_at`); the run is then taken as started at
        `now` and the next one is due `interval` later."""
        with self._cond:
            return self._take(now)

    def _take(self, now: float) -> bool:
        if now < self._next_run_at:
            return False
        self.last_reason = PERIODIC if now >= self._periodic_at else EVENT
        self._next_run_at = now + self.interval
        self._periodic_at = self._next_run_at
        self._last_run_at = now
        self.runs += 1
        return True

    def schedule_run_once(self, now: float | None = None) -> None:
        """An event happened at `now` (default: the clock), with `--events`: bring the next run forward.
        Bursts of events collapse into one run, never sooner than `min_event_sync_interval` after the
        previous run *started*, never later than the periodic run already scheduled."""
        with self._cond:
            at = self._clock() if now is None else now
            self._next_run_at = max(self._last_run_at + self.min_event_sync_interval,
                                    min(at + self.event_delay, self._next_run_at))
            self.scheduled += 1
            self._cond.notify_all()

    # -- blocking side ------------------------------------------------------------------------------------
    def wait_due(self, timeout: float | None = None) -> bool:
        """Block until a run is due (then take it and return True), `stop()` was called or `timeout` passed
        (False). Sleeps on a Condition until the due time; `schedule_run_once` and `stop` wake it."""
        return self.wait_next(timeout) is not None

    def wait_next(self, timeout: float | None = None) -> str | None:
        """As `wait_due`, returning why the run is due (`PERIODIC` or `EVENT`), or None."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._stopped:
                now = self._clock()
                if self._take(now):
                    return self.last_reason
                wait = self._next_run_at - now
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    wait = min(wait, remaining)
                self._cond.wait(wait)
            return None

    def stop(self) -> None:
        """Wake and end every `wait_due` (it returns False from now on)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    @property
    def stopped(self) -> bool:
        with self._cond:
            return self._stopped
