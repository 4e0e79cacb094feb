"""SharedIndexInformer: one reflector feeding one indexed cache and any number of event handlers.

The reflector thread applies each list/watch result to the store first (after the transformers), then
queues notifications to every handler's own buffer (`Listener`), so a slow handler never blocks the
reflector or the other handlers. Handlers may be added at any time; a late handler first gets a
synthetic `on_add` for every cached object. Each handler has its own resync period (`on_update(obj,
obj)` for every cached object when due). Relist results: ADD for new keys, UPDATE for changed resource
versions (unchanged ones are not delivered), DELETE with a `DeletedFinalStateUnknown` tombstone for
vanished keys. Cached objects are shared and READ-ONLY for handlers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

import structlog

from external_dns.informers import metrics
from external_dns.informers.handlers import ResourceEventHandler
from external_dns.informers.keys import Obj, resource_version
from external_dns.informers.listener import SYNCED, Kind, Listener, Notification
from external_dns.informers.mutation import MutationDetector, enabled_by_env
from external_dns.informers.reflector import Reflector, ReflectorOptions
from external_dns.informers.resource import Resource
from external_dns.informers.store import (
    NAMESPACE_INDEX,
    DeltaType,
    Indexer,
    IndexFunc,
    InformerStartedError,
    namespace_index,
)
from external_dns.informers.transform import Transformer, chain

log = structlog.get_logger(__name__)

_RESYNC_IDLE = 60.0


def informer_name(resource: Resource, namespace: str | None, label_selector: str | None,
                  field_selector: str | None) -> str:
    name = resource.name
    if namespace:
        name += f" ns={namespace}"
    if label_selector:
        name += f" labels={label_selector}"
    if field_selector:
        name += f" fields={field_selector}"
    return name


class SharedIndexInformer:
    """Cache + handlers for one (resource, namespace, label selector, field selector)."""

    def __init__(self, api_client: Any, resource: Resource, *, namespace: str | None = None,
                 label_selector: str | None = None, field_selector: str | None = None,
                 resync_period: float = 0.0, indexers: dict[str, IndexFunc] | None = None,
                 transformers: Iterable[Transformer] = (), options: ReflectorOptions | None = None,
                 detect_mutation: bool | None = None) -> None:
        self.resource = resource
        self.namespace = namespace if resource.namespaced else None
        self.label_selector, self.field_selector = label_selector or None, field_selector or None
        self.name = informer_name(resource, self.namespace, self.label_selector, self.field_selector)
        self.default_resync_period = resync_period
        self._indexer = Indexer({NAMESPACE_INDEX: namespace_index, **(indexers or {})})
        self._transform = chain(transformers)
        self._lock = threading.RLock()  # store writes + notification fan-out + handler registration
        self._listeners: list[Listener] = []
        self._synced = threading.Event()
        self._started = False
        self._stopped = False
        self._stop = threading.Event()
        self._resync_cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._mutations = (MutationDetector(self.name) if (detect_mutation if detect_mutation is not None
                                                             else enabled_by_env()) else None)
        self._reflector = Reflector(api_client, resource, self, namespace=self.namespace,
                                    label_selector=self.label_selector, field_selector=self.field_selector,
                                    options=options, name=self.name)
        self._log = log.bind(informer=self.name)

    # -- configuration ---------------------------------------------------------------------------------------
    def get_store(self) -> Indexer:
        return self._indexer

    get_indexer = get_store

    def add_indexers(self, indexers: dict[str, IndexFunc]) -> None:
        """Add index functions; refused (`InformerStartedError`) once the informer has started."""
        self._indexer.add_indexers(indexers)

    def set_transform(self, *transformers: Transformer) -> None:
        with self._lock:
            if self._started:
                raise InformerStartedError()
            self._transform = chain(transformers)

    @property
    def mutation_detector(self) -> MutationDetector | None:
        return self._mutations

    @property
    def reflector(self) -> Reflector:
        return self._reflector

    def last_sync_resource_version(self) -> str:
        return self._reflector.last_sync_resource_version

    def has_synced(self) -> bool:
        """The store holds the first full list (says nothing about individual handlers)."""
        return self._synced.is_set()

    def wait_for_cache_sync(self, timeout: float) -> bool:
        return self._synced.wait(timeout)

    def is_stopped(self) -> bool:
        return self._stopped

    # -- handlers ----------------------------------------------------------------------------------------------
    def add_event_handler(self, handler: ResourceEventHandler, resync_period: float | None = None) -> Listener:
        """Register `handler`; returns its registration (`has_synced()`, `wait_for_sync(timeout)`).
        `resync_period` None means the informer's default; 0 means never."""
        period = self.default_resync_period if resync_period is None else resync_period
        with self._lock:
            if self._stopped:
                raise RuntimeError(f"informer {self.name} has stopped; cannot add a handler")
            listener = Listener(handler, period, self.name)
            self._listeners.append(listener)
            if self._started:
                listener.start()
                if self._synced.is_set():
                    listener.add_many([Notification(Kind.ADD, obj) for obj in self._indexer.list()] + [SYNCED])
        with self._resync_cond:
            self._resync_cond.notify_all()
        return listener

    def remove_event_handler(self, registration: Listener) -> None:
        with self._lock:
            if registration in self._listeners:
                self._listeners.remove(registration)
        registration.stop()
        registration.join(5.0)

    # -- lifecycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the reflector, resync and handler threads (non-blocking; a second call does nothing)."""
        with self._lock:
            if self._started or self._stopped:
                return
            self._started = True
            self._indexer.mark_started()
            for listener in self._listeners:
                listener.start()
            self._threads = [
                threading.Thread(target=self._reflector.run, name=f"informer-reflector-{self.name}", daemon=True),
                threading.Thread(target=self._resync_loop, name=f"informer-resync-{self.name}", daemon=True),
            ]
            for thread in self._threads:
                thread.start()
        self._log.debug("informer started")

    def run(self, stop: threading.Event) -> None:
        """client-go style: start, block until `stop` is set, then shut down."""
        self.start()
        stop.wait()
        self.shutdown()

    def shutdown(self, timeout: float = 5.0) -> bool:
        """Stop every thread of this informer; True when all joined within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._stopped = True
            listeners = list(self._listeners)
        self._stop.set()
        self._reflector.stop()
        with self._resync_cond:
            self._resync_cond.notify_all()
        for listener in listeners:
            listener.stop()
        ok = True
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
                ok = ok and not thread.is_alive()
        for listener in listeners:
            ok = listener.join(max(0.0, deadline - time.monotonic())) and ok
        if self._mutations is not None:
            self._mutations.check_all()
        if not ok:
            self._log.warning("informer threads still running after shutdown timeout", timeout=timeout)
        return ok

    # -- reflector sink -----------------------------------------------------------------------------------------
    def _prepare(self, obj: Obj) -> tuple[str, Obj]:
        """Transform `obj` and key it (raises on an object without a name)."""
        if self._transform is not None:
            obj = self._transform(obj)
        return self._indexer.key_of(obj), obj

    def replace(self, items: list[Obj], resource_version_: str) -> None:
        self.replace_listed([self.list_item(item) for item in items], resource_version_)

    def list_item(self, item: Any) -> tuple[str, Obj] | None:
        """A listed object transformed and keyed, as the reflector reads it (None: rejected, logged)."""
        try:
            if not isinstance(item, dict):
                raise ValueError(f"list item is not an object: {type(item).__name__}")
            return self._prepare(item)
        except Exception as exc:
            meta = item.get("metadata") if isinstance(item, dict) else None
            meta = meta if isinstance(meta, dict) else {}
            self._log.error("listed object rejected", kind=self.resource.kind, namespace=meta.get("namespace"),
                            name=meta.get("name"), error=str(exc))
            return None

    def replace_listed(self, entries: list[tuple[str, Obj] | None], resource_version_: str) -> None:
        """The store replaced by a whole list, made of `list_item` results."""
        objs: dict[str, Obj] = dict(entry for entry in entries if entry is not None)
        with self._lock:
            deltas = self._indexer.replace_keyed(objs)
            first = not self._synced.is_set()
            notes: list[Notification] = []
            for delta in deltas if (self._listeners or self._mutations is not None) else ():
                if delta.type is DeltaType.ADDED:
                    notes.append(Notification(Kind.ADD, delta.obj))
                    self._track(delta.obj)  # type: ignore[arg-type]
                elif delta.type is DeltaType.UPDATED:
                    self._untrack(delta.old)
                    self._track(delta.obj)  # type: ignore[arg-type]
                    if resource_version(delta.old) != resource_version(delta.obj):
                        notes.append(Notification(Kind.UPDATE, delta.obj, delta.old))
                else:
                    self._untrack(getattr(delta.obj, "obj", None))
                    notes.append(Notification(Kind.DELETE, delta.obj))
            if first:
                notes.append(SYNCED)
            for listener in self._listeners:
                listener.add_many(notes)
            self._synced.set()
            metrics.STORE_SIZE.labels(self.name).set(len(self._indexer))
        if not first:
            changed = sum(1 for d in deltas if d.type is not DeltaType.UPDATED
                          or resource_version(d.old) != resource_version(d.obj))
            self._log.info("relisted", count=len(objs), changes=changed, resource_version=resource_version_)

    def apply(self, event_type: str, obj: Obj) -> None:
        _key, obj = self._prepare(obj)
        with self._lock:
            if event_type == "DELETED":
                old = self._indexer.delete(obj)
                if old is None:
                    return  # never known (or already removed): nothing to tell
                self._untrack(old)
                note = Notification(Kind.DELETE, obj)
            else:
                old = self._indexer.add(obj)
                self._untrack(old)
                self._track(obj)
                if old is None:
                    note = Notification(Kind.ADD, obj)
                elif resource_version(old) == resource_version(obj):
                    return  # same version replayed: nothing changed
                else:
                    note = Notification(Kind.UPDATE, obj, old)
            for listener in self._listeners:
                listener.add(note)
            metrics.STORE_SIZE.labels(self.name).set(len(self._indexer))

    def _track(self, obj: Obj) -> None:
        if self._mutations is not None:
            self._mutations.track(self._indexer.key_of(obj), obj)

    def _untrack(self, obj: Obj | None) -> None:
        if self._mutations is not None:
            self._mutations.release(obj)

    # -- resync -------------------------------------------------------------------------------------------------
    def _resync_loop(self) -> None:
        while not self._stop.is_set() and not self._synced.wait(1.0):
            pass
        while not self._stop.is_set():
            with self._resync_cond:
                with self._lock:
                    upcoming = min((listener.next_resync for listener in self._listeners), default=float("inf"))
                wait = min(max(upcoming - time.monotonic(), 0.0), _RESYNC_IDLE)
                if wait > 0:
                    self._resync_cond.wait(wait)
            if self._stop.is_set():
                return
            self._resync_due()

    def _resync_due(self) -> None:
        with self._lock:
            now = time.monotonic()
            due = [listener for listener in self._listeners if listener.resync_due(now)]
            if not due:
                return
            notes = [Notification(Kind.UPDATE, obj, obj) for obj in self._indexer.list()]
            for listener in due:
                listener.add_many(notes)
                listener.schedule_next_resync(now)
        metrics.LAST_RESYNC.labels(self.name).set(time.time())
        if self._mutations is not None:
            self._mutations.check_all()
