"""How reconciles end: `OutcomeLog`, a bounded, thread-safe history of finished reconciles that tests,
benchmarks and callers can read and wait on (`wait_until(predicate, timeout)` re-checks after every append,
and at least every 0.5 s for predicates that also look at state outside the log); `is_fatal_error`, which
failures end the long-running process instead of being retried."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from external_dns.errors import ConfigError
from external_dns.providers.provider import SoftError

T = TypeVar("T")


def is_fatal_error(exc: BaseException) -> bool:
    """True when a failed reconcile cannot succeed by being retried: a configuration error (a ConfigError, e.g.
    the provider refused our credentials: PowerDNS 401/403, a TSIG key the DNS server rejects, AWS
    access denied, a webhook 401/403) anywhere in the error's cause/context chain, and no SoftError there.

    As Go's controller loop, where a non-soft error is fatal (log.Fatal, exit 1) and Kubernetes restarts the
    pod with back-off. Departure: other non-soft errors (a record the provider refuses, a source object that
    cannot be read) stay retried per zone with back-off, so one bad record never stops every other zone."""
    fatal = False
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, SoftError):
            return False
        fatal = fatal or isinstance(cur, ConfigError)
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return fatal


class OutcomeLog(Generic[T]):
    """The last `maxlen` outcomes."""

    def __init__(self, maxlen: int) -> None:
        self._cond = threading.Condition()
        self._items: deque[T] = deque(maxlen=maxlen)
        self.total = 0  # outcomes ever appended (the history keeps the last `maxlen`)

    def append(self, item: T) -> None:
        with self._cond:
            self._items.append(item)
            self.total += 1
            self._cond.notify_all()

    def items(self, keep: Callable[[T], bool] | None = None) -> list[T]:
        """The outcomes so far (oldest first), optionally only those `keep` accepts."""
        with self._cond:
            return [o for o in self._items if keep is None or keep(o)]

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` holds (True) or `timeout` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 0.5))
            return True
