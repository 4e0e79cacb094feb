"""Zone snapshots for the RFC2136 provider, so that a sync whose zone did not change transfers nothing.

A snapshot is the last AXFR of a zone with its SOA serial. `records()` first asks for the SOA: an unchanged
serial means an unchanged zone (the server bumps the serial on every change), so the snapshot is served; a
moved serial is caught up by IXFR (only the differences; a full answer falls back to AXFR).
The provider's own writes are folded into the snapshot only when the serial proves nobody else wrote in
between: serial after == serial before + number of UPDATE messages (BIND's default
`serial-update-method increment`; another method simply never matches). Anything uncertain drops the
snapshot and the next read is a full AXFR: a serial mismatch, any failed message, or a write the server may
silently ignore (data next to a CNAME, removing apex NS). Snapshots older than `MAX_AGE` are re-read anyway.
Every change records its name in `touched`, so the provider's by-name zone snapshot
(providers/snapshot.py) is brought up to date name by name after an IXFR or our own write.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot
from external_dns.providers.snapshot import name_key

MAX_AGE = 3600.0  # seconds


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building tens of thousands of short-lived, cycle-free
    objects (zone transfers, endpoint lists, UPDATE rendering): each collection would scan everything
    alive, which costs more than the work itself. Collection resumes afterwards as before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Rrset(NamedTuple):
    """One record set. Immutable tuples of strings: the garbage collector stops tracking them, so a big
    snapshot adds nothing to the cost of every collection."""

    name: str  # as the server spells it, without the trailing dot
    ttl: int
    targets: tuple[str, ...]


@dataclass
class Removal:
    name: str
    rtype: str
    targets: list[str] | None  # None = the whole rrset


@dataclass
class Addition:
    name: str
    rtype: str
    ttl: int
    targets: list[str]


class ZoneSnapshot:
    """Record sets of one zone at one SOA serial."""

    def __init__(self, zone: str, serial: int, taken_at: float | None = None) -> None:
        self.zone = zone
        self.serial = serial
        self.taken_at = time.monotonic() if taken_at is None else taken_at
        self._rrsets: dict[tuple[str, str], _Rrset] = {}
        self._types: dict[str, tuple[str, ...]] = {}  # lower-case name -> record types present
        self.touched: set[str] = set()  # lower-case names changed since `take_touched` (for by-name readers)

    def fresh(self) -> bool:
        return time.monotonic() - self.taken_at < MAX_AGE

    def add(self, name: str, rtype: str, ttl: int, targets: Iterable[str]) -> None:
        key = (name.lower(), rtype)
        self.touched.add(key[0])
        rrset = self._rrsets.get(key)
        if rrset is None:
            self._rrsets[key] = _Rrset(name, ttl, tuple(dict.fromkeys(targets)))
            self._types[key[0]] = (*self._types.get(key[0], ()), rtype)
            return
        merged = rrset.targets + tuple(t for t in dict.fromkeys(targets) if t not in rrset.targets)
        self._rrsets[key] = _Rrset(rrset.name, ttl, merged)

    def remove(self, name: str, rtype: str, targets: list[str] | None) -> None:
        """Remove targets (None = the whole rrset); an emptied rrset disappears."""
        key = (name.lower(), rtype)
        rrset = self._rrsets.get(key)
        if rrset is None:
            return
        self.touched.add(key[0])
        left = () if targets is None else tuple(t for t in rrset.targets if t not in targets)
        if left:
            self._rrsets[key] = rrset._replace(targets=left)
            return
        del self._rrsets[key]
        types = tuple(t for t in self._types.get(key[0], ()) if t != rtype)
        if types:
            self._types[key[0]] = types
        else:
            self._types.pop(key[0], None)

    def apply_message(self, removals: list[Removal], additions: list[Addition]) -> bool:
        """Fold one successful UPDATE (removals first, as sent). False when the server's result is uncertain;
        the snapshot must then be dropped."""
        touched: set[str] = set()
        for r in removals:
            if r.rtype == "NS" and r.name.lower() == self.zone:
                return False
            self.remove(r.name, r.rtype, r.targets)
        for a in additions:
            key_name = a.name.lower()
            existing = self._types.get(key_name)
            # The server keeps the spelling of an existing node.
            display = self._rrsets[(key_name, existing[0])].name if existing else a.name
            self.add(display, a.rtype, a.ttl, a.targets)
            touched.add(key_name)
        for name in touched:
            types = self._types.get(name, ())
            if "CNAME" in types and len(types) > 1:
                return False
        return True

    def holds(self, name: str, rtype: str, targets: list[str], ttl: int) -> bool:
        """True when the rrset exists with exactly these targets (in any order) and this TTL."""
        rrset = self._rrsets.get((name.rstrip(".").lower(), rtype))
        return rrset is not None and rrset.ttl == ttl and sorted(rrset.targets) == sorted(targets)

    def endpoints(self) -> list[Endpoint]:
        """Fresh endpoints (callers may change them)."""
        with gc_paused():
            return [Endpoint(dns_name=r.name, record_type=rtype, targets=Targets(r.targets), record_ttl=r.ttl)
                    for (_n, rtype), r in list(self._rrsets.items())]

    def endpoints_at(self, name: str) -> list[Endpoint]:
        """Fresh endpoints of the rrsets at one lower-case name (safe beside a writer thread: a set removed
        meanwhile is skipped)."""
        out: list[Endpoint] = []
        for rtype in self._types.get(name, ()):
            r = self._rrsets.get((name, rtype))
            if r is not None:
                out.append(Endpoint(dns_name=r.name, record_type=rtype, targets=Targets(r.targets),
                                    record_ttl=r.ttl))
        return out

    def names(self) -> list[str]:
        return list(self._types)

    def same_at(self, other: ZoneSnapshot, name: str) -> bool:
        """Whether both snapshots hold the same record sets at `name`."""
        types = self._types.get(name, ())
        if sorted(types) != sorted(other._types.get(name, ())):
            return False
        return all(self._rrsets.get((name, t)) == other._rrsets.get((name, t)) for t in types)

    def take_touched(self) -> set[str]:
        """The names changed since the last call (and forget them)."""
        touched, self.touched = self.touched, set()
        return touched

    def __len__(self) -> int:
        return len(self._rrsets)


class ByNameView(ByNameSnapshot):
    """The provider's by-name zone snapshot (providers/snapshot.py) as a view over its rrset snapshot: records
    are built when read, so the zone is held once. `follow(rrsets)` moves the view to the provider's current
    rrset snapshot and journals the names that changed (the names an IXFR or our own write touched; for a new
    transfer, the names whose record sets differ)."""

    def __init__(self, zone: str) -> None:
        super().__init__(zone)
        self._rr: ZoneSnapshot | None = None

    def follow(self, rrsets: ZoneSnapshot) -> None:
        old, self._rr = self._rr, rrsets
        touched = rrsets.take_touched()
        if old is not rrsets:
            names = set(rrsets.names()) | (set(old.names()) if old is not None else set())
            touched = {n for n in names if old is None or not rrsets.same_at(old, n)}
        self.touch(touched)

    def touch(self, names: Iterable[str]) -> None:
        with self._lock:
            for name in names:
                self.version += 1
                self._journal.append((self.version, name))

    def empty(self) -> None:
        if self._rr is not None:
            self.touch(self._rr.names())
        self._rr = None

    def get(self, name: str) -> tuple[Endpoint, ...]:
        rr = self._rr
        return tuple(rr.endpoints_at(name_key(name))) if rr is not None else ()

    def names(self) -> list[str]:
        rr = self._rr
        return rr.names() if rr is not None else []

    def endpoints(self) -> list[Endpoint]:
        rr = self._rr
        return rr.endpoints() if rr is not None else []

    def __len__(self) -> int:
        rr = self._rr
        return len(rr) if rr is not None else 0
