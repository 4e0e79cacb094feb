"""The DNSRecord lifecycle (`Reconciler.reconcile(key) -> Result`, `reconcile_many(keys)`): dns-operator's
per-record lifecycle of the queuedAt/validFor generation (write counter with a limit, validation requeues, the
finalizer held until the provider holds nothing of the record), as status writes. Records of other owners are
never updated or deleted (the plan's owner filter). Time and randomness are injected (`clock`, `rng`).

A pass begins here (`_begin`: the checks before any provider call, a `Result` when the pass ends there, else a
`batch.Job`); the provider pass of the batch's records runs zone by zone in batch.py (`Batcher`: the
pipeline's plan, check and write steps, one write per zone); each record's pass then ends here from its own
`Ending` (`_conclude`: its status, and its record events), in the order the batch decided.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import structlog

from external_dns.controller.dnsrecord import metrics
from external_dns.controller.dnsrecord.batch import Batcher, Job, Outcome
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
from external_dns.controller.dnsrecord.registry import record_registry
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
from external_dns.controller.pipeline import Pipeline
from external_dns.endpoint.endpoint import endpoints_to_json
from external_dns.providers.provider import Provider
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


class Reconciler:
    """Reconciles DNSRecords by key (`namespace/name`) against one provider (see the module docstring), through
    `pipeline`'s steps (the long-running process's: its safety gate, leader fence and event recorder; default:
    a pipeline of its own, without checks)."""

    def __init__(self, provider: Provider, api: RecordAPI, get_cached: Callable[[str], Obj | None],
                 options: Options | None = None, *, clock: WallClock = SYSTEM_CLOCK,
                 rng: random.Random | None = None,
                 registry_factory: Callable[[Provider, str], Registry] = record_registry,
                 pipeline: Pipeline | None = None) -> None:
        self.provider = provider
        self.api = api
        self.status_writer = StatusWriter(api)
        self.get_cached = get_cached
        self.options = options or Options()
        self.clock = clock
        self.rng = rng or random.Random()
        self.pipeline = pipeline or Pipeline()
        self.batcher = Batcher(provider, self.pipeline, self.options.write_counter_limit, registry_factory)

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
        jobs: list[Job] = []
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
        by_zone: dict[str, list[Job]] = {}
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
                job.zone = self.batcher.zone_of(job.root, zones)
            except Exception as exc:  # no zone for rootHost, or the provider cannot list its zones
                self.batcher.end(job, Outcome.FAILED, exc)
                continue
            by_zone.setdefault(job.zone, []).append(job)
        self._complete(jobs, results)  # those without a zone
        for group in by_zone.values():
            try:
                self.batcher.write_zone(group)
            finally:  # the status writes (Kubernetes API calls) outside the zone's lock, even after a bug
                self._complete(group, results)
        for job in jobs:
            results.setdefault(job.key, Result("error", error="no outcome"))
        return results

    def _begin(self, key: str) -> Result | Job:
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
    def _begin_live(self, key: str, obj: Obj, start: float) -> Result | Job:
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
        return Job(key, obj, start, deleting=False, owner=spec.owner_id, root=spec.root_host, spec=spec,
                   same_gen=same_gen, ready=ready, counter=counter)

    def _applied_live(self, job: Job) -> Result:
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

    def _clean_live(self, job: Job) -> Result:
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
                        exc: BaseException) -> Result:
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
    def _begin_delete(self, key: str, obj: Obj, start: float) -> Result | Job:
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
        job = Job(key, obj, start, deleting=True, owner=owner, root=root, ready=ready, counter=counter)
        if not root:
            return self._clean_delete(job)
        return job

    def _applied_delete(self, job: Job) -> Result:
        assert job.changes is not None
        validation = self.validation_requeue_time()
        new = self._status(job.obj, ready=False, reason=REASON_ENDPOINTS_DELETION, message=MESSAGE_ENDPOINTS_DELETION,
                           start=job.start)
        new.update(queuedAt=format_time(job.start), validFor=format_duration(validation))
        log.info("DNSRecord deleting its records, awaiting validation", record=job.key,
                 deletes=len(job.changes.delete), requeue_after=validation)
        self._write(job.obj, new, job.counter, ready=False)
        return Result("deleting", requeue_after=validation)

    def _clean_delete(self, job: Job) -> Result:
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

    # -- how each record's pass ends ------------------------------------------------------------------------
    def _gave_up(self, job: Job) -> Result:
        assert job.spec is not None
        return self._give_up(job.key, job.obj, job.spec, job.counter, job.start)

    def _failed(self, job: Job, exc: BaseException) -> Result:
        counter = job.write_counter if job.changes is not None else job.counter
        return replace(self._provider_error(job.key, job.obj, job.spec, counter, job.start, exc), zone=job.zone)

    def _complete(self, jobs: list[Job], results: dict[str, Result]) -> None:
        """Carry out the endings the batch decided, in the order decided (as they would have run one by one)."""
        for job in sorted((job for job in jobs if job.ending is not None),
                          key=lambda job: job.ending.order if job.ending else 0):
            results[job.key] = self._conclude(job)

    def _conclude(self, job: Job) -> Result:
        """The record's status from its `Ending`, and its record events; an exception fails this record only:
        after a plan, as a provider error (as in a pass of its own), else (an API failure, a bug) as a failed
        reconcile."""
        ending, job.ending = job.ending, None  # it may hold an exception, whose traceback holds the batch
        assert ending is not None
        outcome, error = ending.outcome, ending.error
        try:
            if outcome is Outcome.APPLIED and job.changes is not None:
                self.pipeline.record_events(job.changes)
                return self._applied_delete(job) if job.deleting else self._applied_live(job)
            if outcome is Outcome.UNCHANGED:
                return self._clean_delete(job) if job.deleting else self._clean_live(job)
            if outcome is Outcome.GAVE_UP:
                return self._gave_up(job)
            if job.changes is not None and error is not None:  # the write refused them
                self.pipeline.record_events(job.changes, error)
            return self._failed(job, error or RuntimeError("no outcome"))
        except Exception as exc:
            if outcome is not Outcome.FAILED and not (outcome is Outcome.UNCHANGED and job.deleting):
                try:
                    return self._failed(job, exc)
                except Exception:
                    pass
            log.exception("DNSRecord reconcile failed", record=job.key)
            return Result("error", error=str(exc))

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


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
