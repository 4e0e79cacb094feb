"""The per-record TXT registry: external-dns' `TXTRegistry`, configured with dns-operator's TXT names.

A DNSRecord's records are owned by its owner ID; the ownership TXT of `app.example.com A` is
`kuadrant-<base36hash(ownerID, 8)>-a-app.example.com` (prefix `kuadrant-<hash>-`, then the external-dns
`<type>-` on the first label; wildcard `*` replaced by `wildcard`). Another owner's TXT names carry another
hash, so they never parse as ours, and records owned by anyone else (other DNSRecords, the zone-wide
controller's `--txt-owner-id`) are never updated or deleted by the plan's owner filter.

A reconcile reads through a `SubtreeView`: the names under the record's rootHost (and their possible
ownership TXT names) out of the provider's per-zone snapshot (found through a `SubtreeIndex`), so a pass costs
the snapshot's freshness check and the record's own names, not a read of the whole provider nor a scan of
its zone.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Sequence

from external_dns.controller.dnsrecord.types import base36_hash
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import (
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_MX,
    RECORD_TYPE_NS,
    RECORD_TYPE_SRV,
    RECORD_TYPE_TXT,
    Endpoint,
)
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.providers.snapshot import ZoneSnapshot, name_key
from external_dns.registry.txt import TXTRegistry

TXT_PREFIX = "kuadrant-"
WILDCARD_REPLACEMENT = "wildcard"
# dns-operator manages A, AAAA, CNAME and NS; TXT, MX and SRV endpoints are served too.
MANAGED_RECORD_TYPES = (RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_CNAME, RECORD_TYPE_NS, RECORD_TYPE_TXT,
                        RECORD_TYPE_MX, RECORD_TYPE_SRV)


def txt_prefix(owner_id: str) -> str:
    """`kuadrant-<base36hash(owner_id, 8)>-`."""
    return f"{TXT_PREFIX}{base36_hash(owner_id, 8)}-"


def record_registry(provider: Provider, owner_id: str) -> TXTRegistry:
    """A TXT registry owned by `owner_id` with dns-operator's TXT name format (fresh per reconcile: it keeps
    the TXT values it read for the write that follows)."""
    return TXTRegistry(provider, prefix=txt_prefix(owner_id), owner_id=owner_id,
                       wildcard_replacement=WILDCARD_REPLACEMENT, managed_record_types=MANAGED_RECORD_TYPES)


class SubtreeIndex:
    """The names of one zone snapshot sorted by their labels reversed (`com.example.app`), so the names at or
    under a rootHost are one bisected range: a reconcile costs its own names, not a scan of the zone. Kept in
    step with the snapshot through its journal (`changed_since`): only the names that moved are redone; a
    new snapshot object or a journal that no longer reaches back rebuilds it. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snap: ZoneSnapshot | None = None
        self._version = -1
        self._keys: list[str] = []

    def under(self, snap: ZoneSnapshot, root: str) -> list[str]:
        """The names of `snap` equal to `root` or below it (name keys)."""
        rk = _reverse(root)
        with self._lock:
            self._follow(snap)
            lo = bisect.bisect_left(self._keys, rk + ".")
            hi = bisect.bisect_left(self._keys, rk + "/", lo)  # "/" sorts right after "."
            out = [_reverse(k) for k in self._keys[lo:hi]]
        if snap.get(root):
            out.append(root)
        return out

    def _follow(self, snap: ZoneSnapshot) -> None:
        version = snap.version  # read first: a change after it is journalled again for the next call
        changed = snap.changed_since(self._version) if snap is self._snap and self._version >= 0 else None
        if changed is None:
            self._keys = sorted(_reverse(n) for n in snap.names())
        else:
            keys = self._keys
            for name in changed:
                key = _reverse(name_key(name))
                i = bisect.bisect_left(keys, key)
                held = i < len(keys) and keys[i] == key
                if snap.get(name):
                    if not held:
                        keys.insert(i, key)
                elif held:
                    del keys[i]
        self._snap, self._version = snap, version


def _reverse(name: str) -> str:
    return ".".join(reversed(name.split(".")))


