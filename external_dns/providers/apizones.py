"""What the SaaS DNS providers (cloudflare/, google/, azure/) share: the zone list reused for a while, and each
zone's records kept from its last full read so an event costs the writes it needs and no listing.

`KeptZonesProvider` holds, per zone, the provider's own records (native objects: record ids, etags) by DNS name,
read in full (the API's page count) at most once per `cache_seconds` (`--provider-cache-time`; 0 = every read
lists the zone, as external-dns). Within that window `zone_records` answers from memory; our own writes are folded
in from the API's answers, and a name whose state a write left unknown (a refusal, a failure mid-batch, a
timeout) is marked dirty and read again by name (one request) before it is used. A subclass supplies the
listing, the read by name, the name of a native record and the conversion to endpoints.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import structlog

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import name_key, zone_for_name
from external_dns.errors import ConfigError
from external_dns.providers.errors import ProviderError
from external_dns.providers.provider import Provider

log = structlog.get_logger(__name__)

R = TypeVar("R")  # a provider's native record (a Cloudflare record, a Google or Azure record set)
Z = TypeVar("Z", bound="APIZone")

NEVER = DomainFilter(regex=r"[^\s\S]")  # no zone: nothing may be planned (an RE2 never-match)


@dataclass(frozen=True)
class APIZone:
    """A zone as the API names it: `name` lower case without the trailing dot, `id` what requests take."""

    name: str
    id: str


@dataclass
class KeptZone(Generic[R]):
    read_at: float
    by_name: dict[str, list[R]] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    name_read_at: dict[str, float] = field(default_factory=dict)  # names read alone (or written) since


class KeptZonesProvider(Provider, Generic[Z, R]):
    """See the module docstring. Thread-safe: one lock guards the kept state; API calls run outside it."""

    def __init__(self, cache_seconds: float, zones_cache_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cache_seconds = cache_seconds
        self.zones_cache_seconds = zones_cache_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._zones: tuple[tuple[Z, ...], float] | None = None
        self._kept: dict[str, KeptZone[R]] = {}

    # -- what a provider supplies ---------------------------------------------------------------------------
    @abstractmethod
    def _list_zones(self) -> Iterable[Z]:
        """Every zone the filters let through."""

    @abstractmethod
    def _list_records(self, zone: Z) -> Iterable[R]:
        """Every record of the zone (all pages)."""

    @abstractmethod
    def _read_name(self, zone: Z, name: str) -> list[R]:
        """The records at one name (one request where the API allows it)."""

    @abstractmethod
    def _record_name(self, record: R) -> str:
        """The DNS name of a native record."""

    @abstractmethod
    def _to_endpoints(self, zone: Z, records: list[R]) -> list[Endpoint]:
        """The endpoints of the records at one name."""

    # -- zones ----------------------------------------------------------------------------------------------
    def api_zones(self) -> tuple[Z, ...]:
        """The managed zones, longest name first; the API's list is reused for `zones_cache_seconds`."""
        with self._lock:
            if self._zones is not None and self._clock() - self._zones[1] < self.zones_cache_seconds:
                return self._zones[0]
        zones = tuple(sorted(self._list_zones(), key=lambda z: (-len(z.name), z.name)))
        with self._lock:
            self._zones = (zones, self._clock())
        return zones

    def forget_zones(self) -> None:
        with self._lock:
            self._zones = None

    def zones(self) -> Sequence[str]:
        return tuple(sorted(z.name for z in self.api_zones()))

    def zone_of(self, name: str) -> Z | None:
        zones = self.api_zones()
        found = zone_for_name(name, [z.name for z in zones])
        return next((z for z in zones if z.name == found), None) if found is not None else None

    def get_domain_filter(self) -> DomainFilter:
        try:
            zones = self.api_zones()
        except ProviderError as exc:
            log.error(f"failed to list zones: {exc}")
            return DomainFilter()
        if not zones:
            return NEVER
        return DomainFilter(include=[n for z in sorted(zones, key=lambda z: z.name)
                                     for n in (z.name + ".", "." + z.name + ".")])

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        for zone in self.api_zones():
            out.extend(self._zone_endpoints(zone))
        return out

    def zone_records(self, zone: str) -> list[Endpoint]:
        wanted = name_key(zone)
        for z in self.api_zones():
            if z.name == wanted:
                return self._zone_endpoints(z)
        return []

    def _zone_endpoints(self, zone: Z) -> list[Endpoint]:
        kept = self._fresh(zone)
        out: list[Endpoint] = []
        for records in kept.by_name.values():
            out.extend(self._to_endpoints(zone, records))
        return out

    def _fresh(self, zone: Z) -> KeptZone[R]:
        """The zone's kept records, listed again when older than `cache_seconds`, dirty names read again."""
        with self._lock:
            kept = self._kept.get(zone.name)
            stale = kept is None or self._clock() - kept.read_at >= self.cache_seconds
        if stale:
            started = self._clock()
            by_name: dict[str, list[R]] = {}
            for record in self._list_records(zone):
                by_name.setdefault(name_key(self._record_name(record)), []).append(record)
            kept = KeptZone(started, by_name)
            with self._lock:
                self._kept[zone.name] = kept
            return kept
        assert kept is not None
        self._reread_dirty(zone, kept)
        return kept

    def _reread_dirty(self, zone: Z, kept: KeptZone[R]) -> None:
        with self._lock:
            names, kept.dirty = set(kept.dirty), set()
        for name in sorted(names):
            try:
                records = self._read_name(zone, name)
            except BaseException:
                with self._lock:
                    kept.dirty |= names
                raise
            with self._lock:
                self._put(kept, name, records)
                names.discard(name)

    def kept_at(self, zone: Z, name: str) -> list[R] | None:
        """The kept records at `name` (None when the zone was never read or the name is dirty)."""
        with self._lock:
            kept = self._kept.get(zone.name)
            key = name_key(name)
            if kept is None or key in kept.dirty:
                return None
            return list(kept.by_name.get(key, ()))

    def current_at(self, zone: Z, name: str, max_age: float | None = None) -> list[R]:
        """The records at `name`: kept, or read by name (and kept) when not known or, with `max_age`, when
        what is kept of the name is older than that many seconds (a write about to change records the API
        cannot guard with a precondition)."""
        records = self.kept_at(zone, name)
        if records is not None and max_age is not None:
            with self._lock:
                kept = self._kept.get(zone.name)
                seen = max(kept.read_at, kept.name_read_at.get(name_key(name), kept.read_at)) if kept else 0.0
            if self._clock() - seen > max_age:
                records = None
        if records is not None:
            return records
        records = self._read_name(zone, name)
        self.store(zone, name, records)
        return records

    # -- following our writes -------------------------------------------------------------------------------
    def store(self, zone: Z, name: str, records: Sequence[R]) -> None:
        """The records now at `name` (an API answer); ignored when the zone is not kept."""
        with self._lock:
            kept = self._kept.get(zone.name)
            if kept is not None:
                self._put(kept, name, list(records))
                kept.dirty.discard(name_key(name))
                kept.name_read_at[name_key(name)] = self._clock()

    def mark_dirty(self, zone: Z, names: Iterable[str]) -> None:
        """Names whose state a write left unknown: read again by name before the next use."""
        with self._lock:
            kept = self._kept.get(zone.name)
            if kept is not None:
                kept.dirty.update(name_key(n) for n in names)

    def forget(self) -> None:
        """Drop every kept zone (the next read lists them)."""
        with self._lock:
            self._kept.clear()

    @staticmethod
    def _put(kept: KeptZone[R], name: str, records: list[R]) -> None:
        key = name_key(name)
        if records:
            kept.by_name[key] = records
        else:
            kept.by_name.pop(key, None)


