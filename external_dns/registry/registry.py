"""The Registry interface: the ownership layer between the plan and the provider.

A registry wraps a provider, reads its records with ownership labels attached (`records()`, `zone_records()`),
and writes changes together with the ownership data (`apply_changes()`). `owner_id()` is "" for registries
that do not track ownership (noop), which turns off the plan's owner filtering. A registry keeping per-zone
maps (the TXT registry) also keeps a zone journal (`zone_changes`: the names that moved) and a counted view
for the safety gate (`zone_view`), which event-sized reconciles use; the defaults say "cannot tell" (every
reconcile is then a full one).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import is_hold
from external_dns.endpoint.names import name_key
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, zone_for_name


class Registry(ABC):
    provider: Provider

    @abstractmethod
    def records(self) -> list[Endpoint]:
        """The provider's records with ownership labels (owner, resource) filled in."""

    @abstractmethod
    def apply_changes(self, changes: Changes) -> None:
        """Write the changes and their ownership records."""

    def zone_records(self, zone: str, names: Iterable[str] | None = None) -> list[Endpoint]:
        """`records()` of one zone of the provider (of `names` only, when given: lower case, no trailing dot).
        By default a filtered `records()`; the TXT registry answers from per-zone ownership maps."""
        zones = list(self.provider.zones()) or [""]
        wanted = None if names is None else {name_key(n) for n in names}
        return [ep for ep in self.records() if zone_for_name(ep.dns_name, zones) == zone
                and (wanted is None or name_key(ep.dns_name) in wanted)]

    def zone_changes(self, zone: str) -> set[str] | None:
        """The zone journal: the names (lower case, no trailing dot) whose labelled records changed since the
        previous call (outside edits, our own writes, ownership moves); None when the whole zone may have
        changed (a first call, a rebuild). Event-sized reconciles plan those names (controller/dirty.py).
        Default: None, always (a registry without per-zone maps cannot tell: every reconcile is a full one)."""
        del zone
        return None

    def zone_view(self, zone: str) -> Sequence[Endpoint]:
        """The zone's records as the safety gate counts them (only the record type and owner label of each are
        read), for a reconcile that read only some names. Default: `zone_records(zone)`."""
        return self.zone_records(zone)

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        eps, holds = split_holds(endpoints)
        adjusted = self.provider.adjust_endpoints(eps)
        return adjusted + holds if holds else adjusted

    def get_domain_filter(self) -> DomainFilter:
        return self.provider.get_domain_filter()

    @abstractmethod
    def owner_id(self) -> str:
        """The owner ID written into ownership records ("" = no ownership)."""


def split_holds(endpoints: list[Endpoint]) -> tuple[list[Endpoint], list[Endpoint]]:
    """(endpoints, holds): holds (endpoint/limits.py) reach the plan as they are, never a provider's
    adjustment (one that drops target-less endpoints, a webhook's, would turn them back into deletes)."""
    if all(ep.targets for ep in endpoints):
        return endpoints, []
    return [ep for ep in endpoints if not is_hold(ep)], [ep for ep in endpoints if is_hold(ep)]