class SubtreeView(Provider):
    """What one DNSRecord's plan reads, taken from the provider's zone snapshot instead of a full provider
    read: the records at or under `root_host` and at the names of `desired`, plus the records at every
    ownership TXT name those names can have (each managed type, the legacy `cname-` and the old format
    without a type). The plan only looks at names under `root_host` (its domain filter), and the TXT registry
    only attaches labels from TXTs at those TXT names, so the result is the full read's. A batch passes the
    `snapshot` (and `domain_filter`) it read once for all its records (reconcile.py) instead of a freshness
    check per record (an SOA query on RFC2136). Zones, adjustment and
    the domain filter are the provider's. `read_names` holds the names read (for the batch's overlap check).

    Writes go to the provider, or with `collect=True` are kept in `collected` (the registry's changes with
    their ownership TXTs) for one provider write shared by a batch of records (reconcile.py)."""

    def __init__(self, provider: Provider, zone: str, root_host: str, desired: Iterable[str] = (), *,
                 index: SubtreeIndex | None = None, collect: bool = False,
                 snapshot: ZoneSnapshot | None = None, domain_filter: DomainFilter | None = None) -> None:
        self.provider = provider
        self.snapshot = snapshot  # the zone as a batch's round read it (None: read it now)
        self.domain_filter = domain_filter  # the provider's, as the round read it (None: ask it now)
        self.zone = zone
        self.root = name_key(root_host)
        self.desired = [name_key(n) for n in desired]
        self.index = index
        self.collect = collect
        self.collected: Changes | None = None
        self.read_names: set[str] = set()
        self.to_txt_name: Callable[[str, str], str] | None = None  # set by `view_registry`

    def records(self) -> list[Endpoint]:
        snap = self.snapshot if self.snapshot is not None else self.provider.zone_snapshot(self.zone)
        if self.index is not None:
            names = set(self.index.under(snap, self.root))
        else:
            names = {n for n in snap.names() if n == self.root or n.endswith("." + self.root)}
        names.update(self.desired)
        if self.to_txt_name is not None:
            to_txt = self.to_txt_name
            names |= {name_key(to_txt(n, t)) for n in list(names) for t in (*MANAGED_RECORD_TYPES, "")}
        self.read_names |= names
        return [ep.copy() for n in names for ep in snap.get(n)]

    def apply_changes(self, changes: Changes) -> None:
        if self.collect:
            self.collected = changes
            return
        self.provider.apply_changes(changes)

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        return self.provider.adjust_endpoints(endpoints)

    def get_domain_filter(self) -> DomainFilter:
        return self.domain_filter if self.domain_filter is not None else self.provider.get_domain_filter()

    def zones(self) -> Sequence[str]:
        return self.provider.zones()

    def record_default_ttl(self, zone: str) -> int:
        return self.provider.record_default_ttl(zone)


class Collecting(Provider):
    """A provider whose writes are kept in `collected` instead of sent (reads go to `provider`): a custom
    registry's changes joined into a batch's one write."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.collected: Changes | None = None

    def records(self) -> list[Endpoint]:
        return self.provider.records()

    def apply_changes(self, changes: Changes) -> None:
        self.collected = changes

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        return self.provider.adjust_endpoints(endpoints)

    def get_domain_filter(self) -> DomainFilter:
        return self.provider.get_domain_filter()

    def zones(self) -> Sequence[str]:
        return self.provider.zones()

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        return self.provider.zone_snapshot(zone)

    def record_default_ttl(self, zone: str) -> int:
        return self.provider.record_default_ttl(zone)


def subtree_registry(provider: Provider, owner_id: str, zone: str, root_host: str, desired: Iterable[str] = (), *,
                     index: SubtreeIndex | None = None, collect: bool = False, snapshot: ZoneSnapshot | None = None,
                     domain_filter: DomainFilter | None = None) -> tuple[TXTRegistry, SubtreeView]:
    """`record_registry` over a `SubtreeView` of `zone` for `root_host` (and the `desired` names), and the
    view."""
    view = SubtreeView(provider, zone, root_host, desired, index=index, collect=collect, snapshot=snapshot,
                       domain_filter=domain_filter)
    registry = record_registry(view, owner_id)
    view.to_txt_name = registry.mapper.to_txt_name
    return registry, view


def view_registry(provider: Provider, owner_id: str, zone: str, root_host: str,
                  desired: Iterable[str] = ()) -> TXTRegistry:
    """`record_registry` over a `SubtreeView` of `zone` for `root_host` (and the `desired` names)."""
    return subtree_registry(provider, owner_id, zone, root_host, desired)[0]
