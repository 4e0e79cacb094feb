"""Per-zone provider snapshots: one zone's records in memory, indexed by DNS name, with a version and a journal
of the names that changed, so readers (the TXT registry, the DNSRecord controller) redo only the names that
moved instead of re-reading the zone.

A provider keeps one `ZoneSnapshot` per zone and refreshes it as cheaply as it can prove exact (RFC2136: the
SOA serial and IXFR; zonefile: the file's stat key; Route53: `--provider-cache-time`; default: a full read
per call, diffed by name). Every change goes through `set_name` (one name's records replaced; no-op when
equal), so `version` moves only when something really changed and `changed_since(v)` names exactly what did.
A reload (`replace_all`) diffs by name: O(zone) only when the provider really changed underneath.
The journal keeps the last `JOURNAL` changed names; a reader further behind gets None and rebuilds.

Endpoints held here are shared, read-only: readers copy before changing one.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key as name_key  # re-exported: controller/ imports it from here
from external_dns.plan.changes import Changes

JOURNAL = 65_536  # changed names remembered for `changed_since`


def _sort_key(ep: Endpoint) -> tuple[str, str, str]:
    return (ep.record_type, ep.set_identifier, ep.dns_name)


class ZoneSnapshot:
    """One zone's records by name (see the module docstring). Thread-safe."""

    # True for a subclass whose `get`/`items` build new endpoints on every read (readers may keep and change
    # them without copying); this class hands out the objects it holds.
    fresh_records = False

    def __init__(self, zone: str, endpoints: Iterable[Endpoint] = ()) -> None:
        self.zone = zone
        self.version = 0
        self._lock = threading.Lock()
        self._by_name: dict[str, tuple[Endpoint, ...]] = {}
        self._journal: deque[tuple[int, str]] = deque(maxlen=JOURNAL)
        self._count = 0
        grouped = _group(endpoints)
        for key, eps in grouped.items():
            self._by_name[key] = eps
            self._count += len(eps)

    # -- reading --------------------------------------------------------------------------------------------
    def get(self, name: str) -> tuple[Endpoint, ...]:
        """The records at `name` (any case, trailing dot or not); () when none."""
        return self._by_name.get(name_key(name), ())

    def names(self) -> list[str]:
        with self._lock:
            return list(self._by_name)

    def items(self) -> list[tuple[str, tuple[Endpoint, ...]]]:
        """Every (name key, records) pair (shared objects: copy before changing one). A subclass keeping its
        records elsewhere (its own `get`/`names`) is read through those."""
        cls = type(self)
        if cls.get is not ZoneSnapshot.get or cls.names is not ZoneSnapshot.names:
            return [(name, self.get(name)) for name in self.names()]
        with self._lock:
            return list(self._by_name.items())

    def endpoints(self) -> list[Endpoint]:
        """Every record (shared objects: copy before changing one)."""
        with self._lock:
            return [ep for eps in self._by_name.values() for ep in eps]

    def __len__(self) -> int:
        return self._count

    def changed_since(self, version: int) -> set[str] | None:
        """Names whose records changed after `version`; None when the journal no longer reaches back there
        (the reader must rebuild from `endpoints()`)."""
        with self._lock:
            if version == self.version:
                return set()
            if version > self.version:
                return None
            if not self._journal or self._journal[0][0] > version + 1:
                return None
            out: set[str] = set()
            for v, name in reversed(self._journal):  # newest first: the cost is the changes, not the journal
                if v <= version:
                    break
                out.add(name)
            return out

    # -- writing --------------------------------------------------------------------------------------------
    def set_name(self, name: str, endpoints: Sequence[Endpoint]) -> bool:
        """Replace the records at `name` (all of them sit at that name); True when that changed anything."""
        key = name_key(name)
        new = tuple(sorted(endpoints, key=_sort_key))
        with self._lock:
            old = self._by_name.get(key, ())
            if old == new:
                return False
            if new:
                self._by_name[key] = new
            else:
                self._by_name.pop(key, None)
            self._count += len(new) - len(old)
            self.version += 1
            self._journal.append((self.version, key))
            return True

    def replace_all(self, endpoints: Iterable[Endpoint]) -> int:
        """Make the snapshot hold exactly `endpoints` (a fresh full read); returns the names that changed."""
        grouped = _group(endpoints)
        changed = 0
        for key in set(self._by_name) - set(grouped):
            changed += self.set_name(key, ())
        for key, eps in grouped.items():
            changed += self.set_name(key, eps)
        return changed

    def apply(self, changes: Changes) -> None:
        """Fold a successful write of `changes` in: deletes and update-olds removed by (type, set identifier),
        creates and update-news put in their place."""
        touched: dict[str, dict[tuple[str, str], Endpoint]] = {}

        def slot(ep: Endpoint) -> dict[tuple[str, str], Endpoint]:
            key = name_key(ep.dns_name)
            if key not in touched:
                touched[key] = {(e.record_type, e.set_identifier): e for e in self.get(key)}
            return touched[key]

        for ep in [*changes.delete, *changes.update_old]:
            slot(ep).pop((ep.record_type, ep.set_identifier), None)
        for ep in [*changes.create, *changes.update_new]:
            slot(ep)[(ep.record_type, ep.set_identifier)] = ep.copy()
        for key, records in touched.items():
            self.set_name(key, list(records.values()))


def _group(endpoints: Iterable[Endpoint]) -> dict[str, tuple[Endpoint, ...]]:
    grouped: dict[str, list[Endpoint]] = {}
    for ep in endpoints:
        grouped.setdefault(name_key(ep.dns_name), []).append(ep)
    return {k: (v[0],) if len(v) == 1 else tuple(sorted(v, key=_sort_key)) for k, v in grouped.items()}
