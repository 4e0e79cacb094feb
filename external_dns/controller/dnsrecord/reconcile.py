"""Reconciles of DNSRecords (`Reconciler.reconcile(key) -> Result`, `reconcile_many(keys)`): dns-operator's
per-record lifecycle of the queuedAt/validFor generation (write counter with a limit, validation requeues, the
finalizer held until the provider holds nothing of the record). Records of other owners are never updated
or deleted (the plan's owner filter). Time and randomness are injected (`clock`, `rng`).

A batch of records (`reconcile_many`, the keys a worker took at once) is checked and planned record by record
as single passes are; the records of one zone then share one provider write instead of one each (a zone file
is rewritten whole per write, so a write per record made N records cost N zone rewrites). The rules that keep
each record's outcome what its own pass would give sit in `_round` and `_settle`: overlapping records are
written one after the other, a refused write is split until the refused record stands alone, and each record's
status comes from its own part of the outcome. The workers' batches of one zone plan and write one after the
other (a lock per zone, not held for the status writes).
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import structlog

from external_dns.controller.dnsrecord import metrics
from external_dns.controller.dnsrecord.clock import (
    SYSTEM_CLOCK,
    WallClock,
    format_duration,
    format_time,
    parse_time,
    parse_valid_for,
    randomize,
)
from external_dns.controller.dnsrecord.defaults import (
    DEFAULT_MIN_REQUEUE_TIME,
    DEFAULT_REQUEUE_TIME,
    DEFAULT_VALID_FOR,
    DEFAULT_WRITE_COUNTER_LIMIT,
)
from external_dns.controller.dnsrecord.registry import (
    MANAGED_RECORD_TYPES,
    Collecting,
    SubtreeIndex,
    SubtreeView,
    record_registry,
    subtree_registry,
)
from external_dns.controller.dnsrecord.status import (
    ConflictError,
    GoneError,
    Obj,
    RecordAPI,
    StatusWriter,
    get_condition,
    remove_condition,
    set_condition,
)
from external_dns.controller.dnsrecord.types import (
    CONDITION_READY,
    CONDITION_UNSUPPORTED,
    FINALIZER,
    GIVE_UP_LOG,
    MESSAGE_AWAITING_VALIDATION,
    MESSAGE_ENDPOINTS_DELETION,
    MESSAGE_ENDPOINTS_REMOVED,
    MESSAGE_PROVIDER_ERROR,
    MESSAGE_PROVIDER_SUCCESS,
    MESSAGE_VALIDATION_ERROR,
    REASON_AWAITING_VALIDATION,
    REASON_ENDPOINTS_DELETION,
    REASON_ENDPOINTS_REMOVED,
    REASON_PROVIDER_ERROR,
    REASON_PROVIDER_SUCCESS,
    REASON_UNSUPPORTED_FIELDS,
    REASON_VALIDATION_ERROR,
    WRITE_LIMIT_ERROR,
    DNSRecordSpec,
    ValidationError,
    generation_of,
    owner_id_of,
    root_host_of,
    validate,
)
from external_dns.controller.outcomes import is_fatal_error
from external_dns.endpoint.domain_filter import DomainFilter, MatchAllDomainFilters
from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, Endpoint, endpoints_to_json
from external_dns.endpoint.zones import name_key
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.provider import Provider, SoftError, zone_for_name
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)

VALIDATION_VARIANCE = 0.5
CLOCK_SKEW = 60.0  # a queuedAt further in the future than this is not believed


@dataclass(frozen=True)
class Options:
    """The lifecycle timing (flags `--min-requeue-time`, `--requeue-time`, `--valid-for`,
    `--write-counter-limit`)."""

    min_requeue_time: float = DEFAULT_MIN_REQUEUE_TIME
    requeue_time: float = DEFAULT_REQUEUE_TIME
    valid_for: float = DEFAULT_VALID_FOR
    write_counter_limit: int = DEFAULT_WRITE_COUNTER_LIMIT
    variance: float = VALIDATION_VARIANCE


@dataclass(frozen=True)
class Result:
    """What the controller does next with the key: `requeue_after` seconds (None: not requeued), or with
    `error` set, a rate-limited requeue. `action` says what the pass did (for logs and tests). A provider
    error keeps its exception (`cause`) and the record's zone, so the controller can tell a failure no retry
    can fix (controller/outcomes.is_fatal_error) from one worth a requeue."""

    action: str
    requeue_after: float | None = None
    error: str = ""
    cause: BaseException | None = field(default=None, compare=False, repr=False)
    zone: str = field(default="", compare=False)


@dataclass
class _Job:
    """One record's provider pass inside a batch: planned (again after a deferral or a split), then finished
    from its own part of the outcome (`result`)."""

    key: str
    obj: Obj
    start: float
    deleting: bool
    owner: str
    root: str
    spec: DNSRecordSpec | None = None
    same_gen: bool = False
    ready: Mapping[str, Any] = field(default_factory=dict)
    counter: int = 0  # status.writeCounter (live records: of this generation, else 0)
    zone: str = ""
    changes: Changes | None = None  # the last plan's changes; None: nothing to write
    collected: Changes | None = None  # what the write sends: `changes` with their ownership TXTs
    read_names: set[str] | None = None  # names the plan read besides those under `root`; None: everything
    limit_reached: bool = False  # the plan has changes, and this generation's writes are used up
    result: Result | None = None
    # How the pass ends (its status write: `_finish` decides it under the zone's lock, `_complete` writes it
    # after): (order decided, step, its arguments).
    ending: tuple[int, Callable[..., Result], tuple[Any, ...]] | None = None

    @property
    def write_counter(self) -> int:
        """The counter once this generation's write is sent (a new generation starts again from 0)."""
        return self.counter + 1 if self.same_gen and not self.deleting else self.counter

    def balanced(self) -> bool:
        return self.collected is None or len(self.collected.update_old) == len(self.collected.update_new)


