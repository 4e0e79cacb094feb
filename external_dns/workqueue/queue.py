"""The basic work queue (client-go `util/workqueue/queue.go` semantics), thread-based.

* `add(x)`: ignored after shut-down; an item already waiting (dirty) is not added twice; an item being
  processed is not handed out again until `done(x)`, which then re-queues it once.
* `get(timeout=None) -> (item, shutdown)`: blocks until an item is available; returns `(None, True)` only
  when the queue is shut down *and* empty (queued items are still handed out after `shut_down()`), and
  `(None, False)` when `timeout` seconds passed without an item. Items must not be None.
* `done(x)`: marks the end of processing; must be called exactly once per `get`.
* `shut_down()`, `shut_down_with_drain(timeout)`: stop accepting adds; the latter also waits until no
  item is being processed (not for queued items), and a later `shut_down()` cancels that wait.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from prometheus_client import CollectorRegistry

from external_dns.workqueue.clock import REAL_CLOCK, Clock
from external_dns.workqueue.metrics import QueueMetrics

T = TypeVar("T", bound=Hashable)


class Queue(Generic[T]):
    """FIFO work queue with dirty-set de-duplication and processing-set exclusivity."""

    def __init__(self, name: str = "", *, registry: CollectorRegistry | None = None,
                 clock: Clock = REAL_CLOCK) -> None:
        self.name = name
        self._clock = clock
        self._cond = threading.Condition()
        self._queue: deque[T] = deque()
        self._dirty: set[T] = set()
        self._processing: set[T] = set()
        self._shutting_down = False
        self._drain = False
        self._metrics = QueueMetrics(name, registry, clock.now)

    # -- producer side -------------------------------------------------------------------------------
    def add(self, item: T) -> None:
        """Mark `item` as needing processing."""
        if item is None:
            raise ValueError("workqueue: None cannot be queued")
        with self._cond:
            if self._shutting_down or item in self._dirty:
                return
            self._metrics.add(item)
            self._dirty.add(item)
            if item in self._processing:
                return
            self._queue.append(item)
            self._cond.notify()

    # -- consumer side -------------------------------------------------------------------------------
    def get(self, timeout: float | None = None) -> tuple[T | None, bool]:
        """Next item to process as `(item, False)`; `(None, True)` when shut down and empty; `(None, False)`
        after `timeout` seconds (real time) without an item."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._queue and not self._shutting_down:
                if deadline is None:
                    self._cond.wait()
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None, False
                    self._cond.wait(remaining)
            if not self._queue:
                return None, True
            item = self._queue.popleft()
            self._metrics.get(item)
            self._processing.add(item)
            self._dirty.discard(item)
            return item, False

    def done(self, item: T) -> None:
        """Processing of `item` finished; re-queues it if it was added meanwhile."""
        with self._cond:
            self._metrics.done(item)
            self._processing.discard(item)
            if item in self._dirty:
                self._queue.append(item)
                self._cond.notify()
            if not self._processing:
                self._cond.notify_all()  # wakes shut_down_with_drain

    # -- lifecycle -----------------------------------------------------------------------------------
    def shut_down(self) -> None:
        """Stop accepting adds and wake every blocked `get`; cancels a pending drain wait."""
        with self._cond:
            self._drain = False
            self._shutting_down = True
            self._cond.notify_all()

    def shut_down_with_drain(self, timeout: float | None = None) -> bool:
        """Shut down, then wait (at most `timeout` seconds) until no item is being processed.

        Returns True when drained, False on timeout or when `shut_down()` cancelled the wait."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._drain = True
            self._shutting_down = True
            self._cond.notify_all()
            while self._processing and self._drain:
                if deadline is None:
                    self._cond.wait()
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
            drained = not self._processing
            self._drain = False
            return drained

    def shutting_down(self) -> bool:
        with self._cond:
            return self._shutting_down

    def __len__(self) -> int:
        with self._cond:
            return len(self._queue)

    def processing(self) -> int:
        """Number of items handed out and not yet done (informational)."""
        with self._cond:
            return len(self._processing)
