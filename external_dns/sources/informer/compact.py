"""Compact read-only mappings for the leaves of cached objects (a dict costs at least 184 bytes; a
`CompactMapping` with n keys costs 32 + 8n).

`compact(mapping)` returns an immutable `collections.abc.Mapping` holding the same items in slots of a
class made once per key tuple (keys in order; classes are cached, at most `MAX_SHAPES`, after which plain
dicts are returned). It reads like a dict (`get`, `[]`, `in`, `items`, `==` with dicts, `repr`), copies
and pickles as one, and cannot be changed, which suits informer caches (cached objects are read-only).
Only `metadata` and the top level of a cached object must stay real dicts (the informer keys objects by
them); the object -> endpoints code reads every other level through `Mapping`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from operator import attrgetter
from typing import Any, ClassVar

MAX_SHAPES = 4096
_MAX_KEYS = 16


class CompactMapping(Mapping[str, Any]):
    """Base of the generated per-shape classes."""

    __slots__ = ()
    _keys: ClassVar[tuple[str, ...]] = ()
    _index: ClassVar[dict[str, int]] = {}
    _getters: ClassVar[tuple[Any, ...]] = ()

    def __getitem__(self, key: str) -> Any:
        i = self._index.get(key) if isinstance(key, str) else None
        if i is None:
            raise KeyError(key)
        return self._getters[i](self)

    def get(self, key: str, default: Any = None) -> Any:
        i = self._index.get(key) if isinstance(key, str) else None
        return default if i is None else self._getters[i](self)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._keys, tuple(g(self) for g in self._getters)))

    def __copy__(self) -> CompactMapping:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        import copy

        return _rebuild(self._keys, tuple(copy.deepcopy(g(self), memo) for g in self._getters))


_shapes: dict[tuple[str, ...], type[CompactMapping]] = {}
_lock = threading.Lock()


def _shape(keys: tuple[str, ...]) -> type[CompactMapping] | None:
    cls = _shapes.get(keys)
    if cls is not None:
        return cls
    with _lock:
        cls = _shapes.get(keys)
        if cls is None:
            if len(_shapes) >= MAX_SHAPES:
                return None
            slots = tuple(f"_{i}" for i in range(len(keys)))
            cls = type("CompactMapping", (CompactMapping,), {
                "__slots__": slots, "_keys": keys, "_index": {k: i for i, k in enumerate(keys)},
                "_getters": tuple(attrgetter(s) for s in slots)})
            _shapes[keys] = cls
    return cls


def _rebuild(keys: tuple[str, ...], values: tuple[Any, ...]) -> Mapping[str, Any]:
    cls = _shape(keys)
    if cls is None:
        return dict(zip(keys, values, strict=True))
    obj = object.__new__(cls)
    slots: tuple[str, ...] = cls.__slots__
    for slot, value in zip(slots, values, strict=True):
        object.__setattr__(obj, slot, value)
    return obj


def compact(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    """An immutable compact copy of `mapping` (itself when it is compact already; a dict when it has non-string
    or too many keys, or when the shape cache is full)."""
    if isinstance(mapping, CompactMapping):
        return mapping
    keys = tuple(mapping)
    if not keys or len(keys) > _MAX_KEYS or not all(isinstance(k, str) for k in keys):
        return dict(mapping)
    return _rebuild(keys, tuple(mapping[k] for k in keys))
