"""Conflict resolution between several desired endpoints for one name (external-dns `plan/conflict.go`).

`PerResource`:
- `resolve_create(candidates)`: the first candidate with the 'smallest' targets (`Targets.is_less`).
- `resolve_update(current, candidates)`: candidates in stable `is_less` order; the first one whose
  `resource` label equals the current record's wins (the resource holding a name keeps it), else
  `resolve_create`.
- `resolve_record_types(key, row)`: when a row's candidates mix CNAME and other types, the CNAME candidates
  are discarded (A/AAAA win) and an existing CNAME is left to be deleted.

Arguments are never mutated (Go sorts the candidate slice in place).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key

import structlog

from external_dns.endpoint.endpoint import RECORD_TYPE_CNAME, RESOURCE_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import targets_is_less

log = structlog.get_logger(__name__)

PlanKey = tuple[str, str]
"""(normalised DNS name, set identifier): one row of the plan table."""


@dataclass(slots=True)
class DomainEndpoints:
    """One record type of a row: the current record (last one seen wins) and the desired candidates."""

    current: Endpoint | None = None
    candidates: list[Endpoint] = field(default_factory=list)


@dataclass(slots=True)
class PlanRow:
    """All current records and candidates (any type) sharing one plan key, and the same split by type."""

    current: list[Endpoint] = field(default_factory=list)
    candidates: list[Endpoint] = field(default_factory=list)
    records: dict[str, DomainEndpoints] = field(default_factory=dict)

    @classmethod
    def build(cls, current: Sequence[Endpoint], candidates: Sequence[Endpoint]) -> PlanRow:
        records: dict[str, DomainEndpoints] = {}
        for ep in current:
            bucket = records.get(ep.record_type)
            if bucket is None:
                records[ep.record_type] = DomainEndpoints(current=ep)
            else:
                bucket.current = ep
        for ep in candidates:
            bucket = records.get(ep.record_type)
            if bucket is None:
                records[ep.record_type] = DomainEndpoints(candidates=[ep])
            else:
                bucket.candidates.append(ep)
        return cls(current=list(current), candidates=list(candidates), records=records)


def compare_endpoints(a: Endpoint, b: Endpoint) -> int:
    """-1 when a's targets are 'less' than b's, +1 for the reverse, else 0."""
    if targets_is_less(a.targets, b.targets):
        return -1
    if targets_is_less(b.targets, a.targets):
        return 1
    return 0


_ENDPOINT_KEY = cmp_to_key(compare_endpoints)


class PerResource:
    """The conflict resolver external-dns uses: prefer the resource already owning the name."""

    def resolve_create(self, candidates: Sequence[Endpoint]) -> Endpoint:
        """The first minimal candidate. ValueError on an empty list."""
        if not candidates:
            raise ValueError("resolve_create needs at least one candidate")
        best = candidates[0]
        for ep in candidates[1:]:
            if targets_is_less(ep.targets, best.targets):
                best = ep
        return best

    def resolve_update(self, current: Endpoint, candidates: Sequence[Endpoint]) -> Endpoint:
        """The candidate from the resource that holds `current`, else `resolve_create`."""
        if len(candidates) == 1:
            return candidates[0]
        resource = current.labels.get(RESOURCE_LABEL_KEY, "")
        ordered = sorted(candidates, key=_ENDPOINT_KEY)
        for ep in ordered:
            if ep.labels.get(RESOURCE_LABEL_KEY, "") == resource:
                return ep
        return self.resolve_create(ordered)

    def resolve_record_types(self, key: PlanKey, row: PlanRow) -> dict[str, DomainEndpoints]:
        """`row.records`, with CNAME candidates discarded when the candidates mix CNAME and other types."""
        if len(row.candidates) <= 1:
            return row.records
        cname = other = False
        for ep in row.candidates:
            if ep.record_type == RECORD_TYPE_CNAME:
                cname = True
            else:
                other = True
            if cname and other:
                break
        if not (cname and other):
            return row.records
        log.warning(f"Domain {key[0]} contains conflicting record type candidates; discarding CNAME record")
        out: dict[str, DomainEndpoints] = {}
        for rtype, bucket in row.records.items():
            if rtype == RECORD_TYPE_CNAME:
                out[rtype] = DomainEndpoints(current=bucket.current, candidates=[])
            else:
                out[rtype] = bucket
        return out
