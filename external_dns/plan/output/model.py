"""The plan as the outputs see it: one `ZonePlan` per zone, flattened into ordered `Row`s.

Order (every output): zones by name; inside a zone deletes, then creates, then updates, each sorted by
(name, record type, set identifier). An update keeps its old and new TTL and values. The summary line is
`Creates=<n>, Updates=<n>, Deletes=<n>, Existing=<n>` where Existing is the zone's existing owned records
(the safety check's denominator).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import display_zone
from external_dns.plan.changes import Changes

NO_CHANGES = "No changes were planned"


@dataclass
class ZonePlan:
    """One zone's changes and the number of existing owned records it was computed against."""

    zone: str
    changes: Changes
    existing: int = 0
    default_ttl: int = 0  # the TTL the provider gives a record without one (shown instead of 0)

    def rows(self) -> list[Row]:
        return rows(self.changes, self.default_ttl)

    @property
    def display_name(self) -> str:
        return display_zone(self.zone)

    @property
    def has_changes(self) -> bool:
        return not self.changes.is_empty()

    def summary(self) -> str:
        c = self.changes
        return (f"Creates={len(c.create)}, Updates={len(c.update_new)}, Deletes={len(c.delete)}, "
                f"Existing={self.existing}")


@dataclass(frozen=True)
class Side:
    """TTL and values of one side of a change."""

    ttl: int
    values: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One change: `op` is Delete, Create or Update; `old` is set for Delete/Update, `new` for Create/Update."""

    op: str
    name: str
    record_type: str
    set_identifier: str
    old: Side | None
    new: Side | None


def _side(ep: Endpoint, default_ttl: int = 0) -> Side:
    # a record without a TTL shows the one it will get (Route53 300, the zone file's default, ...)
    return Side(ttl=ep.record_ttl if ep.record_ttl > 0 else default_ttl, values=tuple(ep.targets))


def _sort_key(ep: Endpoint) -> tuple[str, str, str]:
    return (ep.dns_name.lower(), ep.record_type, ep.set_identifier)


def rows(changes: Changes, default_ttl: int = 0) -> list[Row]:
    """The zone's changes in output order; TTL 0 is shown as `default_ttl`."""
    out: list[Row] = []
    for ep in sorted(changes.delete, key=_sort_key):
        out.append(Row("Delete", ep.dns_name, ep.record_type, ep.set_identifier, _side(ep, default_ttl), None))
    for ep in sorted(changes.create, key=_sort_key):
        out.append(Row("Create", ep.dns_name, ep.record_type, ep.set_identifier, None, _side(ep, default_ttl)))
    pairs = sorted(zip(changes.update_old, changes.update_new, strict=False), key=lambda p: _sort_key(p[1]))
    for old, new in pairs:
        out.append(Row("Update", new.dns_name, new.record_type, new.set_identifier, _side(old, default_ttl),
                       _side(new, default_ttl)))
    return out


def zones_with_changes(plans: Sequence[ZonePlan]) -> list[ZonePlan]:
    """The plans that change something, by zone name."""
    return sorted((p for p in plans if p.has_changes), key=lambda p: p.display_name)
