"""Thread-safe object cache with indexers (client-go `ThreadSafeStore` + `Indexer`).

Objects are raw JSON dicts keyed `namespace/name`. An index function maps an object to a list of values;
`by_index(name, value)` returns the objects holding that value. Index functions may only be added before
the owning informer starts (`InformerStartedError` afterwards), the safe client-go contract.

`replace(items)` swaps in a full list and returns what changed as `Delta`s: DELETED tombstones
(`DeletedFinalStateUnknown` carrying the last known state) for keys gone since the last list first, then
ADDED / UPDATED in list order. Cached objects are shared with every handler and are read-only: copy
before changing anything (see `external_dns.informers.mutation` for a detector).

Memory: an index value held by one object (a per-object index such as `namespace/name`) maps to that key
alone, not to a one-element set (a set costs 216 bytes); a value equal to the key shares the key's string.
"""

from __future__ import annotations

import builtins
import enum
import threading
from collections.abc import Callable, Iterable
from typing import NamedTuple

import structlog

from external_dns.informers.keys import DeletedFinalStateUnknown, Obj, meta_namespace_key

log = structlog.get_logger(__name__)

IndexFunc = Callable[[Obj], list[str]]
NAMESPACE_INDEX = "namespace"
_Bucket = str | set[str]  # the keys holding one index value: a key alone, or a set of two or more


def _bucket_keys(bucket: _Bucket | None) -> set[str] | tuple[str, ...]:
    if bucket is None:
        return ()
    return (bucket,) if isinstance(bucket, str) else bucket


def _bucket_add(index: dict[str, _Bucket], value: str, key: str) -> None:
    bucket = index.get(value)
    if bucket is None:
        index[key if value == key else value] = key
    elif isinstance(bucket, str):
        if bucket != key:
            index[value] = {bucket, key}
    else:
        bucket.add(key)


def _bucket_discard(index: dict[str, _Bucket], value: str, key: str) -> None:
    bucket = index.get(value)
    if isinstance(bucket, str):
        if bucket == key:
            del index[value]
    elif bucket is not None:
        bucket.discard(key)
        if len(bucket) == 1:
            index[value] = next(iter(bucket))
        elif not bucket:
            del index[value]


def namespace_index(obj: Obj) -> list[str]:
    """The object's namespace ("" for cluster-scoped objects) - client-go `MetaNamespaceIndexFunc`."""
    meta = obj.get("metadata") or {}
    return [str(meta.get("namespace") or "")]


class InformerStartedError(RuntimeError):
    """A change (indexers, transformers) that is only allowed before the informer starts."""

    def __init__(self) -> None:
        super().__init__("informer has already started")


class IndexNotFoundError(KeyError):
    """A lookup through an index name that was never added."""

    def __str__(self) -> str:
        return f"Index with name {self.args[0]} does not exist"


class IndexConflictError(ValueError):
    """`add_indexers` with a name that already exists."""


class DeltaType(enum.Enum):
    ADDED = "ADDED"
    UPDATED = "UPDATED"
    DELETED = "DELETED"


class Delta(NamedTuple):
    """One change applied to the store: `obj` is the new object (a tombstone for a relist DELETED),
    `old` the replaced one for UPDATED. (A tuple: a relist creates one per object.)"""

    type: DeltaType
    obj: Obj | DeletedFinalStateUnknown
    old: Obj | None = None


