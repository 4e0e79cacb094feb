"""The in-memory provider (external-dns `provider/inmemory`): zones of records held in a dict, for tests,
demos and dry experiments. Zones are the names given (`--inmemory-zone`); a zone's ID is its name."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import structlog

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.plan.changes import Changes
from external_dns.providers.errors import (
    ChangeError,
    InvalidBatchRequestError,
    RecordAlreadyExistsError,
    RecordNotFoundError,
)
from external_dns.providers.provider import Provider, zone_for_name
from external_dns.providers.snapshot import ZoneSnapshot

log = structlog.get_logger(__name__)

Key = tuple[str, str, str]


class InMemoryError(ChangeError):
    """The in-memory provider's own errors (its zones); the record errors are every provider's (errors.py)."""


class ZoneAlreadyExistsError(InMemoryError):
    message = "specified zone already exists"


class ZoneNotFoundError(InMemoryError):
    message = "specified zone not found"


def _describe(ep: Endpoint) -> str:
    ident = f" (set {ep.set_identifier})" if ep.set_identifier else ""
    return f"{ep.dns_name} {ep.record_type}{ident}"


def _first_target_differs(stored: Endpoint, given: Endpoint) -> bool:
    if stored.targets and given.targets:
        return stored.targets[0] != given.targets[0]
    return list(stored.targets) != list(given.targets)


class _ZoneChanges:
    __slots__ = ("create", "delete", "update_new", "update_old")

    def __init__(self) -> None:
        self.create: list[Endpoint] = []
        self.update_new: list[Endpoint] = []
        self.update_old: list[Endpoint] = []
        self.delete: list[Endpoint] = []


class InMemoryProvider(Provider):
    """Records held in memory, zone by zone. Thread-safe."""

    def __init__(self, zones: Iterable[str] = (), domain_filter: DomainFilter | None = None) -> None:
        self._lock = threading.Lock()
        self._zones: dict[str, dict[Key, Endpoint]] = {}
        self._snapshots: dict[str, ZoneSnapshot] = {}  # kept in step with every write
        self._domain_filter = domain_filter
        for zone in zones:
            self.create_zone(zone)

    # -- zones ----------------------------------------------------------------------------------------------
    def create_zone(self, zone: str) -> None:
        """Add an empty zone; `specified zone already exists` if it is there."""
        name = zone.strip().rstrip(".").lower()
        if not name:
            raise ValueError("--inmemory-zone: zone name must not be empty")
        with self._lock:
            if name in self._zones:
                raise ZoneAlreadyExistsError(name)
            self._zones[name] = {}

    def zones(self) -> Sequence[str]:
        """The zone names, sorted; only those the domain filter (if any) accepts."""
        with self._lock:
            return self._zone_names()

    def _zone_names(self) -> list[str]:
        names = sorted(self._zones)
        if self._domain_filter is not None:
            names = [z for z in names if self._domain_filter.match(z)]
        return names

    def get_domain_filter(self) -> DomainFilter:
        """Names inside the zones (label boundary); with no zones, everything (as the base provider)."""
        return DomainFilter(include=self.zones())

    # -- records --------------------------------------------------------------------------------------------
    def zone_records(self, zone: str) -> list[Endpoint]:
        """Copies of one zone's records; `specified zone not found` for an unknown zone."""
        with self._lock:
            records = self._zones.get(name_key(zone))
            if records is None:
                raise ZoneNotFoundError(zone)
            return [ep.copy() for ep in records.values()]

    def records(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        for zone in self.zones():
            out.extend(self.zone_records(zone))
        return out

    # -- changes --------------------------------------------------------------------------------------------
    def _route(self, changes: Changes) -> dict[str, _ZoneChanges]:
        """Each endpoint to the zone with the longest name that holds it on a label boundary (a departure:
        upstream matches any suffix, so `badexample.org` would be in `example.org`); endpoints in no zone
        are dropped, as upstream."""
        zones = self._zone_names()
        per_zone: dict[str, _ZoneChanges] = {}
        for attr in ("create", "update_new", "update_old", "delete"):
            for ep in getattr(changes, attr):
                zone = zone_for_name(ep.dns_name, zones)
                if zone is None:
                    log.debug("Skipping record: no zone holds it", record=_describe(ep), change=attr)
                    continue
                getattr(per_zone.setdefault(zone, _ZoneChanges()), attr).append(ep)
        return per_zone

    def _validate(self, zone: str, zc: _ZoneChanges) -> None:
        """Upstream's checks: a create of an existing key -> `record already exists`; an update (new side) of
        a missing key, or an update (old side) / delete whose key is missing or whose first target differs
        -> `record not found`; one key twice across create / update-new / delete -> `invalid batch
        request`."""
        current = self._zones.get(zone)
        if current is None:
            raise ZoneNotFoundError(zone)
        mesh: set[Key] = set()

        def once(ep: Endpoint) -> None:
            if ep.key() in mesh:
                raise InvalidBatchRequestError(f"{_describe(ep)} appears more than once")
            mesh.add(ep.key())

        for ep in zc.create:
            if ep.key() in current:
                raise RecordAlreadyExistsError(_describe(ep))
            once(ep)
        for ep in zc.update_new:
            if ep.key() not in current:
                raise RecordNotFoundError(_describe(ep))
            once(ep)
        for ep in zc.update_old:
            stored = current.get(ep.key())
            if stored is None or _first_target_differs(stored, ep):
                raise RecordNotFoundError(_describe(ep))
        for ep in zc.delete:
            stored = current.get(ep.key())
            if stored is None or _first_target_differs(stored, ep):
                raise RecordNotFoundError(_describe(ep))
            once(ep)

    def apply_changes(self, changes: Changes) -> None:
        """Validate the whole batch, then write it (nothing is written when any check fails). A departure:
        upstream validates and applies zone by zone, so an error in the second zone leaves the first
        applied."""
        with self._lock:
            per_zone = self._route(changes)
            for zone in sorted(per_zone):
                self._validate(zone, per_zone[zone])
            for zone in sorted(per_zone):
                zc = per_zone[zone]
                records = self._zones[zone]
                for ep in zc.create:  # at debug: the controller logs each planned change once
                    log.debug(f"CREATE: {ep}", zone=zone)
                    records[ep.key()] = ep.copy()
                for ep in zc.update_old:
                    log.debug(f"UPDATE (old): {ep}", zone=zone)
                for ep in zc.update_new:
                    log.debug(f"UPDATE (new): {ep}", zone=zone)
                    records[ep.key()] = ep.copy()
                for ep in zc.delete:
                    log.debug(f"DELETE: {ep}", zone=zone)
                    records.pop(ep.key(), None)
                snap = self._snapshots.get(zone)
                if snap is not None:
                    snap.apply(Changes(create=zc.create, update_old=zc.update_old, update_new=zc.update_new,
                                       delete=zc.delete))

    cheap_snapshots = True  # zone_snapshot costs nothing: the snapshot follows every write

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        """The zone's snapshot, made on first use and then kept in step with every write."""
        name = name_key(zone)
        with self._lock:
            snap = self._snapshots.get(name)
            if snap is None:
                snap = ZoneSnapshot(name, [ep.copy() for ep in self._zones.get(name, {}).values()])
                self._snapshots[name] = snap
            return snap
