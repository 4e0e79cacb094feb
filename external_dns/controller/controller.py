"""The zone pipeline: `Controller`, a `Pipeline` (pipeline.py: the plan, check and write steps every mode
shares) that reads the registry and the source, plans a zone (or everything), checks and writes, in the
order of external-dns's `controller.RunOnce`. `sync(zone, read)` is one run of the long-running zone
controller: a `Read` says what it reads (the whole source, a periodic pass's share, or named names), its
`RunResult` what it did, what it read and what moved at the provider meanwhile (what the zone controller
needs to plan the next run, zone_runs.py). The plan-first engine of `--once`, `plan` and `apply`
(zone_plans.py, once.py) uses its `read` and `plan_zone` steps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from enum import Enum

import structlog

from external_dns.controller import metrics
from external_dns.controller.dirty import Fingerprints, in_zone, name_fingerprints, names_of, without_names
from external_dns.controller.pipeline import (
    Pipeline,
    PreApplyCheck,
    RunOnceError,
    Scope,
    SyncObserver,
    is_soft_error,
    notify_synced,
)
from external_dns.endpoint.domain_filter import DomainFilterInterface, MatchAllDomainFilters
from external_dns.endpoint.endpoint import DEFAULT_MANAGED_RECORD_TYPES, Endpoint
from external_dns.endpoint.zones import log_zone, zone_finder
from external_dns.errors import error_text
from external_dns.plan import Changes, Policy, get_policy
from external_dns.registry.registry import Registry
from external_dns.sources.source import Source

# the pipeline's steps and errors, importable from here as before
__all__ = ["WHOLE", "ByNameUnavailable", "Controller", "PreApplyCheck", "Read", "ReadKind", "RunOnceError",
           "RunResult", "SyncObserver", "change_lines", "is_soft_error", "notify_synced", "partition_by_zone",
           "split_by_zone"]

log = structlog.get_logger(__name__)


class ByNameUnavailable(Exception):
    """A sync of named names found the source unable to read them by name (`Source.endpoints_for_names`
    returned None): nothing was read or written."""


class ReadKind(Enum):
    WHOLE = "whole"  # the source's endpoints, read by the sync
    SHARED = "shared"  # the zone's share of a read made once for a periodic pass (controller/pass_read.py)
    NAMES = "names"  # only some names: their endpoints read by name, or given from a read already made


@dataclass(frozen=True)
class Read:
    """What a sync reads: everything of its zone (`WHOLE`, `SHARED` with the share in `endpoints`), or only
    the rows of `names` (`NAMES`, name keys: their current records and their endpoints, read by name unless
    `endpoints` holds them already)."""

    kind: ReadKind = ReadKind.WHOLE
    endpoints: Sequence[Endpoint] | None = None
    names: frozenset[str] = frozenset()

    @classmethod
    def shared(cls, share: Sequence[Endpoint]) -> Read:
        return cls(ReadKind.SHARED, endpoints=share)

    @classmethod
    def of_names(cls, names: Iterable[str], endpoints: Sequence[Endpoint] | None = None) -> Read:
        return cls(ReadKind.NAMES, endpoints=endpoints, names=frozenset(names))


WHOLE = Read()


@dataclass
class RunResult:
    """What one sync did, and what its caller needs to plan the next one: `read`, the kind of read;
    `planned`, the names whose rows were planned (None: every name of the zone); `fingerprints`, each read
    name's `dirty.fingerprint` when asked for; `owed`, when following the registry's zone journal, the names
    that moved at the provider after the read and were not written by this sync (None: the registry lost
    track of the zone, only a full run is exact)."""

    changes: Changes
    applied: bool
    dry_run: bool
    current_count: int
    desired_count: int
    zone: str | None = None
    duration_seconds: float = 0.0
    change_lines: list[str] = field(default_factory=list)
    read: ReadKind = ReadKind.WHOLE
    planned: frozenset[str] | None = None
    fingerprints: Fingerprints | None = field(default=None, repr=False)
    owed: frozenset[str] | None = frozenset()

    @property
    def created(self) -> int:
        return len(self.changes.create)

    @property
    def updated(self) -> int:
        return len(self.changes.update_new)

    @property
    def deleted(self) -> int:
        return len(self.changes.delete)

    @property
    def has_changes(self) -> bool:
        return self.changes.has_changes()

    def summary(self) -> str:
        return f"{self.created} to create, {self.updated} to update, {self.deleted} to delete"


def split_by_zone(endpoints: Iterable[Endpoint], zones: Sequence[str]) -> dict[str | None, list[Endpoint]]:
    """Endpoints grouped by their closest zone (None: in no zone)."""
    out: dict[str | None, list[Endpoint]] = {}
    find = zone_finder(zones)
    for ep in endpoints:
        out.setdefault(find(ep.dns_name), []).append(ep)
    return out


def partition_by_zone(
    current: Iterable[Endpoint], desired: Iterable[Endpoint], zones: Sequence[str]
) -> dict[str | None, tuple[list[Endpoint], list[Endpoint]]]:
    """(current, desired) per zone, for zones holding at least one of either."""
    cur = split_by_zone(current, zones)
    des = split_by_zone(desired, zones)
    return {z: (cur.get(z, []), des.get(z, [])) for z in sorted(set(cur) | set(des), key=lambda z: z or "")}


def applied_text(changes: Changes) -> str:
    """The line logged once a zone's changes are written: what was created, updated and deleted (not all
    "updated": a first sync only creates)."""
    return (f"Applied: {len(changes.create)} created, {len(changes.update_new)} updated, "
            f"{len(changes.delete)} deleted")


def change_lines(changes: Changes) -> list[str]:
    """`CREATE www.example.com A` style lines, in a stable order (creates, updates, deletes)."""
    lines: list[str] = []
    for action, eps in (("CREATE", changes.create), ("UPDATE", changes.update_new), ("DELETE", changes.delete)):
        for ep in sorted(eps, key=lambda e: e.key()):
            ident = f" [{ep.set_identifier}]" if ep.set_identifier else ""
            lines.append(f"{action} {ep.dns_name} {ep.record_type}{ident} {';'.join(ep.targets)}".rstrip())
    return lines


def _policies(value: str | Policy | Sequence[str | Policy]) -> list[Policy]:
    items: list[str | Policy] = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else [value]
    if not items:
        raise ValueError("at least one policy is needed (--policy)")
    return [get_policy(p) if isinstance(p, str) else p for p in items]


class Controller(Pipeline):
    """One source, one registry, a policy and filters: the whole sync of external-dns's RunOnce, on the
    pipeline's steps (pipeline.py)."""

    def __init__(
        self,
        source: Source,
        registry: Registry,
        policy_name_or_policies: str | Policy | Sequence[str | Policy],
        domain_filter: DomainFilterInterface | None = None,
        managed_record_types: Sequence[str] = DEFAULT_MANAGED_RECORD_TYPES,
        exclude_record_types: Sequence[str] = (),
        old_owner_id: str = "",
        dry_run: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(dry_run=dry_run, clock=clock)
        self.source = source
        self.registry = registry
        self.policies = _policies(policy_name_or_policies)
        self.domain_filter = domain_filter
        self.managed_record_types = list(managed_record_types)
        self.exclude_record_types = list(exclude_record_types)
        self.old_owner_id = old_owner_id
        self._locks_lock = threading.Lock()
        self._run_locks: dict[str | None, threading.Lock] = {}  # one sync at a time per zone key
        # zone -> (records, per type, verified per type) its last read saw (registry gauges of zone reads)
        self._zone_metrics: dict[str, tuple[int, dict[str, int], dict[str, int]]] = {}
        self.consecutive_soft_errors = 0

    def scope(self) -> Scope:
        """The scope of the zone pipeline's plans: the flags' policies, filters and record types, the
        registry's owner."""
        return Scope(self.policies, MatchAllDomainFilters([self.domain_filter, self.registry.get_domain_filter()]),
                     self.managed_record_types, self.exclude_record_types, self.registry.owner_id(),
                     self.old_owner_id)

    def zone_keys(self) -> list[str]:
        """The provider's zones (sorted); `[""]` when it has none (one zone holding everything)."""
        return sorted(self.registry.provider.zones()) or [""]

    # -- one sync -------------------------------------------------------------------------------------------
    def run_once(self, zone: str | None = None, desired: list[Endpoint] | None = None) -> RunResult:
        """One sync of everything (or of one zone) reading the whole source; `desired`: the source's endpoints
        already read instead. Raises RunOnceError naming the failed step."""
        return self.sync(zone, WHOLE if desired is None else Read.shared(desired))

    def sync(self, zone: str | None, read: Read = WHOLE, *, fingerprints: bool = False,
             journal: bool = False, leave_out: Callable[[], Collection[str]] | None = None) -> RunResult:
        """One sync of `zone` (None: everything) reading what `read` says; one sync per zone at a time.
        `fingerprints`: the result carries each read name's fingerprint. `journal` (a zone): follow the
        registry's zone journal (`Registry.zone_changes`) and report what moved after the read
        (`RunResult.owed`). `leave_out` (a zone's full run beside its event runs): the zone's lock is held for
        the write only, and the rows of the names it returns then (planned by event runs since this read
        began) are left out of the write. Raises RunOnceError naming the failed step, ByNameUnavailable for
        names the source cannot read by name."""
        with self._locks_lock:
            lock = self._run_locks.setdefault(zone, threading.Lock())
        if leave_out is not None and zone is not None and read.kind is not ReadKind.NAMES:
            return self._sync(zone, read, fingerprints, journal, lock, leave_out)
        with lock:
            return self._sync(zone, read, fingerprints, journal and zone is not None)

    def _sync(self, zone: str | None, read: Read, fingerprints: bool, journal: bool,
              write_lock: threading.Lock | None = None,
              leave_out: Callable[[], Collection[str]] | None = None) -> RunResult:
        started = time.monotonic()
        zones = list(self.registry.provider.zones()) or [""] if zone is not None else []
        if read.kind is ReadKind.NAMES:
            assert zone is not None, "a read of names is a zone's"
            current, desired, raw = self._read_names(zone, read, zones)
        else:
            if journal:
                self._moved(zone)  # what moved so far: the read covers it
            current, desired, raw = self._read_zone(zone, read, zones)
        changes = self.plan_zone(zone, current, desired)
        result = RunResult(changes=changes, applied=False, dry_run=self.dry_run, current_count=len(current),
                           desired_count=len(desired), zone=zone, read=read.kind,
                           planned=read.names if read.kind is ReadKind.NAMES else None,
                           fingerprints=name_fingerprints(raw) if fingerprints else None)
        held: AbstractContextManager[object] = write_lock if write_lock is not None else nullcontext()
        with held:
            if leave_out is not None:  # event runs planned these after this read: theirs is newer
                changes = result.changes = without_names(changes, leave_out())
            owed: frozenset[str] | None = self._moved(zone) if journal else frozenset()  # moved since the read
            try:
                self._write(zone, result, current, desired)
            except RunOnceError as exc:
                exc.owed = owed
                raise
            if journal and owed is not None:
                after = self._moved(zone)  # our own write comes back at the names written: nothing owed there
                owed = None if after is None else owed | (after - names_of(changes))
        result.owed = owed
        self.synced(zone, zones)
        result.duration_seconds = time.monotonic() - started
        return result

    def _read_zone(self, zone: str | None, read: Read, zones: list[str]
                   ) -> tuple[list[Endpoint], list[Endpoint], list[Endpoint]]:
        """(current, adjusted desired, desired as read) of `zone` (None: everything) for a read of the whole
        source or a shared one."""
        given = None if read.endpoints is None else list(read.endpoints)
        current, desired, raw = self.read(zone, given)
        if zone is not None:  # names whose closest zone (longest label-boundary suffix) is `zone`
            current = in_zone(current, zone, zones)
            desired = in_zone(desired, zone, zones)
            raw = in_zone(raw, zone, zones)
        return current, desired, raw

    def _read_names(self, zone: str, read: Read, zones: list[str]
                    ) -> tuple[list[Endpoint], list[Endpoint], list[Endpoint]]:
        """(current, adjusted desired, desired as read) of the rows of `read.names` in `zone`."""
        metrics.LAST_RECONCILE_TIMESTAMP.set(self._clock())
        found = read.endpoints
        if found is None:
            try:
                found = self.source.endpoints_for_names(read.names)
            except Exception as exc:
                metrics.SOURCE_ERRORS.inc()
                raise RunOnceError("source endpoints", exc) from exc
            if found is None:
                raise ByNameUnavailable(f"the source cannot read {len(read.names)} name(s) by name")
        raw = in_zone(found, zone, zones)
        desired = self.adjust(raw)
        try:
            current = self.registry.zone_records(zone, read.names)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            raise RunOnceError("registry records", exc) from exc
        return current, desired, raw

    def _moved(self, zone: str | None) -> frozenset[str] | None:
        """The names whose current records moved since the last look (`Registry.zone_changes`); None when the
        registry cannot tell (it lost track of the zone, or its read failed: only a full run is exact)."""
        assert zone is not None
        try:
            moved = self.registry.zone_changes(zone)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            log.warning(f"cannot follow the zone's changes, its next run is a full one: {error_text(exc)}",
                        zone=zone)
            return None
        return None if moved is None else frozenset(moved)

    def _write(self, zone: str | None, result: RunResult, current: list[Endpoint],
               desired: list[Endpoint]) -> None:
        """Log the plan, check it and write it (not in dry-run)."""
        changes = result.changes
        zlog = log.bind(zone=log_zone(zone)) if zone is not None else log
        if self.dry_run:
            zlog = zlog.bind(dry_run=True)
        if not changes.has_changes():  # write only real changes, as RunOnce
            metrics.NO_OP_RUNS.inc()
            if result.read is ReadKind.NAMES:
                zlog.debug("All records are already up to date", names=len(result.planned or ()))
            else:
                zlog.info("All records are already up to date")
            return
        result.change_lines = change_lines(changes)
        for line in result.change_lines:
            zlog.info(f"Desired change: {line}")
        zlog.info(f"Plan: {result.summary()}")
        if self.dry_run:
            zlog.info("Dry run: no changes were applied")
            return
        if result.read is ReadKind.NAMES and zone is not None:
            # the checks judge the whole zone (the safety gate's denominator), not the rows planned
            try:
                whole = self.registry.zone_view(zone)
            except Exception as exc:
                metrics.REGISTRY_ERRORS.inc()
                raise RunOnceError("registry records", exc, changes) from exc
            self.check(zone, changes, whole, desired)
        else:
            self.check(zone, changes, current, desired)
        self.apply_changes(changes)
        result.applied = True
        zlog.info(applied_text(changes))

    # -- the steps of one sync, shared by `sync` and the plan-first engine (zone_plans.py) --------------------
    def read(self, zone: str | None = None, given: list[Endpoint] | None = None
             ) -> tuple[list[Endpoint], list[Endpoint], list[Endpoint]]:
        """(current records, adjusted desired endpoints, desired endpoints as read) of every zone, with the
        registry and source metrics; `zone`: only that zone's current records are read (the TXT registry
        answers from its per-zone map). `given`: the source's endpoints already read (the caller set the
        source metrics). Raises RunOnceError naming the failed step."""
        metrics.LAST_RECONCILE_TIMESTAMP.set(self._clock())
        try:
            current = self.registry.records() if zone is None else self.registry.zone_records(zone)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            raise RunOnceError("registry records", exc) from exc
        raw = self.read_source() if given is None else given
        self._registry_metrics(zone, current, raw)
        return current, self.adjust(raw), raw

    def adjust(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """`Registry.adjust_endpoints`; RunOnceError (step `adjusting endpoints`) on failure."""
        try:
            return self.registry.adjust_endpoints(endpoints)
        except Exception as exc:
            raise RunOnceError("adjusting endpoints", exc) from exc

    def read_source(self) -> list[Endpoint]:
        """The source's endpoints, with the source metrics; RunOnceError (step `source endpoints`) on failure."""
        try:
            desired = self.source.endpoints()
        except Exception as exc:
            metrics.SOURCE_ERRORS.inc()
            raise RunOnceError("source endpoints", exc) from exc
        metrics.SOURCE_ENDPOINTS.set(len(desired))
        metrics.set_per_type(metrics.SOURCE_RECORDS, metrics.count_by_type(desired))
        return desired

    def _registry_metrics(self, zone: str | None, current: list[Endpoint], desired: list[Endpoint]) -> None:
        """The registry and verified gauges: of everything for a full read; for a zone's read, the sum over
        the zones of what each zone's last read saw (so a zone's reconcile never shows only its own zone)."""
        counts = metrics.count_by_type(current)
        verified = metrics.verified_by_type(desired, current)
        with self._locks_lock:
            if zone is None:
                self._zone_metrics.clear()
                total, by_type, ver = len(current), counts, verified
            else:
                self._zone_metrics[zone] = (len(current), counts, verified)
                total = sum(n for n, _, _ in self._zone_metrics.values())
                by_type = {t: sum(c[t] for _, c, _ in self._zone_metrics.values()) for t in counts}
                ver = {t: sum(v[t] for _, _, v in self._zone_metrics.values()) for t in verified}
        metrics.REGISTRY_ENDPOINTS.set(total)
        metrics.set_per_type(metrics.REGISTRY_RECORDS, by_type)
        metrics.set_per_type(metrics.VERIFIED_RECORDS, ver)

    def plan_zone(self, zone: str | None, current: list[Endpoint], desired: list[Endpoint]) -> Changes:
        """The changes that bring `zone`'s `current` records to `desired` (policies and filters applied),
        then the plan observers. `zone` None: every zone at once."""
        changes = self.plan(current, desired, self.scope())
        self.observe_plan(zone, changes, current, desired)
        return changes

    def apply_changes(self, changes: Changes) -> None:
        """Write `changes` through the registry (the pipeline's `write`: metrics, record events)."""
        self.write(changes, self.registry.apply_changes)
