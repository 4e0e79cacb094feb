"""OutcomeLog: a bounded, thread-safe history of finished reconciles that tests, benchmarks and callers can
read and wait on (`wait_until(predicate, timeout)` re-checks after every append, and at least every 0.5 s for
predicates that also look at state outside the log)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class OutcomeLog(Generic[T]):
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
