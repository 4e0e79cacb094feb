"""The Provider interface every DNS backend implements (its errors: `errors.py`, re-exported here).

As external-dns `provider/provider.go`: `records()`, `apply_changes(changes)`, `adjust_endpoints(eps)`
(make desired endpoints look like what `records()` returns, so no perpetual updates) and
`get_domain_filter()`. Providers also declare their zones (`zones()`) so the controller can reconcile zone
by zone; a provider with no zone concept returns one zone named "" that holds everything.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence

from prometheus_client import REGISTRY, Metric

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import zone_for_name
from external_dns.metrics_http import declare_unsuffixed_counter
from external_dns.plan.changes import Changes
from external_dns.providers.errors import ProviderError, SoftError
from external_dns.providers.snapshot import ZoneSnapshot

__all__ = ["CachedProvider", "Provider", "ProviderError", "SoftError", "ensure_trailing_dot", "zone_for_name"]

_SNAPSHOTS_LOCK = threading.Lock()
SUPPORTED_RECORD_TYPES = ("A", "AAAA", "CNAME", "DNAME", "SRV", "TXT", "NS", "MX", "PTR", "NAPTR")


class Provider(ABC):
    """A DNS backend."""

    # True when `zone_snapshot` is cheap for an unchanged zone (a serial or stat check, or kept in step with
    # every write): the TXT registry then serves `records()` from its per-zone ownership maps.
    cheap_snapshots = False
    # Changes per `apply_changes` call for `--once` / `apply` when --apply-batch-size is not given (None: the
    # flag's default); 0 = a zone's whole plan in one call, for a provider that splits a call into requests
    # itself and pays per request whatever its size (PowerDNS).
    preferred_apply_batch_size: int | None = None
    # True when every `apply_changes` call rewrites each zone it touches whole (a zone file: one write, one
    # serial bump): a zone's whole plan then goes in one call whatever --apply-batch-size says, as each batch
    # would only be one more rewrite of the zone and one more serial.
    writes_whole_zones = False

    @abstractmethod
    def records(self) -> list[Endpoint]:
        """Every record the provider holds in the zones it manages."""

    @abstractmethod
    def apply_changes(self, changes: Changes) -> None:
        """Apply a plan's changes. Raises ProviderError (or SoftError) on failure."""

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """Canonicalise desired endpoints to the provider's read-back form (identity by default)."""
        return endpoints

    def get_domain_filter(self) -> DomainFilter:
        """The names this provider can hold (match-all by default)."""
        return DomainFilter()

    def zones(self) -> Sequence[str]:
        """The zone names this provider manages ("" = one zone without a name, holding everything)."""
        return ("",)

    def zone_records(self, zone: str) -> list[Endpoint]:
        """The records of one zone (one of `zones()`): by default `records()` filtered by `zone_for_name`.
        Providers that can read a single zone override it."""
        zones = list(self.zones()) or [""]
        return [ep for ep in self.records() if zone_for_name(ep.dns_name, zones) == zone]

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        """The zone's records as a `ZoneSnapshot` (providers/snapshot.py), brought up to date now. By default
        a full `zone_records(zone)` per call, diffed into a kept snapshot (exact, not cheap); providers that
        can tell cheaply whether a zone moved override it."""
        with _SNAPSHOTS_LOCK:
            snaps: dict[str, ZoneSnapshot] = self.__dict__.setdefault("_zone_snapshots_", {})
            snap = snaps.setdefault(zone, ZoneSnapshot(zone))
        snap.replace_all(self.zone_records(zone))
        return snap

    def record_default_ttl(self, zone: str) -> int:
        """The TTL a record without one (TTL 0) gets in `zone`, shown by the plan outputs: a provider's
        `default_ttl` attribute when it has one (zonefile), else 0 (the record keeps TTL 0)."""
        del zone
        value = getattr(self, "default_ttl", 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0


def ensure_trailing_dot(hostname: str) -> str:
    """Append a trailing dot to a hostname (never to an IP address)."""
    import ipaddress

    try:
        ipaddress.ip_address(hostname)
        return hostname
    except ValueError:
        return hostname if hostname.endswith(".") else hostname + "."


class CachedProvider(Provider):
    """`--provider-cache-time`: serves `records()` from memory until the listing is older than
    `refresh_interval` seconds; `apply_changes` without real changes returns at once, a real one invalidates
    the cache (external-dns `provider.CachedProvider`). Metrics: `external_dns_provider_cache_records_calls
    {from_cache}` and `external_dns_provider_cache_apply_changes_calls`."""

    def __init__(self, provider: Provider, refresh_interval: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.provider = provider
        self.refresh_interval = refresh_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._cached: list[Endpoint] | None = None
        self._fetched_at = 0.0
        self._zone_snaps: dict[str, tuple[ZoneSnapshot, float]] = {}  # zone -> (snapshot, read at)
        self.preferred_apply_batch_size = provider.preferred_apply_batch_size
        self.writes_whole_zones = provider.writes_whole_zones

    def _fresh(self) -> bool:
        return self._cached is not None and self._clock() - self._fetched_at < self.refresh_interval

    def records(self) -> list[Endpoint]:
        with self._lock:
            if self._fresh() and self._cached is not None:
                CACHE_CALLS.records_call(from_cache=True)
                return [ep.copy() for ep in self._cached]
        CACHE_CALLS.records_call(from_cache=False)
        records = self.provider.records()
        with self._lock:
            self._cached = [ep.copy() for ep in records]
            self._fetched_at = self._clock()
        return records

    def apply_changes(self, changes: Changes) -> None:
        if not changes.has_changes():
            return
        with self._lock:
            self._cached = None
        CACHE_CALLS.apply_call()
        try:
            self.provider.apply_changes(changes)
        except BaseException:
            with self._lock:  # what the provider holds now is unknown: every zone is read again
                self._zone_snaps.clear()
            raise
        with self._lock:  # our own successful write, folded into the zone snapshots it touched
            for zone, part in _changes_by_zone(changes, list(self.provider.zones()) or [""]).items():
                kept = self._zone_snaps.get(zone)
                if kept is not None:
                    kept[0].apply(part)

    def zone_records(self, zone: str) -> list[Endpoint]:
        return [ep.copy() for ep in self.zone_snapshot(zone).endpoints()]

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        """Within `refresh_interval` of the zone's last read the kept snapshot (with our own writes folded
        in); after it, or after a failed write, the zone is read again and diffed into the snapshot."""
        with self._lock:
            kept = self._zone_snaps.get(zone)
            if kept is not None and self._clock() - kept[1] < self.refresh_interval:
                CACHE_CALLS.records_call(from_cache=True)
                return kept[0]
        CACHE_CALLS.records_call(from_cache=False)
        records = self.provider.zone_records(zone)
        with self._lock:
            snap = kept[0] if kept is not None else ZoneSnapshot(zone)
            snap.replace_all(records)
            self._zone_snaps[zone] = (snap, self._clock())
            return snap

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        return self.provider.adjust_endpoints(endpoints)

    def get_domain_filter(self) -> DomainFilter:
        return self.provider.get_domain_filter()

    def zones(self) -> Sequence[str]:
        return self.provider.zones()

    def record_default_ttl(self, zone: str) -> int:
        return self.provider.record_default_ttl(zone)


def _changes_by_zone(changes: Changes, zones: Sequence[str]) -> dict[str, Changes]:
    """`changes` split by the zone of each endpoint (names in no zone are left out)."""
    out: dict[str, Changes] = {}
    for attr in ("create", "update_old", "update_new", "delete"):
        for ep in getattr(changes, attr):
            zone = zone_for_name(ep.dns_name, zones)
            if zone is not None:
                getattr(out.setdefault(zone, Changes()), attr).append(ep)
    return out


class _CacheCallsCollector:
    """The two provider-cache counters under external-dns's exact names, which have no `_total` suffix
    (`external_dns_provider_cache_records_calls{from_cache}`, `external_dns_provider_cache_apply_changes_calls`);
    a prometheus_client `Counter` would expose them as `..._total`, which dashboards written for external-dns
    do not query. Typed `counter` in the text format, as external-dns (metrics_http.declare_unsuffixed_counter)."""

    RECORDS = "external_dns_provider_cache_records_calls"
    APPLY = "external_dns_provider_cache_apply_changes_calls"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records = {"true": 0, "false": 0}
        self._apply = 0

    def records_call(self, from_cache: bool) -> None:
        with self._lock:
            self._records["true" if from_cache else "false"] += 1

    def apply_call(self) -> None:
        with self._lock:
            self._apply += 1

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            records, apply = dict(self._records), self._apply
        family = Metric(self.RECORDS, "Number of calls to the provider cache Records list", "unknown")
        for from_cache, value in sorted(records.items()):
            family.add_sample(self.RECORDS, {"from_cache": from_cache}, float(value))
        yield family
        family = Metric(self.APPLY, "Number of calls to the provider cache ApplyChanges", "unknown")
        family.add_sample(self.APPLY, {}, float(apply))
        yield family


CACHE_CALLS = _CacheCallsCollector()
REGISTRY.register(CACHE_CALLS)
declare_unsuffixed_counter(_CacheCallsCollector.RECORDS)
declare_unsuffixed_counter(_CacheCallsCollector.APPLY)
