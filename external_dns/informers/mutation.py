"""Debug aid: detects handlers that mutate cached objects (client-go's cache mutation detector).

Enabled per informer (`detect_mutation=True`) or for all with EXTERNAL_DNS_CACHE_MUTATION_DETECTOR=true.
It fingerprints each object entering the cache and checks the fingerprint when the object leaves it
(update, delete, relist) and on `check_all()`; a mismatch is logged as an error and recorded in
`mutations` (keys), or raised as `CacheMutationError` with `strict=True`. Costs one JSON dump per write.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading

import structlog

from external_dns.informers.keys import Obj

log = structlog.get_logger(__name__)

ENV = "EXTERNAL_DNS_CACHE_MUTATION_DETECTOR"


def enabled_by_env() -> bool:
    return os.environ.get(ENV, "").lower() in ("1", "true", "yes")


class CacheMutationError(RuntimeError):
    """A cached object changed after it entered the cache (a handler modified it)."""


def _fingerprint(obj: Obj) -> bytes:
    return hashlib.blake2b(json.dumps(obj, sort_keys=True, default=str).encode(), digest_size=16).digest()


class MutationDetector:
    def __init__(self, name: str, strict: bool = False) -> None:
        self.name, self.strict = name, strict
        self._prints: dict[int, tuple[str, Obj, bytes]] = {}
        self._lock = threading.Lock()
        self.mutations: list[str] = []

    def track(self, key: str, obj: Obj) -> None:
        with self._lock:
            self._prints[id(obj)] = (key, obj, _fingerprint(obj))

    def release(self, obj: Obj | None) -> None:
        """The object left the cache: verify it is unchanged and stop tracking it."""
        if obj is None:
            return
        with self._lock:
            entry = self._prints.pop(id(obj), None)
        if entry is not None and entry[1] is obj:
            self._verify(*entry)

    def check_all(self) -> list[str]:
        with self._lock:
            entries = list(self._prints.values())
        before = len(self.mutations)
        for key, obj, fingerprint in entries:
            if not self._verify(key, obj, fingerprint):
                self.track(key, obj)  # report each change once
        return self.mutations[before:]

    def _verify(self, key: str, obj: Obj, fingerprint: bytes) -> bool:
        if _fingerprint(obj) == fingerprint:
            return True
        self.mutations.append(key)
        log.error("cached object was mutated (handlers must copy before changing)", informer=self.name, key=key)
        if self.strict:
            raise CacheMutationError(f"{self.name}: cached object {key} was mutated")
        return False