class APIAuthError(ProviderError, ConfigError):
    """The API refused our credentials (401/403): retrying cannot help, the process ends (external-dns: a
    non-soft error is fatal) and Kubernetes restarts it with back-off."""


MAX_REPORTED = 20  # refusals quoted in the error that ends an apply


def refused_error(vendor: str, refused: Sequence[str]) -> ProviderError:
    """The error ending an apply whose other changes went through: every refusal counted, the first quoted."""
    more = f" (and {len(refused) - MAX_REPORTED} more)" if len(refused) > MAX_REPORTED else ""
    return ProviderError(f"{vendor} refused {len(refused)} change(s): " + "; ".join(refused[:MAX_REPORTED]) + more)


class RequestRefused(Exception):
    """The API refused a whole (transactional) write request as invalid; nothing of it was applied."""


OpT = TypeVar("OpT")  # one write operation of a provider


@dataclass
class WriteGroup(Generic[OpT]):
    """Operations that travel together: a record, its ownership TXT, everything at one name."""

    key: str
    names: set[str] = field(default_factory=set)
    ops: list[OpT] = field(default_factory=list)


def chunk_groups(groups: Sequence[WriteGroup[OpT]], limit: int) -> list[list[WriteGroup[OpT]]]:
    """Groups packed in order into requests of at most `limit` operations (a larger group goes alone)."""
    chunks: list[list[WriteGroup[OpT]]] = []
    size = 0
    for group in groups:
        if not chunks or size + len(group.ops) > limit:
            chunks.append([])
            size = 0
        chunks[-1].append(group)
        size += len(group.ops)
    return chunks


def send_bisecting(chunk: list[WriteGroup[OpT]], send: Callable[[list[WriteGroup[OpT]]], None]
                   ) -> tuple[list[WriteGroup[OpT]], list[tuple[WriteGroup[OpT], str]], int]:
    """Send `chunk` as one transactional request; when the API refuses it, send each half again until the
    refused groups stand alone (one refused record never blocks the rest: k refusals cost O(k log n) requests).
    Returns (groups applied, (group, reason) refused, requests sent). Other errors (SoftError) propagate."""
    try:
        send(chunk)
        return chunk, [], 1
    except RequestRefused as exc:
        if len(chunk) == 1:
            return [], [(chunk[0], str(exc))], 1
    mid = len(chunk) // 2
    done: list[WriteGroup[OpT]] = []
    refused: list[tuple[WriteGroup[OpT], str]] = []
    sent = 1
    for half in (chunk[:mid], chunk[mid:]):
        h_done, h_refused, h_sent = send_bisecting(half, send)
        done += h_done
        refused += h_refused
        sent += h_sent
    return done, refused, sent
