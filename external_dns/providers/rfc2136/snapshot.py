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

Memory: one flat tuple per name, `(type, ttl, targets, name as spelled, type, ...)`, four slots per record set,
keyed by the lower-case name (the spelled name shares that string when they are equal); a record set of one
target holds the target string itself, not a one-element tuple (64 bytes less: 12 MiB for a zone of 100k
records and their TXT). A 100k-record zone is held in ~140 bytes per record set plus its strings.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.gcsettings import gc_paused
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot

MAX_AGE = 3600.0  # seconds


# A name's record sets: (type, ttl, targets, name as the server spells it (no trailing dot)) repeated, in the
# order they were added; targets are a string for one target (`_held`), else a tuple. Immutable tuples of strings: the garbage collector stops tracking them, so a big
# snapshot adds nothing to the cost of every collection.
_Node = tuple[Any, ...]
_STRIDE = 4


def _find(node: _Node, rtype: str) -> int:
    """The offset of `rtype`'s record set in `node`, or -1."""
    for i in range(0, len(node), _STRIDE):
        if node[i] == rtype:
            return i
    return -1


def _targets(held: str | tuple[str, ...]) -> tuple[str, ...]:
    """A record set's targets as a tuple (see `_held`)."""
    return (held,) if isinstance(held, str) else held


def _held(targets: tuple[str, ...]) -> str | tuple[str, ...]:
    """What a node holds for `targets`: the string alone for one target (never a one-element tuple)."""
    return targets[0] if len(targets) == 1 else targets


def _lower(name: str) -> str:
    low = name.lower()
    return name if low == name else low  # one string when the spelling is lower case already


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
        self._nodes: dict[str, _Node] = {}  # lower-case name -> its record sets (see _Node)
        self._count = 0  # record sets
        self.touched: set[str] = set()  # lower-case names changed since `take_touched` (for by-name readers)

    def fresh(self) -> bool:
        return time.monotonic() - self.taken_at < MAX_AGE

    def add(self, name: str, rtype: str, ttl: int, targets: Iterable[str]) -> None:
        key = _lower(name)
        self.touched.add(key)
        node = self._nodes.get(key, ())
        spelled = key if name == key else name
        i = _find(node, rtype)
        if i < 0:
            self._nodes[key] = (*node, rtype, ttl, _held(tuple(dict.fromkeys(targets))), spelled)
            self._count += 1
            return
        old = _targets(node[i + 2])
        merged = old + tuple(t for t in dict.fromkeys(targets) if t not in old)
        self._nodes[key] = (*node[:i], rtype, ttl, _held(merged), node[i + 3], *node[i + _STRIDE:])

    def remove(self, name: str, rtype: str, targets: list[str] | None) -> None:
        """Remove targets (None = the whole rrset); an emptied rrset disappears."""
        key = _lower(name)
        node = self._nodes.get(key, ())
        i = _find(node, rtype)
        if i < 0:
            return
        self.touched.add(key)
        old = _targets(node[i + 2])
        left = () if targets is None else tuple(t for t in old if t not in targets)
        if left:
            self._nodes[key] = (*node[:i], rtype, node[i + 1], _held(left), node[i + 3], *node[i + _STRIDE:])
            return
        rest = (*node[:i], *node[i + _STRIDE:])
        self._count -= 1
        if rest:
            self._nodes[key] = rest
        else:
            del self._nodes[key]

    def apply_message(self, removals: list[Removal], additions: list[Addition]) -> bool:
        """Fold one successful UPDATE (removals first, as sent). False when the server's result is uncertain;
        the snapshot must then be dropped."""
        touched: set[str] = set()
        for r in removals:
            if r.rtype == "NS" and r.name.lower() == self.zone:
                return False
            self.remove(r.name, r.rtype, r.targets)
        for a in additions:
            key_name = _lower(a.name)
            existing = self._nodes.get(key_name)
            # The server keeps the spelling of an existing node.
            display: str = existing[3] if existing else a.name
            self.add(display, a.rtype, a.ttl, a.targets)
            touched.add(key_name)
        for name in touched:
            node = self._nodes.get(name, ())
            if _find(node, "CNAME") >= 0 and len(node) > _STRIDE:
                return False
        return True

    def holds(self, name: str, rtype: str, targets: list[str], ttl: int) -> bool:
        """True when the rrset exists with exactly these targets (in any order) and this TTL."""
        node = self._nodes.get(_lower(name.rstrip(".")), ())
        i = _find(node, rtype)
        return i >= 0 and node[i + 1] == ttl and sorted(_targets(node[i + 2])) == sorted(targets)

    def endpoints(self) -> list[Endpoint]:
        """Fresh endpoints (callers may change them)."""
        with gc_paused():
            return [ep for node in list(self._nodes.values()) for ep in _endpoints(node)]

    def endpoints_at(self, name: str) -> list[Endpoint]:
        """Fresh endpoints of the rrsets at one lower-case name (safe beside a writer thread: a node is replaced,
        never changed)."""
        return _endpoints(self._nodes.get(name, ()))

    def names(self) -> list[str]:
        return list(self._nodes)

    def same_at(self, other: ZoneSnapshot, name: str) -> bool:
        """Whether both snapshots hold the same record sets at `name` (in any order)."""
        mine, theirs = self._nodes.get(name, ()), other._nodes.get(name, ())
        if mine == theirs:
            return True
        return len(mine) == len(theirs) and _rrsets(mine) == _rrsets(theirs)

    def take_touched(self) -> set[str]:
        """The names changed since the last call (and forget them)."""
        touched, self.touched = self.touched, set()
        return touched

    def __len__(self) -> int:
        return self._count


def _endpoints(node: _Node) -> list[Endpoint]:
    return [Endpoint(dns_name=node[i + 3], record_type=node[i], targets=Targets(_targets(node[i + 2])), record_ttl=node[i + 1])
            for i in range(0, len(node), _STRIDE)]


def _rrsets(node: _Node) -> dict[str, _Node]:
    return {node[i]: node[i + 1:i + _STRIDE] for i in range(0, len(node), _STRIDE)}


class ByNameView(ByNameSnapshot):
    """The provider's by-name zone snapshot (providers/snapshot.py) as a view over its rrset snapshot: records
    are built when read, so the zone is held once. `follow(rrsets)` moves the view to the provider's current
    rrset snapshot and journals the names that changed (the names an IXFR or our own write touched; for a new
    transfer, the names whose record sets differ)."""

    fresh_records = True  # `get` builds the endpoints from the rrsets on every read

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
