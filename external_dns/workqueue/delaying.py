"""The delaying queue (client-go `delaying_queue.go`): `add_after(item, delay)` on top of `Queue`.

Waiting items live in a min-heap keyed by ready time plus a map item -> entry; one waiting thread (started
on the first delayed add) sleeps on a Condition until the earliest ready time, a 10 s heartbeat, or a new
entry, then moves every due item into the queue. Adding an item that is already waiting keeps the earlier of
the two ready times. Items still waiting at shut-down are dropped. Every `add_after` counts as a retry in
`workqueue_retries_total`.
"""

from __future__ import annotations

import heapq
import itertools
import threading

import structlog
from prometheus_client import CollectorRegistry

from external_dns.workqueue.clock import REAL_CLOCK, Clock
from external_dns.workqueue.queue import Queue, T

log = structlog.get_logger(__name__)

MAX_WAIT = 10.0  # heartbeat of the waiting thread (client-go maxWait)
_JOIN_TIMEOUT = 5.0


class DelayingQueue(Queue[T]):
    """A `Queue` that can also add items after a delay."""

    def __init__(self, name: str = "", *, registry: CollectorRegistry | None = None,
                 clock: Clock = REAL_CLOCK) -> None:
        super().__init__(name, registry=registry, clock=clock)
        self._wait_cond = threading.Condition()
        self._heap: list[tuple[float, int, T]] = []
        self._waiting: dict[T, tuple[float, int]] = {}
        self._seq = itertools.count()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def add_after(self, item: T, delay: float) -> None:
        """Add `item` once `delay` seconds have passed (at once if `delay <= 0`)."""
        if item is None:
            raise ValueError("workqueue: None cannot be queued")
        if self.shutting_down():
            return
        self._metrics.retry()
        if delay <= 0:
            self.add(item)
            return
        ready_at = self._clock.now() + delay
        with self._wait_cond:
            if self._stopping:
                return
            existing = self._waiting.get(item)
            if existing is not None and existing[0] <= ready_at:
                return
            seq = next(self._seq)
            self._waiting[item] = (ready_at, seq)
            heapq.heappush(self._heap, (ready_at, seq, item))  # a superseded entry is skipped when popped
            if self._thread is None:
                self._thread = threading.Thread(target=self._waiting_loop, daemon=True,
                                                name=f"workqueue-delay-{self.name or id(self)}")
                self._thread.start()
            self._wait_cond.notify()

    def waiting(self) -> int:
        """Number of items waiting for their delay to pass (informational)."""
        with self._wait_cond:
            return len(self._waiting)

    def _due(self) -> tuple[list[T], float | None]:
        """Pop due items (lock held); returns them and the seconds until the next ready time."""
        now = self._clock.now()
        ready: list[T] = []
        while self._heap:
            ready_at, seq, item = self._heap[0]
            if self._waiting.get(item) != (ready_at, seq):
                heapq.heappop(self._heap)
                continue
            if ready_at > now:
                return ready, ready_at - now
            heapq.heappop(self._heap)
            del self._waiting[item]
            ready.append(item)
        return ready, None

    def _waiting_loop(self) -> None:
        while True:
            with self._wait_cond:
                if self._stopping:
                    return
                ready, wait_for = self._due()
                if not ready:
                    self._clock.wait(self._wait_cond, MAX_WAIT if wait_for is None else min(wait_for, MAX_WAIT))
                    continue
            for item in ready:
                self.add(item)

    def shut_down(self) -> None:
        super().shut_down()
        self._stop_waiting()

    def shut_down_with_drain(self, timeout: float | None = None) -> bool:
        self._stop_waiting()
        return super().shut_down_with_drain(timeout)

    def _stop_waiting(self) -> None:
        with self._wait_cond:
            self._stopping = True
            self._heap.clear()
            self._waiting.clear()
            self._wait_cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_TIMEOUT)
            if thread.is_alive():
                log.warning("workqueue waiting thread did not stop", queue=self.name)
