"""Plan: the changes (create / update / delete) that move current DNS records towards the desired ones.

external-dns `plan/plan.go`:
1. current and desired are each filtered by the domain filter and the managed record types (a type is
   managed when it is in `managed_records` and not in `exclude_records`; an empty `managed_records` manages
   nothing — QUIRK kept);
2. rows keyed by (normalised name, set identifier); per row and record type:
   no current -> create (conflict resolver); no candidates -> delete every current record; both -> update
   pair when TTL / targets / provider-specific properties / old owner differ, delete for a type no longer
   desired, create for a new type — but a row's creates are dropped (debug log + owner-mismatch gauge)
   when any current record of the row is not owned by `owner_id`;
3. the policies run in order, then (with an owner ID) deletes and updates are filtered by owner.

Differences from Go, deliberate: rows and record types are processed in sorted order so the result is
deterministic (Go iterates maps); inputs are never mutated — the update target that inherits the current
owner label is a copy of the desired endpoint (Go writes the label into the desired endpoint itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import structlog

from external_dns.endpoint.domain_filter import DomainFilterInterface, MatchAllDomainFilters
from external_dns.endpoint.endpoint import (
    DEFAULT_MANAGED_RECORD_TYPES,
    OWNER_LABEL_KEY,
    Endpoint,
    ProviderSpecificProperty,
)
from external_dns.endpoint.limits import HOLD_LABEL_KEY
from external_dns.endpoint.names import to_ascii_name
from external_dns.endpoint.targets import targets_same
from external_dns.endpoint.utils import filter_endpoints_by_owner_id, remove_duplicates
from external_dns.plan import metrics
from external_dns.plan.changes import Changes
from external_dns.plan.conflict import PerResource, PlanKey, PlanRow
from external_dns.plan.policy import Policy, get_policy

log = structlog.get_logger(__name__)

# Row key "name.\x00setid" (just "name." without a set identifier): strings sort like (name, set_id) tuples
# and, unlike tuples, are not tracked by the cyclic garbage collector.
_KEY_SEP = "\x00"
_Side = dict[str, "Endpoint | list[Endpoint]"]


def _plan_key(skey: str) -> PlanKey:
    name, _sep, set_id = skey.partition(_KEY_SEP)
    return (name, set_id)


def is_managed_record(record_type: str, managed_records: Iterable[str], exclude_records: Iterable[str] = ()) -> bool:
    """True when `record_type` is managed and not excluded."""
    return record_type not in exclude_records and record_type in managed_records


def should_update_ttl(desired: Endpoint, current: Endpoint) -> bool:
    """A configured (> 0) desired TTL that differs from the current one."""
    return desired.record_ttl > 0 and desired.record_ttl != current.record_ttl


def targets_changed(desired: Endpoint, current: Endpoint) -> bool:
    return not targets_same(desired.targets, current.targets)


def should_update_provider_specific(desired: Endpoint, current: Endpoint) -> bool:
    """Any property added, removed or changed in value (names compared exactly, order ignored)."""
    return _ps_changed(desired.provider_specific, current.provider_specific)


def _ps_changed(desired: list[ProviderSpecificProperty], current: list[ProviderSpecificProperty]) -> bool:
    if not desired and not current:
        return False
    wanted = {p.name: p.value for p in desired}
    for p in current:
        if p.name not in wanted:
            return True
        if wanted.pop(p.name) != p.value:
            return True
    return bool(wanted)


def _inherit_owner(current: Endpoint, update: Endpoint) -> Endpoint:
    out = update.copy()
    out.labels[OWNER_LABEL_KEY] = current.labels.get(OWNER_LABEL_KEY, "")
    if out.record_ttl == 0:
        # An unset TTL never changes the record's TTL (as `_needs_update`); keeping it also lets an update
        # pair that only rewrites ownership (a left-over --migrate-from-txt-owner) compare equal, so
        # `has_changes()` is False instead of rewriting the zone on every sync.
        out.record_ttl = current.record_ttl
    return out


@runtime_checkable
class ScopeFilter(DomainFilterInterface, Protocol):
    """A domain filter that can tell when it matches every name (`DomainFilter`, `MatchAllDomainFilters`):
    the plan then skips matching."""

    def is_configured(self) -> bool: ...


def _can_reject(flt: DomainFilterInterface) -> bool:
    """False for a filter that matches every name; any other filter may reject one."""
    return not isinstance(flt, ScopeFilter) or flt.is_configured()


class Plan:
    """Inputs of a calculation; `calculate()` returns a new Plan whose `changes` are filled in."""

    def __init__(
        self,
        current: Sequence[Endpoint],
        desired: Sequence[Endpoint],
        policies: Sequence[Policy | str] = (),
        domain_filter: DomainFilterInterface | None = None,
        managed_records: Sequence[str] = DEFAULT_MANAGED_RECORD_TYPES,
        exclude_records: Sequence[str] = (),
        owner_id: str = "",
        old_owner_id: str = "",
        resolver: PerResource | None = None,
    ) -> None:
        self.current = list(current)
        self.desired = list(desired)
        self.policies: list[Policy] = [get_policy(p) if isinstance(p, str) else p for p in policies]
        self.domain_filter = domain_filter
        self.managed_records = list(managed_records)
        self.exclude_records = list(exclude_records)
        self.owner_id = owner_id
        self.old_owner_id = old_owner_id
        self.resolver = resolver if resolver is not None else PerResource()
        self.changes = Changes()

    def __repr__(self) -> str:
        return (
            f"Plan(current={len(self.current)}, desired={len(self.desired)}, owner_id={self.owner_id!r}, "
            f"changes={self.changes})"
        )

    # -- table ----------------------------------------------------------------------------------------------
    def _matcher(self) -> DomainFilterInterface | None:
        flt = self.domain_filter
        if flt is None or not _can_reject(flt):
            return None
        if isinstance(flt, MatchAllDomainFilters):  # its one member able to reject a name, unwrapped
            active = [f for f in flt.filters if _can_reject(f)]
            if len(active) == 1:
                return active[0]
        return flt

    def _fill(self, endpoints: Sequence[Endpoint], held: dict[tuple[str, str], str] | None = None) -> _Side:
        """Filtered endpoints by row key. A row with one endpoint holds it directly (no list): building the
        table then allocates no container per row, which keeps the cyclic GC quiet on 100k-row plans. With
        `held`, holds (endpoint/limits.py) go there instead: (row name, type) -> why."""
        flt = self._matcher()
        managed = frozenset(self.managed_records) - frozenset(self.exclude_records)
        side: _Side = {}
        for ep in endpoints:
            if ep.record_type not in managed:
                continue
            name = ep.dns_name
            if flt is not None and not flt.match(name):
                log.debug(f"ignoring record {name} that does not match domain filter")
                continue
            # normalize_dns_name, inlined for the common lower-case ASCII case.
            if name.isascii():
                if name[-1:].isspace() or name[:1].isspace():
                    name = name.strip()
                if not name.islower():
                    name = name.lower()
                if "xn--" in name:  # a punycode label is decoded and encoded again, as Go's ToASCII
                    name = to_ascii_name(name)
            else:
                name = to_ascii_name(name.strip())
            if not name.endswith("."):
                name += "."
            if held is not None and not ep.targets and HOLD_LABEL_KEY in ep.labels:
                held[(name, ep.record_type)] = ep.labels[HOLD_LABEL_KEY]
                continue
            set_id = ep.set_identifier
            key = name + _KEY_SEP + set_id if set_id else name
            prev = side.get(key)
            if prev is None:
                side[key] = ep
            elif isinstance(prev, list):
                prev.append(ep)
            else:
                side[key] = [prev, ep]
        return side

    def _needs_update(self, update: Endpoint, current: Endpoint) -> bool:
        if update.record_ttl > 0 and update.record_ttl != current.record_ttl:
            return True
        ut, ct = update.targets, current.targets
        if ut != ct and not targets_same(ut, ct):
            return True
        if (update.provider_specific or current.provider_specific) and _ps_changed(
            update.provider_specific, current.provider_specific
        ):
            return True
        return bool(self.old_owner_id) and current.labels.get(OWNER_LABEL_KEY, "") != self.old_owner_id

    # -- calculation ----------------------------------------------------------------------------------------
    def calculate(self) -> Plan:
        """The changes, in a new Plan that (as Go's) carries only `current`, `desired`, `changes` and
        `managed_records` reset to A/AAAA/CNAME. The gauge is process-wide; inputs are not modified."""
        currents = self._fill(self.current)
        held: dict[tuple[str, str], str] = {}
        candidates = self._fill(self.desired, held)
        owner_id = self.owner_id
        if owner_id:
            metrics.reset_owner_mismatch()

        resolver = self.resolver
        create: list[Endpoint] = []
        update_old: list[Endpoint] = []
        update_new: list[Endpoint] = []
        delete: list[Endpoint] = []

        keys = list(currents)
        keys.extend(k for k in candidates if k not in currents)
        keys.sort()
        for skey in keys:
            c_one = currents.get(skey)
            d_one = candidates.get(skey)
            if d_one is None:
                if isinstance(c_one, list):
                    delete.extend(c_one)
                elif c_one is not None:
                    delete.append(c_one)
                continue
            if c_one is None:
                if not isinstance(d_one, list):
                    create.append(d_one)
                    continue
                row = PlanRow.build((), d_one)
                records = resolver.resolve_record_types(_plan_key(skey), row)
                for rtype in sorted(records):
                    bucket = records[rtype]
                    if bucket.candidates:
                        create.append(resolver.resolve_create(bucket.candidates))
                continue
            if (
                not isinstance(c_one, list)
                and not isinstance(d_one, list)
                and c_one.record_type == d_one.record_type
            ):
                # Fast path: one record, one candidate, same type -> at most an update.
                if self._needs_update(d_one, c_one):
                    update_new.append(_inherit_owner(c_one, d_one))
                    update_old.append(c_one)
                continue

            cur = c_one if isinstance(c_one, list) else [c_one]
            row = PlanRow.build(cur, d_one if isinstance(d_one, list) else [d_one])
            records = resolver.resolve_record_types(_plan_key(skey), row)
            creates: list[Endpoint] = []
            for rtype in sorted(records):
                bucket = records[rtype]
                current = bucket.current
                if current is None:
                    if bucket.candidates:
                        creates.append(resolver.resolve_create(bucket.candidates))
                elif not bucket.candidates:
                    delete.append(current)
                else:
                    update = resolver.resolve_update(current, bucket.candidates)
                    if self._needs_update(update, current):
                        update_new.append(_inherit_owner(current, update))
                        update_old.append(current)
            if creates:
                owners_match = True
                if owner_id:
                    for c in cur:
                        if c.is_owned_by(owner_id):
                            continue
                        owners_match = False
                        found = c.labels.get(OWNER_LABEL_KEY, "")
                        log.debug(
                            f"Skipping endpoint {c} because owner id does not match for one or more items "
                            f'to create, found: "{found}", required: "{owner_id}"'
                        )
                        metrics.add_owner_mismatch(c.record_type, owner_id, c.get_owner(), c.get_naked_domain())
                if owners_match:
                    create.extend(creates)

        changes = Changes(create=create, update_old=update_old, update_new=update_new, delete=delete)
        if held:
            changes = _without_held(changes, held)
        for policy in self.policies:
            changes = policy.apply(changes)

        if owner_id:
            changes.delete = remove_duplicates(filter_endpoints_by_owner_id(owner_id, changes.delete))
            changes.update_old = filter_endpoints_by_owner_id(owner_id, changes.update_old)
            changes.update_new = filter_endpoints_by_owner_id(owner_id, changes.update_new)

        result = Plan(self.current, self.desired, managed_records=DEFAULT_MANAGED_RECORD_TYPES)
        result.changes = changes
        return result


def _row_name(name: str) -> str:
    """A name as `Plan._fill` keys its rows (lower case, ASCII, trailing dot)."""
    name = to_ascii_name(name.strip())
    return name if name.endswith(".") else name + "."


def _without_held(changes: Changes, held: dict[tuple[str, str], str]) -> Changes:
    """`changes` without any create, update or delete of a held name and type (every set identifier): a desired
    endpoint that turned bad keeps what the zone holds for it. Each change left out is said once."""
    kept = Changes()
    told: set[tuple[str, str]] = set()

    def free(ep: Endpoint) -> bool:
        key = (_row_name(ep.dns_name), ep.record_type)
        why = held.get(key)
        if why is None:
            return True
        if key not in told:
            told.add(key)
            log.warning(f"Keeping {key[0].rstrip('.')} {key[1]} as it is: its desired endpoint is invalid ({why})",
                        dns_name=key[0].rstrip("."), record_type=key[1], reason=why)
        return False

    kept.create = [ep for ep in changes.create if free(ep)]
    pairs = [(old, new) for old, new in zip(changes.update_old, changes.update_new, strict=False)
             if free(new) and free(old)]
    kept.update_old, kept.update_new = [old for old, _ in pairs], [new for _, new in pairs]
    kept.delete = [ep for ep in changes.delete if free(ep)]
    return kept
