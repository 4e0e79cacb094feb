"""By-name reads for informer sources whose objects each give their own endpoints (Ingress, DNSEndpoint):
`NameIndex`, behind `Source.endpoints_for_names` / `take_dirty_names`.

The index maps each DNS name (lower case, no trailing dot) to the keys of every admitted object claiming it,
so a by-name read computes the endpoints of only those objects and merges them as the full read does:
the merge works name by name (`merge_endpoints` keys on the name), and the objects go in the full read's
order (by key, as `admitted_objects`), so the endpoints of a name are exactly the full read's. It is built by
the source's first full read (`listing`), then kept by the informer's events: one listener updates the
index (the object's old and new names become dirty) and only then calls the source's event handlers, so a
sync triggered by an event always finds that event's names dirty. Events during the first listing win over
what the listing computed for the same object; the names they dirtied stay dirty (the listing may have read
the object before its event, and the caller's baseline is that read). Reads by name wait for a listing in
progress (a half-built index lacks a name's claimants not listed yet); a listing that fails leaves no index:
the next full read lists again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.informers import (
    DeletedFinalStateUnknown,
    FilteringResourceEventHandler,
    Listener,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
)
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, _differs
from external_dns.sources.informer.filters import WITH_SELECTORS
from external_dns.sources.problems import Problem

log = structlog.get_logger(__name__)

Obj = Mapping[str, Any]
OneObject = Callable[[Obj], tuple[list[Endpoint], list[Problem]]]


def object_key(obj: Any) -> str:
    """The key `admitted_objects` orders by (the `WITH_SELECTORS` index value): `namespace/name` or `name`."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return str(obj.key)
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    ns, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{ns}/{name}" if ns else str(name)


def wait_delivered(informer: SharedIndexInformer, registration: Listener, timeout: float, source_name: str) -> None:
    """Before a first listing: once the informer has synced, wait (up to `timeout`) until the index's own
    listener was handed the initial list's adds. They reach it one by one after the cache synced; taken after
    the listing began, each object would be computed again and its names marked dirty, so the first event run
    after start-up would plan every name (1 s at 100k Services). Past the timeout the listing goes on: still
    exact, only slower."""
    if informer.has_synced() and not registration.has_synced() and not registration.wait_for_sync(timeout):
        log.warning("event handler not synced in time", source=source_name, informer=informer.name, timeout=timeout)