class Indexer:
    """Thread-safe `key -> object` map with secondary indices. All methods take the store lock."""

    def __init__(self, indexers: dict[str, IndexFunc] | None = None,
                 key_func: Callable[[Obj], str] = meta_namespace_key) -> None:
        self._lock = threading.RLock()
        self._items: dict[str, Obj] = {}
        self._indexers: dict[str, IndexFunc] = {}
        self._indices: dict[str, dict[str, _Bucket]] = {}
        self._key_func = key_func
        self._started = False
        if indexers:
            self.add_indexers(indexers)

    # -- configuration ----------------------------------------------------------------------------------
    def mark_started(self) -> None:
        """Called by the informer when it starts: `add_indexers` is refused from then on."""
        with self._lock:
            self._started = True

    def add_indexers(self, indexers: dict[str, IndexFunc]) -> None:
        with self._lock:
            if self._started:
                raise InformerStartedError()
            conflict = sorted(set(indexers) & set(self._indexers))
            if conflict:
                raise IndexConflictError(f"indexer conflict: {conflict}")
            for name, func in indexers.items():
                self._indexers[name] = func
                self._indices[name] = {}
                for key, obj in self._items.items():
                    self._index_one(name, func, key, obj)

    def get_indexers(self) -> dict[str, IndexFunc]:
        with self._lock:
            return dict(self._indexers)

    def key_of(self, obj: Obj) -> str:
        return self._key_func(obj)

    # -- writes ------------------------------------------------------------------------------------------
    def add(self, obj: Obj) -> Obj | None:
        """Insert or replace; returns the previous object for the key (None when new)."""
        key = self._key_func(obj)
        with self._lock:
            old = self._items.get(key)
            self._items[key] = obj
            self._update_indices(key, old, obj)
            return old

    update = add

    def delete(self, obj: Obj | DeletedFinalStateUnknown) -> Obj | None:
        """Remove the object's key; returns the removed object (None when it was not cached)."""
        key = obj.key if isinstance(obj, DeletedFinalStateUnknown) else self._key_func(obj)
        return self.delete_key(key)

    def delete_key(self, key: str) -> Obj | None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._update_indices(key, old, None)
            return old

    def replace(self, items: Iterable[Obj]) -> builtins.list[Delta]:
        """Make the store hold exactly `items`; returns the deltas (deletions first, as tombstones)."""
        return self.replace_keyed({self._key_func(obj): obj for obj in items})

    def replace_keyed(self, fresh: dict[str, Obj]) -> builtins.list[Delta]:
        """`replace` for objects already keyed by this store's key function."""
        with self._lock:
            old_items = self._items
            deltas: builtins.list[Delta] = [Delta(DeltaType.DELETED, DeletedFinalStateUnknown(key, obj))
                      for key, obj in old_items.items() if key not in fresh]
            for key, obj in fresh.items():
                old = old_items.get(key)
                deltas.append(Delta(DeltaType.ADDED, obj) if old is None else Delta(DeltaType.UPDATED, obj, old))
            self._items = fresh
            self._indices = {name: {} for name in self._indexers}
            for name, func in self._indexers.items():
                for key, obj in fresh.items():
                    self._index_one(name, func, key, obj)
            return deltas

    # -- reads -------------------------------------------------------------------------------------------
    def get_by_key(self, key: str) -> Obj | None:
        with self._lock:
            return self._items.get(key)

    def get(self, obj: Obj) -> Obj | None:
        return self.get_by_key(self._key_func(obj))

    def list(self) -> builtins.list[Obj]:
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        with self._lock:
            return list(self._items)

    def items(self) -> builtins.list[tuple[str, Obj]]:
        with self._lock:
            return list(self._items.items())

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def index_keys(self, index_name: str, value: str) -> builtins.list[str]:
        with self._lock:
            index = self._indices.get(index_name)
            if index is None:
                raise IndexNotFoundError(index_name)
            return sorted(_bucket_keys(index.get(value)))

    def by_index(self, index_name: str, value: str) -> builtins.list[Obj]:
        with self._lock:
            return [self._items[k] for k in self.index_keys(index_name, value)]

    def index(self, index_name: str, obj: Obj) -> builtins.list[Obj]:
        """Objects sharing any value of `index_name` with `obj`."""
        with self._lock:
            func = self._indexers.get(index_name)
            if func is None:
                raise IndexNotFoundError(index_name)
            keys: set[str] = set()
            for value in self._safe_values(index_name, func, obj):
                keys.update(_bucket_keys(self._indices[index_name].get(value)))
            return [self._items[k] for k in sorted(keys)]

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        with self._lock:
            index = self._indices.get(index_name)
            if index is None:
                raise IndexNotFoundError(index_name)
            return sorted(index)

    # -- internals (lock held) ---------------------------------------------------------------------------
    @staticmethod
    def _safe_values(name: str, func: IndexFunc, obj: Obj) -> builtins.list[str]:
        try:
            return list(func(obj))
        except Exception as exc:  # a bad object must not break the cache for the others
            meta = obj.get("metadata") or {}
            log.error("index function failed; object left out of the index", index=name,
                      namespace=meta.get("namespace"), name=meta.get("name"), error=repr(exc))
            return []

    def _index_one(self, name: str, func: IndexFunc, key: str, obj: Obj) -> None:
        index = self._indices[name]
        for value in self._safe_values(name, func, obj):
            _bucket_add(index, value, key)

    def _update_indices(self, key: str, old: Obj | None, new: Obj | None) -> None:
        for name, func in self._indexers.items():
            old_values = self._safe_values(name, func, old) if old is not None else []
            new_values = self._safe_values(name, func, new) if new is not None else []
            if old_values == new_values:
                continue
            index = self._indices[name]
            for value in old_values:
                _bucket_discard(index, value, key)
            for value in new_values:
                _bucket_add(index, value, key)