class _Footprints:
    """Where records may read and write: each one's rootHost (the names at or below it) and the other names it
    read; `hits` tells whether another record's rootHost and names meet any of them."""

    def __init__(self) -> None:
        self.roots: set[str] = set()
        self.names: set[str] = set()
        self.above: set[str] = set()  # each root and name with all its parent names

    def add(self, root: str, names: set[str]) -> None:
        self.roots.add(root)
        self.names |= names
        self.above.update(_suffixes({root, *names}))

    def hits(self, root: str, names: set[str]) -> bool:
        if root in self.above or not self.roots.isdisjoint(_suffixes({root})):
            return True  # one root at or below the other, or a name read at or below `root`
        return not self.names.isdisjoint(names) or not self.roots.isdisjoint(_suffixes(names))


def _suffixes(names: set[str]) -> set[str]:
    """Each name and every parent name of it (`a.b.c`: `a.b.c`, `b.c`, `c`)."""
    out: set[str] = set()
    for name in names:
        labels = name.split(".")
        out.update(".".join(labels[i:]) for i in range(len(labels)))
    return out


class Reconciler:
    """Reconciles DNSRecords by key (`namespace/name`) against one provider (see the module docstring)."""

    def __init__(self, provider: Provider, api: RecordAPI, get_cached: Callable[[str], Obj | None],
                 options: Options | None = None, *, clock: WallClock = SYSTEM_CLOCK,
                 rng: random.Random | None = None,
                 registry_factory: Callable[[Provider, str], Registry] = record_registry) -> None:
        self.provider = provider
        self.api = api
        self.status_writer = StatusWriter(api)
        self.get_cached = get_cached
        self.options = options or Options()
        self.clock = clock
        self.rng = rng or random.Random()
        self.registry_factory = registry_factory
        self._index_lock = threading.Lock()
        self._indexes: dict[str, SubtreeIndex] = {}  # zone -> names under a rootHost, shared by the workers
        # zone -> held from a batch's first read of the zone to its last write: the workers' batches of one zone
        # plan and write one after the other, as single passes of one worker (two batches planned against the
        # same read could both create a name two owners claim; on RFC2136 both targets were added).
        self._zone_locks: dict[str, threading.Lock] = {}
        self._endings = itertools.count()

    # -- entry ------------------------------------------------------------------------------------------
    def validation_requeue_time(self) -> float:
        return randomize(self.options.min_requeue_time, self.options.variance, self.rng)

    def reconcile(self, key: str) -> Result:
        """One pass of one record (a batch of one)."""
        return self.reconcile_many([key])[key]

    def reconcile_many(self, keys: Sequence[str]) -> dict[str, Result]:
        """One pass of each record of `keys`, their provider writes joined per zone: each record is
        checked and planned on its own as in a pass of its own, then the zone gets one write for the records
        whose plans do not overlap (see `_settle`), and each record's status is written from its own part of
        the outcome. A record whose pass fails (an API error, a bug) fails alone."""
        results: dict[str, Result] = {}
        jobs: list[_Job] = []
        for key in dict.fromkeys(keys):  # a key given twice is reconciled once
            try:
                begun = self._begin(key)
            except Exception as exc:  # an API failure or a bug: this record only
                log.exception("DNSRecord reconcile failed", record=key)
                begun = Result("error", error=str(exc))
            if isinstance(begun, Result):
                results[key] = begun
            else:
                jobs.append(begun)
        by_zone: dict[str, list[_Job]] = {}
        zones: list[str] | Exception = []
        if jobs:
            try:
                zones = list(self.provider.zones())  # once for the batch
            except Exception as exc:
                zones = exc
        for job in jobs:
            try:
                if isinstance(zones, Exception):
                    raise zones
                job.zone = self._zone_in(job.root, zones)
            except Exception as exc:  # no zone for rootHost, or the provider cannot list its zones
                self._finish(job, self._failed, exc)
                continue
            by_zone.setdefault(job.zone, []).append(job)
        self._complete(jobs)  # those without a zone
        for zone, group in by_zone.items():
            try:
                with self._zone_lock(zone):
                    self._settle(group)
            finally:  # the status writes (Kubernetes API calls) outside the zone's lock, even after a bug
                self._complete(group)
        for job in jobs:
            results[job.key] = job.result or Result("error", error="no outcome")
        return results

    def _begin(self, key: str) -> Result | _Job:
        """The checks before any provider call: a Result when the pass ends there, else the provider pass."""
        namespace, _, name = key.rpartition("/")
        obj = self.get_cached(key)
        if obj is None:  # gone from the cache: only its metrics are left to remove
            metrics.forget(namespace, name)
            return Result("gone")
        start = self.clock.now()
        meta = obj.get("metadata") or {}
        finalizers = [f for f in (meta.get("finalizers") or []) if isinstance(f, str)]
        if meta.get("deletionTimestamp"):
            if FINALIZER not in finalizers:
                return Result("gone")
            return self._begin_delete(key, obj, start)
        if FINALIZER not in finalizers:  # added on first sight (merge patch with the resourceVersion)
            try:
                obj = self.api.set_finalizers(obj, [*finalizers, FINALIZER])
            except ConflictError:
                return Result("conflict", requeue_after=1.0)
            except GoneError:
                metrics.forget(namespace, name)
                return Result("gone")
            log.debug("added finalizer", record=key)
        return self._begin_live(key, obj, start)

    # -- live records -------------------------------------------------------------------------------------
    def _begin_live(self, key: str, obj: Obj, start: float) -> Result | _Job:
        status: Mapping[str, Any] = obj.get("status") or {}
        gen = generation_of(obj)
        same_gen = status.get("observedGeneration") == gen
        ready = get_condition(status, CONDITION_READY) or {}
        counter = _int(status.get("writeCounter")) if same_gen else 0
        try:
            spec = validate(obj)
        except ValidationError as exc:  # nothing sent to the provider, no requeue: a spec change brings it back
            message = MESSAGE_VALIDATION_ERROR.format(exc)
            log.error(message, record=key)
            new = self._status(obj, ready=False, reason=REASON_VALIDATION_ERROR, message=message, start=start)
            new["writeCounter"] = counter
            self._write(obj, new, counter, ready=False)
            return Result("invalid")

        if (same_gen and ready.get("reason") == REASON_PROVIDER_ERROR
                and WRITE_LIMIT_ERROR in str(ready.get("message", ""))):
            return Result("gave-up")  # the write limit was reached: nothing until the generation changes

        # Premature: no provider call before queuedAt + validFor.
        if same_gen and ready.get("reason") in (REASON_PROVIDER_SUCCESS, REASON_AWAITING_VALIDATION):
            remaining = self._remaining_validity(key, status, start)
            if remaining > 0:
                return Result("premature", requeue_after=remaining)
        return _Job(key, obj, start, deleting=False, owner=spec.owner_id, root=spec.root_host, spec=spec,
                    same_gen=same_gen, ready=ready, counter=counter)

    def _applied_live(self, job: _Job) -> Result:
        """Changes applied: AwaitingValidation, requeue after min_requeue_time +/- 50 %; a rewrite within one
        generation counted towards the write limit."""
        assert job.spec is not None and job.changes is not None
        spec, changes, counter, zone = job.spec, job.changes, job.write_counter, job.zone.rstrip(".")
        validation = self.validation_requeue_time()
        new = self._status(job.obj, ready=False, reason=REASON_AWAITING_VALIDATION, message=MESSAGE_AWAITING_VALIDATION,
                           start=job.start, spec=spec)
        new.update(queuedAt=format_time(job.start), validFor=format_duration(validation), writeCounter=counter,
                   endpoints=endpoints_to_json(spec.endpoints), zoneID=zone, zoneDomainName=zone)
        log.info("DNSRecord changes applied, awaiting validation", record=job.key, writeCounter=counter,
                 creates=len(changes.create), updates=len(changes.update_new), deletes=len(changes.delete),
                 requeue_after=validation)
        requeue = validation if self._write(job.obj, new, counter, ready=False) else 0.0
        return Result("applied", requeue_after=requeue)

    def _clean_live(self, job: _Job) -> Result:
        """No changes: Ready, requeue after requeue_time."""
        assert job.spec is not None
        spec, zone = job.spec, job.zone.rstrip(".")
        new = self._status(job.obj, ready=True, reason=REASON_PROVIDER_SUCCESS, message=MESSAGE_PROVIDER_SUCCESS,
                           start=job.start, spec=spec)
        new.update(queuedAt=format_time(job.start), validFor=format_duration(self.options.valid_for),
                   writeCounter=0, endpoints=endpoints_to_json(spec.endpoints), zoneID=zone, zoneDomainName=zone)
        if not self._write(job.obj, new, 0, ready=True):
            return Result("stale", requeue_after=0.0)  # a newer status exists: decide again from it
        if job.ready.get("reason") != REASON_PROVIDER_SUCCESS or not job.same_gen:
            log.info("DNSRecord ready: the provider holds its records", record=job.key, zone=zone)
        return Result("ready", requeue_after=self.options.requeue_time)

    def _remaining_validity(self, key: str, status: Mapping[str, Any], start: float) -> float:
        """Seconds until queuedAt + validFor; a `validFor` that does not parse counts as 0, a
        `queuedAt` that does not parse or lies in the future is ignored (a full reconcile rewrites both)."""
        queued = parse_time(status.get("queuedAt"))
        if queued is None:
            if status.get("queuedAt"):
                log.warning("status.queuedAt does not parse, ignoring it", record=key, queuedAt=status.get("queuedAt"))
            return 0.0
        if queued > start + CLOCK_SKEW:
            log.warning("status.queuedAt is in the future, ignoring it", record=key, queuedAt=status.get("queuedAt"))
            return 0.0
        raw = status.get("validFor")
        valid_for = parse_valid_for(raw) if raw else self.options.valid_for
        return queued + valid_for - start

    def _give_up(self, key: str, obj: Obj, spec: DNSRecordSpec, counter: int, start: float) -> Result:
        log.error(GIVE_UP_LOG, record=key, writeCounter=counter, limit=self.options.write_counter_limit)
        message = MESSAGE_PROVIDER_ERROR.format(WRITE_LIMIT_ERROR)
        new = self._status(obj, ready=False, reason=REASON_PROVIDER_ERROR, message=message, start=start, spec=spec)
        new["writeCounter"] = counter
        self._write(obj, new, counter, ready=False)
        return Result("gave-up")

    def _provider_error(self, key: str, obj: Obj, spec: DNSRecordSpec | None, counter: int, start: float,
                        exc: Exception) -> Result:
        """Ready False / ProviderError with the error, other status fields kept, and `Result.error` so the
        controller requeues with its rate limiter. dns-operator's code does this, not its RFC text ("no
        requeue"): provider errors are mostly transient, and the back-off (up to 1000 s) keeps a permanent
        one cheap."""
        message = MESSAGE_PROVIDER_ERROR.format(exc)
        log.error(message, record=key, error_type=type(exc).__name__)
        new = self._status(obj, ready=False, reason=REASON_PROVIDER_ERROR, message=message, start=start, spec=spec)
        new["writeCounter"] = counter
        try:
            self._write(obj, new, counter, ready=False)
        except Exception as write_exc:
            log.error("cannot write the DNSRecord status", record=key, error=str(write_exc))
        return Result("error", error=str(exc), cause=exc)

    # -- deletion -------------------------------------------------------------------------------------------
    def _begin_delete(self, key: str, obj: Obj, start: float) -> Result | _Job:
        """A deleting record: plan with no desired endpoints (names under rootHost only) and apply, Ready
        False / ProviderEndpointsDeletion, requeue after the validation time; a pass that finds nothing left
        writes ProviderEndpointsRemoved and removes the finalizer. A status write that loses to a newer
        status ends the pass `stale` with an immediate requeue (no early finalizer removal)."""
        owner, root = owner_id_of(obj), root_host_of(obj)
        status = obj.get("status") or {}
        counter = _int(status.get("writeCounter"))
        ready = get_condition(status, CONDITION_READY) or {}
        if ready.get("reason") == REASON_ENDPOINTS_DELETION:  # validate the deletion only once it is due
            remaining = self._remaining_validity(key, status, start)
            if remaining > 0:
                return Result("premature", requeue_after=remaining)
        job = _Job(key, obj, start, deleting=True, owner=owner, root=root, ready=ready, counter=counter)
        if not root:
            return self._clean_delete(job)
        return job

    def _applied_delete(self, job: _Job) -> Result:
        assert job.changes is not None
        validation = self.validation_requeue_time()
        new = self._status(job.obj, ready=False, reason=REASON_ENDPOINTS_DELETION, message=MESSAGE_ENDPOINTS_DELETION,
                           start=job.start)
        new.update(queuedAt=format_time(job.start), validFor=format_duration(validation))
        log.info("DNSRecord deleting its records, awaiting validation", record=job.key,
                 deletes=len(job.changes.delete), requeue_after=validation)
        self._write(job.obj, new, job.counter, ready=False)
        return Result("deleting", requeue_after=validation)

    def _clean_delete(self, job: _Job) -> Result:
        obj, meta = job.obj, job.obj.get("metadata") or {}
        namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
        new = self._status(obj, ready=False, reason=REASON_ENDPOINTS_REMOVED, message=MESSAGE_ENDPOINTS_REMOVED,
                           start=job.start)
        for gone in ("zoneID", "zoneDomainName", "endpoints"):
            new.pop(gone, None)
        base = self.status_writer.write(obj, new)
        if base is None:  # gone, or a newer status was written: decide again from the object as it is now
            if self.api.get(namespace, name) is None:
                metrics.forget(namespace, name)
                return Result("gone")
            return Result("stale", requeue_after=0.0)
        finalizers = [f for f in ((base.get("metadata") or {}).get("finalizers") or []) if f != FINALIZER]
        try:
            self.api.set_finalizers(base, finalizers)
        except ConflictError:
            return Result("conflict", requeue_after=1.0)
        except GoneError:  # a pass on a stale cache: an earlier pass removed the finalizer already
            metrics.forget(namespace, name)
            return Result("gone")
        metrics.forget(namespace, name)
        log.info("DNSRecord records removed from the provider, finalizer removed", record=job.key)
        return Result("finalizer-removed")

    # -- the provider pass of a batch ---------------------------------------------------------------------------
    def _plan_job(self, job: _Job, snapshot: ZoneSnapshot | None, domains: DomainFilter | None = None) -> None:
        """Plan one record against `snapshot` (the zone as the round read it; None: read it now); its writes
        (with their ownership TXTs) are kept in `job.collected`, not sent; `job.limit_reached` when they would
        pass the write limit."""
        job.changes = job.collected = None
        job.limit_reached = False
        desired_names = [ep.dns_name for ep in job.spec.endpoints] if job.spec is not None else []
        registry, sink = self._registry(job.owner, job.root, job.zone, desired_names, snapshot, domains)
        job.read_names = sink.read_names if isinstance(sink, SubtreeView) else None  # filled by the read
        desired = registry.adjust_endpoints([ep.copy() for ep in job.spec.endpoints]) if job.spec is not None else []
        changes = self._plan(registry, desired, job.root, job.owner)
        if not changes.has_changes():
            return
        if not job.deleting and job.same_gen and job.counter >= self.options.write_counter_limit:
            job.limit_reached = True
            return
        registry.apply_changes(changes)
        job.changes = changes
        job.collected = sink.collected or Changes()

    def _round(self, jobs: list[_Job]) -> tuple[list[_Job], list[_Job]]:
        """Plan `jobs` in order against one read of the zone; finish those that end without a write (no
        changes, the write limit, a failed plan). Returns (the records written together now, the records
        deferred to after that write). Each record must end as it would in single passes in this order, so a
        record is deferred, whatever its plan said, when it read a name an earlier record of the write changes
        (it must see that write), when its reads or writes touch what an earlier deferred record may read or
        write (the order between them must hold), when either reads the whole provider (a custom registry),
        or when its updates are not in old/new pairs (the write must keep every record's pairs aligned)."""
        accepted: list[_Job] = []
        later: list[_Job] = []
        written: set[str] = set()
        above: set[str] = set()  # every written name and each of its parent names
        waiting = _Footprints()  # what the deferred records may read and write
        exclusive = False
        try:
            snapshot = self._snapshot(jobs[0].zone) if jobs else None
            domains = self.provider.get_domain_filter() if snapshot is not None else None
        except Exception as exc:  # the zone cannot be read: every record would have failed on it
            for job in jobs:
                self._finish(job, self._failed, exc)
            return [], []
        for job in jobs:
            error: Exception | None = None
            try:
                self._plan_job(job, snapshot, domains)
            except Exception as exc:  # provider, registry, another owner's record
                error = exc
            mine = {name_key(ep.dns_name) for ep in job.collected.all_endpoints()} if job.collected else set()
            touched = mine | (job.read_names or set())
            if later and (job.read_names is None or waiting.hits(job.root, touched)):
                waiting.add(job.root, touched)
                later.append(job)
                continue
            if accepted and (exclusive or job.read_names is None or not job.balanced() or job.root in above
                             or not written.isdisjoint(touched)):
                waiting.add(job.root, touched)
                later.append(job)
                continue
            if error is not None:
                self._finish(job, self._failed, error)
            elif job.limit_reached:
                self._finish(job, self._gave_up)
            elif job.changes is None:
                self._finish(job, self._clean_delete if job.deleting else self._clean_live)
            else:
                accepted.append(job)
                exclusive = exclusive or job.read_names is None or not job.balanced()
                written |= mine
                above.update(_suffixes(mine))
        return accepted, later

    def _settle(self, jobs: list[_Job], soft: Exception | None = None) -> None:
        """Write the records of one zone: rounds of one provider write each (`_round`). A refused write of
        several records is split in halves, each planned again and written on its own, until the refused
        record stands alone and fails alone (changes a provider applied before refusing show up as done in
        the new plan). A `SoftError` (a provider down or busy, a lock held) is not split: the records are
        planned again, and when none of them moved, all fail with it (no 2n-1 attempts on a dead provider).
        """
        while jobs:
            accepted, later = self._round(jobs)
            if soft is not None:
                if len(accepted) + len(later) == len(jobs) and all(j.changes is not None for j in later):
                    for job in [*accepted, *later]:
                        self._finish(job, self._failed, soft)
                    return
                soft = None
            if accepted:
                self._write_batch(accepted)
            jobs = later

    def _write_batch(self, jobs: list[_Job]) -> None:
        merged = Changes()
        for job in jobs:
            assert job.collected is not None
            merged.create.extend(job.collected.create)
            merged.update_old.extend(job.collected.update_old)
            merged.update_new.extend(job.collected.update_new)
            merged.delete.extend(job.collected.delete)
        try:
            if not merged.is_empty():
                self.provider.apply_changes(merged)
        except Exception as exc:
            if len(jobs) == 1 or is_fatal_error(exc):  # a refused credential refuses every half as well
                for job in jobs:
                    self._finish(job, self._failed, exc)
            elif isinstance(exc, SoftError):
                log.info("DNSRecord batch write failed, planning its records again", records=len(jobs),
                         error=str(exc))
                self._settle(jobs, soft=exc)
            else:
                log.info("DNSRecord batch write refused, writing it in halves", records=len(jobs), error=str(exc))
                mid = len(jobs) // 2
                self._settle(jobs[:mid])
                self._settle(jobs[mid:])
            return
        if len(jobs) > 1:
            log.debug("DNSRecord batch written", records=len(jobs), zone=jobs[0].zone)
        for job in jobs:
            self._finish(job, self._applied_delete if job.deleting else self._applied_live)

    def _gave_up(self, job: _Job) -> Result:
        assert job.spec is not None
        return self._give_up(job.key, job.obj, job.spec, job.counter, job.start)

    def _failed(self, job: _Job, exc: Exception) -> Result:
        counter = job.write_counter if job.changes is not None else job.counter
        return replace(self._provider_error(job.key, job.obj, job.spec, counter, job.start, exc), zone=job.zone)

    def _finish(self, job: _Job, step: Callable[..., Result], *args: Any) -> None:
        """The record's pass ends with `step(job, *args)` (its status write, run by `_complete`)."""
        job.ending = (next(self._endings), step, args)

    def _complete(self, jobs: list[_Job]) -> None:
        """Run the endings `_finish` decided, in the order decided (as they would have run one by one)."""
        ended = sorted((job for job in jobs if job.ending is not None),
                       key=lambda job: job.ending[0] if job.ending else 0)
        for job in ended:
            assert job.ending is not None
            _, step, args = job.ending
            job.ending = None  # it may hold an exception, whose traceback holds the batch
            self._end(job, step, *args)

    def _end(self, job: _Job, step: Callable[..., Result], *args: Any) -> None:
        """`job.result = step(job, *args)`; an exception fails this record only: after a plan, as a provider
        error (as in a pass of its own), else (an API failure, a bug) as a failed reconcile."""
        try:
            job.result = step(job, *args)
            return
        except Exception as exc:
            if step not in (self._failed, self._clean_delete):
                try:
                    job.result = self._failed(job, exc)
                    return
                except Exception:
                    pass
            log.exception("DNSRecord reconcile failed", record=job.key)
            job.result = Result("error", error=str(exc))

    # -- helpers --------------------------------------------------------------------------------------------
    def _zone_lock(self, zone: str) -> threading.Lock:
        with self._index_lock:
            return self._zone_locks.setdefault(zone, threading.Lock())

    @staticmethod
    def _zone_in(root_host: str, zones: list[str]) -> str:
        """The zone of `zones` holding `root_host` ("" when the provider lists no zones); LookupError if none."""
        if not zones:
            return ""
        zone = zone_for_name(root_host, zones)
        if zone is None:
            raise LookupError(f"Unable to find suitable zone in provider: no zone of the provider holds rootHost "
                              f"{root_host} (zones: {', '.join(sorted(zones))})")
        return zone

    def _snapshot(self, zone: str) -> ZoneSnapshot | None:
        """The zone's snapshot, read once for a round of records that all plan before anything is written (so
        each would have read the same); None with a custom registry (it reads for itself)."""
        if self.registry_factory is not record_registry:
            return None
        return self.provider.zone_snapshot(zone)

    def _registry(self, owner_id: str, root_host: str, zone: str, desired_names: list[str],
                  snapshot: ZoneSnapshot | None = None,
                  domains: DomainFilter | None = None) -> tuple[Registry, SubtreeView | Collecting]:
        """The record's registry and what it writes into (kept for the batch's write). The default one reads
        only the names under `root_host` from the provider's zone snapshot (registry.SubtreeView) instead of
        the whole provider."""
        if self.registry_factory is not record_registry:
            sink = Collecting(self.provider)
            return self.registry_factory(sink, owner_id), sink
        with self._index_lock:
            index = self._indexes.setdefault(zone, SubtreeIndex())
        return subtree_registry(self.provider, owner_id, zone, root_host, desired_names, index=index, collect=True,
                                snapshot=snapshot, domain_filter=domains)
    def _plan(self, registry: Registry, desired: list[Endpoint], root_host: str, owner_id: str) -> Changes:
        current = registry.records()
        _check_conflicts(current, desired, owner_id)
        plan = Plan(current, desired, policies=["sync"],
                    domain_filter=MatchAllDomainFilters([DomainFilter([root_host]), registry.get_domain_filter()]),
                    managed_records=MANAGED_RECORD_TYPES, owner_id=owner_id).calculate()
        return plan.changes

    def _status(self, obj: Obj, *, ready: bool, reason: str, message: str, start: float,
                spec: DNSRecordSpec | None = None) -> Obj:
        """The record's status with Ready set (the other fields as they are)."""
        status: Obj = dict(obj.get("status") or {})
        gen = generation_of(obj)
        conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, Mapping)]
        conditions = set_condition(conditions, CONDITION_READY, ready, reason, message, gen, start)
        if spec is not None and spec.unsupported:
            what = {"providerRef": "spec.providerRef (the records go to this process's --provider)",
                    "healthCheck": "spec.healthCheck (no health checks: every endpoint is published)"}
            conditions = set_condition(
                conditions, CONDITION_UNSUPPORTED, True, REASON_UNSUPPORTED_FIELDS,
                "not served by external-dns-py: " + "; ".join(what.get(f, f"spec.{f}") for f in spec.unsupported),
                gen, start)
        elif spec is not None:
            conditions = remove_condition(conditions, CONDITION_UNSUPPORTED)
        status["conditions"] = conditions
        status["observedGeneration"] = gen
        status["ownerID"] = owner_id_of(obj)
        return status

    def _write(self, obj: Obj, status: Obj, counter: int, *, ready: bool) -> bool:
        """Write the status and the metrics; False when a newer status was found (the caller requeues now)."""
        meta = obj.get("metadata") or {}
        namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
        metrics.set_write_counter(namespace, name, counter)
        metrics.set_ready(namespace, name, root_host_of(obj), ready)
        return self.status_writer.write(obj, status) is not None


class OwnershipConflictError(Exception):
    """A desired record exists at the provider and is not owned by this record's owner ID."""


def _check_conflicts(current: list[Endpoint], desired: list[Endpoint], owner_id: str) -> None:
    """Refuse (nothing is written) when a desired name/type/set identifier is held by somebody else."""
    held = {(name_key(ep.dns_name), ep.record_type, ep.set_identifier): ep for ep in current}
    taken: list[str] = []
    for ep in desired:
        cur = held.get((name_key(ep.dns_name), ep.record_type, ep.set_identifier))
        if cur is not None and cur.labels.get(OWNER_LABEL_KEY, "") != owner_id:
            who = cur.labels.get(OWNER_LABEL_KEY, "")
            taken.append(f"{ep.dns_name} {ep.record_type} is " + (f"owned by {who!r}" if who else "not owned by us"))
    if taken:
        raise OwnershipConflictError("records held by another owner, not taken over: " + "; ".join(taken))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
