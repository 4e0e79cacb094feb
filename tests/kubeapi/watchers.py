"""Open watches of the test API server: the `Filter` a list/watch selects with, the per-watch `Watcher`
queue (fed under the store lock, drained by the streaming thread through its own Condition) and `event_for`,
which turns a write into what a filtered watch sees (selector transitions become ADDED/DELETED).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tests.kubeapi.objects import Json, StoredObject
from tests.kubeapi.resources import ResourceType


@dataclass(frozen=True)
class Filter:
    """What a list or watch selects: namespace (None = all), label and field matchers."""

    namespace: str | None = None
    labels: Callable[[dict[str, str]], bool] | None = None
    fields: Callable[[Json], bool] | None = None

    def matches(self, so: StoredObject) -> bool:
        if self.namespace is not None and so.key[0] != self.namespace:
            return False
        if self.labels is not None and not self.labels(so.labels()):
            return False
        return self.fields is None or self.fields(so.obj)

    @property
    def selective(self) -> bool:
        return self.labels is not None or self.fields is not None


class Watcher:
    """One open watch: a queue of pending events guarded by its own Condition (no polling)."""

    def __init__(self, rt: ResourceType, flt: Filter, path: str = "") -> None:
        self.rt = rt
        self.filter = flt
        self.path = path
        self.cond = threading.Condition(threading.Lock())
        self.queue: deque[tuple[str, Any]] = deque()
        self.cut = False
        self.closed = False
        self.silence_until = 0.0
        self.bookmark_requested = False

    def push(self, item: tuple[str, Any]) -> None:
        with self.cond:
            self.queue.append(item)
            self.cond.notify_all()

    def push_many(self, items: Iterable[tuple[str, Any]]) -> None:
        with self.cond:
            self.queue.extend(items)
            self.cond.notify_all()

    def wake(self) -> None:
        with self.cond:
            self.cond.notify_all()


def event_for(flt: Filter, etype: str, new: StoredObject, old: StoredObject | None) -> tuple[str, Any] | None:
    """The event a watch with `flt` sees for this write (selector transitions become ADDED/DELETED)."""
    if etype == "MODIFIED" and old is not None:
        now_in, was_in = flt.matches(new), flt.matches(old)
        if now_in and was_in:
            return ("MODIFIED", new)
        if now_in:
            return ("ADDED", new)
        if was_in:
            return ("DELETED", new)
        return None
    return (etype, new) if flt.matches(new) else None
