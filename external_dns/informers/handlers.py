"""Event handler interface: `on_add(obj)`, `on_update(old, new)`, `on_delete(obj_or_tombstone)`.

Objects handed to handlers are the cached ones and are READ-ONLY: copy (`copy.deepcopy`) before changing
anything. `on_delete` may receive a `DeletedFinalStateUnknown` tombstone (a delete noticed at relist).
A handler may also define `on_synced()`: called once, on its delivery thread, right after its last
initial add (so it sees every initial object first). A resync delivers `on_update(obj, obj)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from external_dns.informers.keys import DeletedFinalStateUnknown, Obj

DeleteArg = Obj | DeletedFinalStateUnknown


class ResourceEventHandler(Protocol):
    def on_add(self, obj: Obj) -> None: ...

    def on_update(self, old: Obj, new: Obj) -> None: ...

    def on_delete(self, obj: DeleteArg) -> None: ...


class ResourceEventHandlerFuncs:
    """A handler built from optional callables (missing ones ignore the event)."""

    def __init__(self, on_add: Callable[[Obj], Any] | None = None,
                 on_update: Callable[[Obj, Obj], Any] | None = None,
                 on_delete: Callable[[DeleteArg], Any] | None = None,
                 on_synced: Callable[[], Any] | None = None) -> None:
        self.on_add_func, self.on_update_func, self.on_delete_func, self.on_synced_func = (
            on_add, on_update, on_delete, on_synced)

    def on_add(self, obj: Obj) -> None:
        if self.on_add_func is not None:
            self.on_add_func(obj)

    def on_update(self, old: Obj, new: Obj) -> None:
        if self.on_update_func is not None:
            self.on_update_func(old, new)

    def on_delete(self, obj: DeleteArg) -> None:
        if self.on_delete_func is not None:
            self.on_delete_func(obj)

    def on_synced(self) -> None:
        if self.on_synced_func is not None:
            self.on_synced_func()


class FilteringResourceEventHandler:
    """Passes events for objects matching `filter` to `handler` (client-go semantics: an update that
    starts matching is an add, one that stops matching is a delete)."""

    def __init__(self, filter: Callable[[Any], bool], handler: ResourceEventHandler) -> None:
        self.filter, self.handler = filter, handler

    def on_add(self, obj: Obj) -> None:
        if self.filter(obj):
            self.handler.on_add(obj)

    def on_update(self, old: Obj, new: Obj) -> None:
        new_ok, old_ok = self.filter(new), self.filter(old)
        if new_ok and old_ok:
            self.handler.on_update(old, new)
        elif new_ok:
            self.handler.on_add(new)
        elif old_ok:
            self.handler.on_delete(old)

    def on_delete(self, obj: DeleteArg) -> None:
        if self.filter(obj):
            self.handler.on_delete(obj)
