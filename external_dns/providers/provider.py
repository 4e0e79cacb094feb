"""The Provider interface every DNS backend implements, and the errors it raises.

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
from external_dns.endpoint.zones import normalize_zone, zone_for_name
from external_dns.plan.changes import Changes

__all__ = ["CachedProvider", "Provider", "ProviderError", "SoftError", "ensure_trailing_dot", "zone_for_name"]

SUPPORTED_RECORD_TYPES = ("A", "AAAA", "CNAME", "DNAME", "SRV", "TXT", "NS", "MX", "PTR", "NAPTR")


class ProviderError(Exception):
    """A provider failure that is not transient (bad credentials, a refused record, ...)."""


class SoftError(ProviderError):
    """A transient provider failure (throttling, timeout, 5xx): the controller retries with backoff and
    never exits for it (external-dns `provider.SoftError`)."""


class Provider(ABC):
    """A DNS backend."""

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


def _bare(name: str) -> str:
    """Lower-case, without one trailing dot."""
    return normalize_zone(name)


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
        self.provider.apply_changes(changes)

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        return self.provider.adjust_endpoints(endpoints)

    def get_domain_filter(self) -> DomainFilter:
        return self.provider.get_domain_filter()

    def zones(self) -> Sequence[str]:
        return self.provider.zones()

    def record_default_ttl(self, zone: str) -> int:
        return self.provider.record_default_ttl(zone)


class _CacheCallsCollector:
    """The two provider-cache counters under external-dns's exact names, which have no `_total` suffix
    (`external_dns_provider_cache_records_calls{from_cache}`, `external_dns_provider_cache_apply_changes_calls`);
    a prometheus_client `Counter` would expose them as `..._total`, which dashboards written for external-dns
    do not query."""

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
