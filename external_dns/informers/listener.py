"""Per-handler buffered delivery (client-go `processorListener`): an unbounded queue and one thread.

The informer appends notifications without blocking; the listener's thread calls the handler in order.
A failing handler is logged and the next notification is delivered. The registration returned by
`add_event_handler` is the listener: `has_synced()` is true once the informer has synced AND this
handler has been given every object of the initial list (a SYNCED marker follows the initial adds).
"""

from __future__ import annotations

import collections
import enum
import threading
import time
from typing import Any, NamedTuple

import structlog

from external_dns.informers.handlers import ResourceEventHandler
from external_dns.informers.keys import DeletedFinalStateUnknown, Obj

log = structlog.get_logger(__name__)

MIN_RESYNC_PERIOD = 1.0
_IDLE_WAIT = 60.0  # bound on one wait for work; stop() notifies, so this only bounds a lost wakeup (a longer
# bound wakes an idle process less)


class Kind(enum.Enum):
    ADD = "add"
    UPDATE = "update"
    DELETE = "delete"
    SYNCED = "synced"


class Notification(NamedTuple):
    """What a handler is told (a tuple: a relist creates one per object)."""

    kind: Kind
    obj: Obj | DeletedFinalStateUnknown | None = None
    old: Obj | None = None


SYNCED = Notification(Kind.SYNCED)


class Listener:
    """One registered handler: its buffer, delivery thread, resync schedule and sync state."""

    def __init__(self, handler: ResourceEventHandler, resync_period: float, name: str) -> None:
        self.handler = handler
        self.resync_period = max(resync_period, MIN_RESYNC_PERIOD) if resync_period > 0 else 0.0
        self.next_resync = time.monotonic() + self.resync_period if self.resync_period else float("inf")
        self.name = name
        self._buffer: collections.deque[Notification] = collections.deque()
        self._cond = threading.Condition()
        self._stopping = False
        self._synced = threading.Event()
        self._thread: threading.Thread | None = None
        self.delivered = 0

    # -- registration API ----------------------------------------------------------------------------------
    def has_synced(self) -> bool:
        """True once the informer synced and this handler received every initial add."""
        return self._synced.is_set()

    def wait_for_sync(self, timeout: float) -> bool:
        return self._synced.wait(timeout)

    def pending(self) -> int:
        with self._cond:
            return len(self._buffer)

    # -- informer side ---------------------------------------------------------------------------------------
    def start(self) -> None:
        with self._cond:
            if self._thread is not None or self._stopping:
                return
            self._thread = threading.Thread(target=self._run, name=f"informer-handler-{self.name}", daemon=True)
            self._thread.start()

    def add(self, notification: Notification) -> None:
        with self._cond:
            if self._stopping:
                return
            self._buffer.append(notification)
            self._cond.notify()

    def add_many(self, notifications: list[Notification]) -> None:
        with self._cond:
            if self._stopping:
                return
            self._buffer.extend(notifications)
            self._cond.notify()

    def resync_due(self, now: float) -> bool:
        return now >= self.next_resync

    def schedule_next_resync(self, now: float) -> None:
        if self.resync_period:
            self.next_resync = now + self.resync_period

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._buffer.clear()
            self._cond.notify_all()

    def join(self, timeout: float) -> bool:
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            return not thread.is_alive()
        return True

    # -- delivery thread -------------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._buffer and not self._stopping:
                    self._cond.wait(_IDLE_WAIT)
                if self._stopping:
                    return
                item = self._buffer.popleft()
            self._deliver(item)

    def _deliver(self, n: Notification) -> None:
        try:
            if n.kind is Kind.ADD:
                self.handler.on_add(n.obj)  # type: ignore[arg-type]
            elif n.kind is Kind.UPDATE:
                self.handler.on_update(n.old, n.obj)  # type: ignore[arg-type]
            elif n.kind is Kind.DELETE:
                self.handler.on_delete(n.obj)  # type: ignore[arg-type]
            else:
                self._synced.set()
                on_synced: Any = getattr(self.handler, "on_synced", None)
                if callable(on_synced):
                    on_synced()
        except Exception as exc:
            log.error("event handler failed", handler=self.name, notification=n.kind.value, error=repr(exc),
                      exc_info=True)
        finally:
            self.delivered += 1