class NameIndex:
    """DNS name -> keys of the admitted objects of `informer` claiming it (see the module docstring).
    `one(obj)` gives an object's endpoints (the source's per-object step), `merge` the source's merge."""

    def __init__(self, informer: SharedIndexInformer, admit: Callable[[Any], bool], one: OneObject,
                 merge: Callable[[list[Endpoint]], list[Endpoint]], source_name: str,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        self.informer = informer
        self.sync_timeout = sync_timeout
        self._one = one
        self._merge = merge
        self._source_name = source_name
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)  # notified when a listing ends
        self._built = False  # a first full read started listing: events keep the index from then on
        self._touched: set[str] | None = None  # keys events changed while the first listing runs
        self._names: dict[str, frozenset[str]] = {}  # key -> names the object claims
        self._index: dict[str, set[str]] = {}  # name -> keys
        self._dirty: set[str] = set()
        self._lost = False  # a listing failed: events after it were not followed, the next take says None
        self.handlers: list[Callable[[], None]] = []
        funcs = ResourceEventHandlerFuncs(on_add=lambda obj: self._event(None, obj), on_update=self._event,
                                          on_delete=lambda obj: self._event(obj, None))
        self._registration = informer.add_event_handler(FilteringResourceEventHandler(admit, funcs), resync_period=0)

    # -- the first full read builds the index ------------------------------------------------------------------
    def start_listing(self) -> bool:
        """True when the calling full read is the first: it reports each object through `listed`, then calls
        `end_listing`."""
        if not self._built:
            wait_delivered(self.informer, self._registration, self.sync_timeout, self._source_name)
        with self._lock:
            if self._built:
                return False
            self._built = True
            self._touched = set()
            return True

    def listed(self, obj: Obj, eps: Iterable[Endpoint]) -> None:
        key = object_key(obj)
        names = frozenset(name_key(ep.dns_name) for ep in eps)
        with self._lock:
            if self._touched is not None and key in self._touched:
                return  # an event brought a newer version (or its deletion) already
            # not dirty: the caller's baseline is a full read, which began listing after this one did
            self._set(key, names, dirty=False)

    def end_listing(self, complete: bool = True) -> None:
        """The first listing is over; not `complete` (it failed): the index is dropped, the next full read
        lists again."""
        with self._cond:
            self._touched = None
            if not complete:
                self._built = False
                self._lost = True
                self._names.clear()
                self._index.clear()
            self._cond.notify_all()

    @property
    def built(self) -> bool:
        """Whether the index is built; waits for a first listing in progress to end (False after it failed:
        the caller lists)."""
        with self._cond:
            self._cond.wait_for(lambda: self._touched is None)
            return self._built

    # -- events --------------------------------------------------------------------------------------------------
    def _event(self, old: Any, new: Any) -> None:
        changed = old is None or new is None or _differs(old, new)
        if not changed:
            return
        with self._lock:
            built = self._built
        if built:
            self._update(old, new)
        for handler in list(self.handlers):
            try:
                handler()
            except Exception:  # one handler never stops the others or the informer
                log.exception("source event handler failed", source=self._source_name)

    def _update(self, old: Any, new: Any) -> None:
        names: frozenset[str] = frozenset()
        if new is not None:
            try:
                eps, _ = self._one(new)
            except Exception:  # the full read reports the object; its names stay claimed by nothing
                log.debug("cannot compute an object's endpoints", source=self._source_name, exc_info=True)
                eps = []
            names = frozenset(name_key(ep.dns_name) for ep in eps)
        key = object_key(new if new is not None else old)
        with self._lock:
            if not self._built:
                return  # a failed listing was dropped meanwhile: the next one lists the cache
            if self._touched is not None:
                self._touched.add(key)
            self._set(key, names)

    def _set(self, key: str, names: frozenset[str], dirty: bool = True) -> None:
        """The object `key` claims `names` now (call with the lock held): its old and new names are dirty
        (`dirty`)."""
        before = self._names.pop(key, frozenset())
        for name in before - names:
            keys = self._index.get(name)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._index[name]
        for name in names - before:
            self._index.setdefault(name, set()).add(key)
        if names:
            self._names[key] = names
        if dirty:
            self._dirty |= before | names  # the same names may carry other targets now

    # -- reads ---------------------------------------------------------------------------------------------------
    def objects_for_names(self, names: Collection[str]) -> list[Obj]:
        """The admitted objects claiming any of `names`, in the full read's order (after a listing in
        progress)."""
        with self._cond:
            self._cond.wait_for(lambda: self._touched is None)
            keys = sorted({k for n in names for k in self._index.get(n, ())})
        store = self.informer.get_store()
        return [obj for key in keys for obj in store.by_index(WITH_SELECTORS, key)]

    def endpoints_for_names(self, names: Collection[str]) -> tuple[list[Endpoint], list[Problem]]:
        """Exactly the full read's endpoints of `names` (lower case, no trailing dot), from the objects
        claiming them, and those objects' problems."""
        wanted = {name_key(n) for n in names}
        found: list[Endpoint] = []
        problems: list[Problem] = []
        for obj in self.objects_for_names(wanted):
            eps, probs = self._one(obj)
            found.extend(eps)
            problems.extend(probs)
        return [ep for ep in self._merge(found) if name_key(ep.dns_name) in wanted], problems

    def take_dirty(self) -> set[str] | None:
        """The names changed since the last take; None after a failed listing (the caller compares all)."""
        with self._cond:
            self._cond.wait_for(lambda: self._touched is None)
            dirty, self._dirty = self._dirty, set()
            lost, self._lost = self._lost, False
        return None if lost else dirty
