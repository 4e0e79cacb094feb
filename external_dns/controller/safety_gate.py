"""The safety gate of the pipeline: refuses an unsafe plan before it is written, and reports it (log line,
`external_dns_controller_unsafe_plans_total{zone,reason}`, a Warning `UnsafePlan` Event on the objects behind
the plan's changes). The verdicts themselves are plan/safety.py's. A zone's plan is judged by the zone's
records of the registry's owner (a plan deleting all of them is a wipe, refused without --force); a
DNSRecord's by what `Judged` says (its own records: deleting them all when the record is deleted is no "too
many deletes", and removing its own records is never a wipe)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import structlog
from prometheus_client import Counter

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import display_zone, log_zone, zone_for_name
from external_dns.events import Recorder, objects_of
from external_dns.plan.changes import Changes
from external_dns.plan.safety import SafetyConfig, UnsafePlanError, UnsafePlansError, Verdict, check_zone

log = structlog.get_logger(__name__)

UNSAFE_PLANS = Counter(
    "unsafe_plans_total", "Number of zone plans refused by the safety check (thresholds, root NS)",
    ["zone", "reason"], namespace="external_dns", subsystem="controller")

EVENT_REASON_UNSAFE_PLAN = "UnsafePlan"
_MAX_EVENT_OBJECTS = 10  # one refused zone may touch thousands of objects: Event only the first few


def report_unsafe(error: UnsafePlanError, changes: Changes | None = None, recorder: Recorder | None = None) -> int:
    """Log the refusal, count it and, with a recorder, send a Warning `UnsafePlan` Event to (at most 10 of)
    the Kubernetes objects behind the zone's changes. Returns the events sent."""
    UNSAFE_PLANS.labels(zone=display_zone(error.zone), reason=error.reason).inc()
    log.error(f"Unsafe plan, not applied: {error}", zone=log_zone(error.zone), reason=error.reason)
    if recorder is None or changes is None:
        return 0
    seen: set[tuple[str, str, str]] = set()
    for ep in changes.all_endpoints():
        for obj in objects_of(ep):
            meta = obj.get("metadata") or {}
            key = (str(obj.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")))
            if key in seen or len(seen) >= _MAX_EVENT_OBJECTS:
                continue
            seen.add(key)
            try:
                recorder.event(obj, "Warning", EVENT_REASON_UNSAFE_PLAN, str(error))
            except Exception as exc:  # an event is best effort; the refusal stands
                log.warning(f"cannot record UnsafePlan event: {exc}")
    return len(seen)


@dataclass(frozen=True)
class Judged:
    """What the gate judges a plan by, when not the zone's records of the registry's owner: whose existing
    records it counts (`owner_id`'s, of `managed_record_types`) and whether the plan's deletes count against
    the delete threshold (`deletes_exempt`: a DNSRecord being deleted removes its own records on purpose)."""

    owner_id: str
    managed_record_types: Sequence[str] | None = None
    deletes_exempt: bool = False


class SafetyGate:
    """A pre-apply check (`gate(zone, changes, current, desired)`): raises UnsafePlanError for an unsafe
    zone, or UnsafePlansError when a full sync (`zone=None`) is unsafe in several zones, after reporting.

    `zones` returns the provider's zones (for full syncs); `owner_id` and `managed_record_types` select the
    records the denominator counts."""

    def __init__(self, config: SafetyConfig, *, owner_id: str = "", managed_record_types: Iterable[str] | None = None,
                 zones: Callable[[], Sequence[str]] | None = None, recorder: Recorder | None = None) -> None:
        self.config = config
        self.owner_id = owner_id
        self.managed_record_types = list(managed_record_types) if managed_record_types is not None else None
        self._zones = zones
        self.recorder = recorder

    def verdict(self, zone: str | None, changes: Changes, current: Iterable[Endpoint]) -> Verdict:
        return check_zone(self.config, zone, changes, current, owner_id=self.owner_id,
                          managed_record_types=self.managed_record_types)

    def judge(self, zone: str | None, changes: Changes, current: Iterable[Endpoint], judged: Judged) -> None:
        """As a call, for one plan judged by `judged` (raises UnsafePlanError after reporting)."""
        if self.config.force:
            return
        # no wipe guard: the records counted are the DNSRecord's own, which its lifecycle removes on purpose
        verdict = check_zone(self.config, zone, changes, current, owner_id=judged.owner_id,
                             managed_record_types=judged.managed_record_types, deletes_exempt=judged.deletes_exempt,
                             guard_wipe=False)
        if not verdict.safe:
            report_unsafe(verdict.problems[0], changes, self.recorder)
            verdict.raise_if_unsafe()

    def __call__(self, zone: str | None, changes: Changes, current: Sequence[Endpoint],
                 desired: Sequence[Endpoint]) -> None:
        if self.config.force:
            return
        if zone is not None or self._zones is None:
            verdict = self.verdict(zone, changes, current)
            if not verdict.safe:
                report_unsafe(verdict.problems[0], changes, self.recorder)
                verdict.raise_if_unsafe()
            return
        errors: list[UnsafePlanError] = []
        for z, (zchanges, zcurrent) in split_changes_by_zone(changes, current, self._zones()).items():
            verdict = self.verdict(z, zchanges, zcurrent)
            if not verdict.safe:
                report_unsafe(verdict.problems[0], zchanges, self.recorder)
                errors.append(verdict.problems[0])
        if errors:
            raise errors[0] if len(errors) == 1 else UnsafePlansError(errors)


def split_changes_by_zone(changes: Changes, current: Iterable[Endpoint],
                          zones: Sequence[str]) -> dict[str, tuple[Changes, list[Endpoint]]]:
    """Changes and current records per zone (names in no zone are left out: nothing can apply there)."""
    zone_list = list(zones) or [""]
    out: dict[str, tuple[Changes, list[Endpoint]]] = {}

    def slot(name: str) -> tuple[Changes, list[Endpoint]] | None:
        z = zone_for_name(name, zone_list)
        if z is None:
            return None
        return out.setdefault(z, (Changes(), []))

    for ep in current:
        s = slot(ep.dns_name)
        if s is not None:
            s[1].append(ep)
    sides: list[tuple[list[Endpoint], Callable[[Changes], list[Endpoint]]]] = [
        (changes.create, lambda c: c.create), (changes.update_old, lambda c: c.update_old),
        (changes.update_new, lambda c: c.update_new), (changes.delete, lambda c: c.delete)]
    for eps, side in sides:
        for ep in eps:
            s = slot(ep.dns_name)
            if s is not None:
                side(s[0]).append(ep)
    return out


def find_safety_gate(checks: Iterable[object]) -> SafetyGate | None:
    """The SafetyGate among a controller's pre-apply checks, if one is installed."""
    for check in checks:
        if isinstance(check, SafetyGate):
            return check
    return None
