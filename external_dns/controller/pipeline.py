"""The steps every mode goes through once it holds current records and desired endpoints: `Pipeline.plan`
(Plan.calculate within a `Scope`), `check` (the safety gate and the other pre-apply checks, such as the
leader-election fence), `write` (the write with its metrics, record events and failure wrapping) and
`synced` (the sync observers). The zone pipeline (`Controller`, controller.py, which adds the reads), the
plan-first engine of `--once`, `plan` and `apply` (once.py) and the DNSRecord lifecycle (dnsrecord/) share
one `Pipeline` per process. What differs between them is a parameter of the step, never a second path:
whose records a plan may touch (`Scope`), what the safety gate counts (`Judged`), and what a write sends
(a registry's write, or a DNSRecord batch's one provider write)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import structlog

from external_dns.controller import metrics
from external_dns.controller.safety_gate import Judged, SafetyGate
from external_dns.endpoint.domain_filter import DomainFilterInterface
from external_dns.endpoint.endpoint import DEFAULT_MANAGED_RECORD_TYPES, Endpoint
from external_dns.errors import error_text
from external_dns.events import Recorder, emit_applied_events, emit_error_events
from external_dns.plan import Changes, Plan, Policy
from external_dns.providers.provider import SoftError, zone_for_name

log = structlog.get_logger(__name__)


class RunOnceError(Exception):
    """A sync failed at a named step (`registry records`, `source endpoints`, `adjusting endpoints`,
    `pre-apply check`, `applying changes`); the original error is the `__cause__`. `changes`: the plan, when
    one was made. `owed`, for a sync following the registry's zone journal: the names that moved at the
    provider after its read (the next run plans them); None when unknown (only a full run is exact)."""

    def __init__(self, step: str, cause: BaseException, changes: Changes | None = None) -> None:
        super().__init__(f"{step}: {error_text(cause)}")
        self.step = step
        self.changes = changes
        self.owed: frozenset[str] | None = None


def cause_of(exc: BaseException) -> BaseException:
    """The error a RunOnceError wraps (else `exc`): what a record's status or a log line names."""
    return exc.__cause__ if isinstance(exc, RunOnceError) and exc.__cause__ is not None else exc


