"""One reconcile of one DNSRecord (`Reconciler.reconcile(key) -> Result`): dns-operator's per-record
lifecycle of the queuedAt/validFor generation (write counter with a limit, validation requeues, the
finalizer held until the provider holds nothing of the record). Records of other owners are never updated
or deleted (the plan's owner filter). Time and randomness are injected (`clock`, `rng`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
from external_dns.controller.dnsrecord.registry import MANAGED_RECORD_TYPES, record_registry, view_registry
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
from external_dns.endpoint.domain_filter import DomainFilter, MatchAllDomainFilters
from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, Endpoint, endpoints_to_json
from external_dns.endpoint.zones import name_key
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.provider import Provider, zone_for_name
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
    `error` set, a rate-limited requeue. `action` says what the pass did (for logs and tests)."""

    action: str
    requeue_after: float | None = None
    error: str = ""


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

    # -- entry ------------------------------------------------------------------------------------------
    def validation_requeue_time(self) -> float:
        return randomize(self.options.min_requeue_time, self.options.variance, self.rng)

    def reconcile(self, key: str) -> Result:
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
            return self._delete(obj, start)
        if FINALIZER not in finalizers:  # added on first sight (merge patch with the resourceVersion)
            try:
                obj = self.api.set_finalizers(obj, [*finalizers, FINALIZER])
            except ConflictError:
                return Result("conflict", requeue_after=1.0)
            except GoneError:
                metrics.forget(namespace, name)
                return Result("gone")
            log.debug("added finalizer", record=key)
        return self._reconcile_live(key, obj, start)

    # -- live records -------------------------------------------------------------------------------------
    def _reconcile_live(self, key: str, obj: Obj, start: float) -> Result:
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

        try:
            zone = self._zone(spec.root_host)
            registry = self._registry(spec.owner_id, spec.root_host, [ep.dns_name for ep in spec.endpoints])
            desired = registry.adjust_endpoints([ep.copy() for ep in spec.endpoints])
            changes = self._plan(registry, desired, spec.root_host, spec.owner_id)
            # Changes: apply, AwaitingValidation, requeue after min_requeue_time +/- 50 %; a rewrite within one
            # generation counts towards the write limit. No changes: Ready, requeue after requeue_time.
            if changes.has_changes():
                if same_gen:
                    if counter >= self.options.write_counter_limit:
                        return self._give_up(key, obj, spec, counter, start)
                    counter += 1
                registry.apply_changes(changes)
                validation = self.validation_requeue_time()
                new = self._status(obj, ready=False, reason=REASON_AWAITING_VALIDATION,
                                   message=MESSAGE_AWAITING_VALIDATION, start=start, spec=spec)
                new.update(queuedAt=format_time(start), validFor=format_duration(validation), writeCounter=counter,
                           endpoints=endpoints_to_json(spec.endpoints), zoneID=zone, zoneDomainName=zone)
                log.info("DNSRecord changes applied, awaiting validation", record=key, writeCounter=counter,
                         creates=len(changes.create), updates=len(changes.update_new), deletes=len(changes.delete),
                         requeue_after=validation)
                requeue = validation if self._write(obj, new, counter, ready=False) else 0.0
                return Result("applied", requeue_after=requeue)
            new = self._status(obj, ready=True, reason=REASON_PROVIDER_SUCCESS, message=MESSAGE_PROVIDER_SUCCESS,
                               start=start, spec=spec)
            new.update(queuedAt=format_time(start), validFor=format_duration(self.options.valid_for),
                       writeCounter=0, endpoints=endpoints_to_json(spec.endpoints), zoneID=zone, zoneDomainName=zone)
            if not self._write(obj, new, 0, ready=True):
                return Result("stale", requeue_after=0.0)  # a newer status exists: decide again from it
            if ready.get("reason") != REASON_PROVIDER_SUCCESS or not same_gen:
                log.info("DNSRecord ready: the provider holds its records", record=key, zone=zone)
            return Result("ready", requeue_after=self.options.requeue_time)
        except Exception as exc:  # provider, registry, no zone for rootHost, another owner's record
            return self._provider_error(key, obj, spec, counter, start, exc)

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
        return Result("error", error=str(exc))

    # -- deletion -------------------------------------------------------------------------------------------
    def _delete(self, obj: Obj, start: float) -> Result:
        """A deleting record: plan with no desired endpoints (names under rootHost only) and apply, Ready
        False / ProviderEndpointsDeletion, requeue after the validation time; a pass that finds nothing left
        writes ProviderEndpointsRemoved and removes the finalizer. A status write that loses to a newer
        status ends the pass `stale` with an immediate requeue (no early finalizer removal)."""
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        owner, root = owner_id_of(obj), root_host_of(obj)
        status = obj.get("status") or {}
        counter = _int(status.get("writeCounter"))
        ready = get_condition(status, CONDITION_READY) or {}
        if ready.get("reason") == REASON_ENDPOINTS_DELETION:  # validate the deletion only once it is due
            remaining = self._remaining_validity(key, status, start)
            if remaining > 0:
                return Result("premature", requeue_after=remaining)
        try:
            changes = Changes()
            registry = None
            if root:
                registry = self._registry(owner, root, [])
                changes = self._plan(registry, [], root, owner)
            if registry is not None and changes.has_changes():
                registry.apply_changes(changes)
                validation = self.validation_requeue_time()
                new = self._status(obj, ready=False, reason=REASON_ENDPOINTS_DELETION,
                                   message=MESSAGE_ENDPOINTS_DELETION, start=start)
                new.update(queuedAt=format_time(start), validFor=format_duration(validation))
                log.info("DNSRecord deleting its records, awaiting validation", record=key,
                         deletes=len(changes.delete), requeue_after=validation)
                self._write(obj, new, counter, ready=False)
                return Result("deleting", requeue_after=validation)
        except Exception as exc:
            return self._provider_error(key, obj, None, counter, start, exc)
        new = self._status(obj, ready=False, reason=REASON_ENDPOINTS_REMOVED, message=MESSAGE_ENDPOINTS_REMOVED,
                           start=start)
        for gone in ("zoneID", "zoneDomainName", "endpoints"):
            new.pop(gone, None)
        base = self.status_writer.write(obj, new)
        if base is None:  # gone, or a newer status was written: decide again from the object as it is now
            if self.api.get(str(meta.get("namespace", "")), str(meta.get("name", ""))) is None:
                metrics.forget(str(meta.get("namespace", "")), str(meta.get("name", "")))
                return Result("gone")
            return Result("stale", requeue_after=0.0)
        finalizers = [f for f in ((base.get("metadata") or {}).get("finalizers") or []) if f != FINALIZER]
        try:
            self.api.set_finalizers(base, finalizers)
        except ConflictError:
            return Result("conflict", requeue_after=1.0)
        except GoneError:  # a pass on a stale cache: an earlier pass removed the finalizer already
            metrics.forget(str(meta.get("namespace", "")), str(meta.get("name", "")))
            return Result("gone")
        metrics.forget(str(meta.get("namespace", "")), str(meta.get("name", "")))
        log.info("DNSRecord records removed from the provider, finalizer removed", record=key)
        return Result("finalizer-removed")

    # -- helpers --------------------------------------------------------------------------------------------
    def _zone(self, root_host: str) -> str:
        zones = list(self.provider.zones())
        if not zones:
            return ""
        zone = zone_for_name(root_host, zones)
        if zone is None:
            raise LookupError(f"Unable to find suitable zone in provider: no zone of the provider holds rootHost "
                              f"{root_host} (zones: {', '.join(sorted(zones))})")
        return zone.rstrip(".")

    def _registry(self, owner_id: str, root_host: str, desired_names: list[str]) -> Registry:
        """The record's registry; the default one reads only the names under `root_host` from the provider's
        zone snapshot (registry.SubtreeView) instead of the whole provider."""
        if self.registry_factory is not record_registry:
            return self.registry_factory(self.provider, owner_id)
        zones = list(self.provider.zones())
        zone = zone_for_name(root_host, zones) if zones else ""
        if zone is None:
            raise LookupError(f"Unable to find suitable zone in provider: no zone of the provider holds rootHost "
                              f"{root_host} (zones: {', '.join(sorted(zones))})")
        return view_registry(self.provider, owner_id, zone, root_host, desired_names)

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
