"""The Provider interface every DNS backend implements, and the errors it raises.

As external-dns `provider/provider.go`: `records()`, `apply_changes(changes)`, `adjust_endpoints(eps)`
(make desired endpoints look like what `records()` returns, so no perpetual updates) and
`get_domain_filter()`. Providers also declare their zones (`zones()`) so the controller can reconcile zone
by zone; a provider with no zone concept returns one zone named "" that holds everything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes

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
    name = name.strip().lower()
    return name[:-1] if name.endswith(".") else name


def zone_for_name(name: str, zones: Sequence[str]) -> str | None:
    """The zone (one of `zones`) that holds `name`: the longest zone name equal to `name` or a suffix of it on
    a label boundary (`www.example.org` is in `example.org`, `badexample.org` is not). A zone named "" holds
    every name. None when no zone fits. Comparison is case-insensitive and ignores trailing dots."""
    bare = _bare(name)
    best: str | None = None
    best_len = -1
    for zone in zones:
        z = _bare(zone)
        if (not z or bare == z or bare.endswith("." + z)) and len(z) > best_len:
            best, best_len = zone, len(z)
    return best