def is_soft_error(exc: BaseException) -> bool:
    """True when a provider.SoftError is the error or anywhere in its cause/context chain."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, SoftError):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


# fn(zone, changes, current, desired); zone None for a full sync. A pre-apply check refuses the write by
# raising (the safety gate, the leader-election fence); a plan observer only looks (conflict events).
PreApplyCheck = Callable[[str | None, Changes, Sequence[Endpoint], Sequence[Endpoint]], None]
# fn(zone, synced): after a successful, non-dry-run sync; synced(name) is True for every DNS name the sync
# covered (for a zone: its names and names in no zone, which nothing can write). The crd source writes
# DNSEndpoint status.observedGeneration from here, so a refused or failed sync must not call it.
SyncObserver = Callable[[str | None, Callable[[str], bool]], None]


def notify_synced(observers: Iterable[SyncObserver], zone: str | None, zones: Sequence[str] = ()) -> None:
    """Tell `observers` that the sync of `zone` (None: everything) succeeded (see `SyncObserver`). `zones`
    are the provider's zones (needed for a zone). An observer's error is logged, never raised."""
    if zone is None:
        def synced(name: str) -> bool:
            return True
    else:
        zone_list = list(zones) or [""]

        def synced(name: str) -> bool:
            return zone_for_name(name, zone_list) in (zone, None)
    for observe in observers:
        try:
            observe(zone, synced)
        except Exception:  # an observer must never break a sync
            log.exception("sync observer failed", zone=zone)


@dataclass(frozen=True)
class Scope:
    """Whose records a plan may touch, and how: the policies, the names in scope (`domain_filter`, already
    joined with the registry's), the managed record types, the owner ID (and an old one taken over). The zone
    pipeline plans in its flags' scope (--policy, --domain-filter, --managed-record-types, --txt-owner-id); a
    DNSRecord in its own (sync, its rootHost, dns-operator's record types, its owner ID)."""

    policies: Sequence[Policy]
    domain_filter: DomainFilterInterface | None = None
    managed_record_types: Sequence[str] = DEFAULT_MANAGED_RECORD_TYPES
    exclude_record_types: Sequence[str] = ()
    owner_id: str = ""
    old_owner_id: str = ""


class Pipeline:
    """The shared steps (see the module docstring) with what they are configured with: the pre-apply checks,
    the plan and sync observers, the recorder of record events, dry-run."""

    def __init__(self, *, dry_run: bool = False, clock: Callable[[], float] = time.time) -> None:
        self.dry_run = dry_run
        self._clock = clock
        self.pre_apply_checks: list[PreApplyCheck] = []
        # called as fn(zone, changes, current, desired) after every zone plan (never breaks a sync)
        self.plan_observers: list[PreApplyCheck] = []
        # called as fn(zone, synced) after a successful, non-dry-run sync (never breaks a sync)
        self.sync_observers: list[SyncObserver] = []
        # RecordReady / RecordDeleted / RecordError Events about written records (None: no events)
        self.recorder: Recorder | None = None

    def add_pre_apply_check(self, check: PreApplyCheck) -> None:
        """Call `check(zone, changes, current, desired)` before every write; raising refuses the sync."""
        self.pre_apply_checks.append(check)

    def safety_gate(self) -> SafetyGate | None:
        """The SafetyGate among the pre-apply checks, if one is installed."""
        return next((c for c in self.pre_apply_checks if isinstance(c, SafetyGate)), None)

    # -- the steps -----------------------------------------------------------------------------------------------
    def plan(self, current: list[Endpoint], desired: list[Endpoint], scope: Scope) -> Changes:
        """The changes that bring `current` to `desired` within `scope` (external-dns's Plan.calculate)."""
        return Plan(current, desired, policies=scope.policies, domain_filter=scope.domain_filter,
                    managed_records=scope.managed_record_types, exclude_records=scope.exclude_record_types,
                    owner_id=scope.owner_id, old_owner_id=scope.old_owner_id).calculate().changes

    def observe_plan(self, zone: str | None, changes: Changes, current: Sequence[Endpoint],
                     desired: Sequence[Endpoint]) -> None:
        """Show a zone's plan to the plan observers (an observer's error is logged, never raised)."""
        for observe in self.plan_observers:
            try:
                observe(zone, changes, current, desired)
            except Exception:  # an observer must never break a sync
                log.exception("plan observer failed", zone=zone)

    def check(self, zone: str | None, changes: Changes, current: Sequence[Endpoint], desired: Sequence[Endpoint],
              judged: Judged | None = None) -> None:
        """The pre-apply checks; RunOnceError (step `pre-apply check`) when one refuses. `judged`: what the
        safety gate counts when not the zone's records of the registry's owner (a DNSRecord's own records)."""
        for check in self.pre_apply_checks:
            try:
                if judged is not None and isinstance(check, SafetyGate):
                    check.judge(zone, changes, current, judged)
                else:
                    check(zone, changes, current, desired)
            except Exception as exc:
                raise RunOnceError("pre-apply check", exc, changes) from exc

    def write(self, changes: Changes, send: Callable[[Changes], None], *, events: bool = True) -> None:
        """`send(changes)` (a registry's write, or a batch's one provider write); RunOnceError (step `applying
        changes`) and the registry error metric when it fails. `events`: RecordReady/RecordDeleted after,
        RecordError on failure (a batch sends each record's events itself, from its own outcome)."""
        try:
            send(changes)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            if events:
                self.record_events(changes, exc)
            raise RunOnceError("applying changes", exc, changes) from exc
        if events:
            self.record_events(changes)

    def record_events(self, changes: Changes, error: BaseException | None = None) -> None:
        """RecordReady/RecordDeleted for written `changes`, RecordError when `error` refused them (best effort:
        a failure is logged, never raised)."""
        if self.recorder is None:
            return
        try:
            if error is None:
                emit_applied_events(self.recorder, changes)
            else:
                emit_error_events(self.recorder, changes, cause_of(error))
        except Exception:
            log.exception("cannot record the record events")

    def synced(self, zone: str | None, zones: Sequence[str] = ()) -> None:
        """A sync of `zone` (None: everything) succeeded: stamp the metric, tell the sync observers (not in
        dry-run)."""
        metrics.LAST_SYNC_TIMESTAMP.set(self._clock())
        if not self.dry_run:
            notify_synced(self.sync_observers, zone, zones)
