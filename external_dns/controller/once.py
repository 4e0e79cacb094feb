"""The plan-first engine of `--once`, `external-dns plan` and `external-dns apply`: every zone is planned,
shown and safety-checked before any is written; an unsafe zone stops all of them (as octoDNS). The writes
go through the pipeline's `write` step (controller/pipeline.py) in both, `apply`'s included.

Exit codes (all `external-dns` commands): 0 success; 1 a sync or apply failed; 2 bad input (a flag, or an
unusable plan file); 3 `EXIT_UNSAFE_PLAN`, nothing applied; 4 `EXIT_STALE_PLAN` (`apply` found a zone
changed since the plan was made), nothing applied."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import structlog

from external_dns.controller import metrics
from external_dns.controller.controller import Controller
from external_dns.controller.pipeline import Pipeline
from external_dns.controller.progress import Progress
from external_dns.controller.safety_gate import report_unsafe
from external_dns.controller.zone_plans import (
    ZoneWork,
    apply_zone_plans,
    compute_zone_plans,
    log_desired_changes,
)
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import log_zone, zone_finder
from external_dns.events import Recorder
from external_dns.plan import Changes, planfile
from external_dns.plan.admission import adopt_current_labels, ownership_problems
from external_dns.plan.output import PlanMeta, ZonePlan, emit_outputs, write_file
from external_dns.plan.safety import SafetyConfig, Verdict, assess
from external_dns.providers.provider import Provider
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_UNSAFE_PLAN = 3
EXIT_STALE_PLAN = 4


@dataclass(frozen=True)
class OnceOptions:
    """What the plan-first engine needs from the command line."""

    safety: SafetyConfig = field(default_factory=SafetyConfig)
    plan_output: Sequence[str] = ()  # --plan-output formats
    plan_output_files: Mapping[str, str] = field(default_factory=dict)  # FORMAT -> PATH
    plan_file: str = ""  # --plan-file: also write the plan file
    provider: str = ""  # the names written into (and checked against) a plan file
    registry: str = ""
    dry_run: bool = False
    progress: str = "auto"
    progress_interval: float = 10.0
    apply_batch_size: int = 0
    # False when --apply-batch-size was not given: a provider's `preferred_apply_batch_size` then replaces it.
    apply_batch_size_given: bool = True
    clock: Callable[[], float] = time.time  # when a plan is shown as made

    def batch_size(self, provider: Provider) -> int:
        """Changes per provider call when applying to `provider` (0: a zone's whole plan in one call, always
        for a provider that writes whole zones: one write and one serial bump per zone and run)."""
        if provider.writes_whole_zones:
            return 0
        preferred = None if self.apply_batch_size_given else provider.preferred_apply_batch_size
        return self.apply_batch_size if preferred is None else preferred

    def new_progress(self) -> Progress:
        return Progress(self.progress, interval=self.progress_interval)

    def emit(self, plans: Sequence[ZonePlan], owner_id: str) -> None:
        """The plan outputs of `plans`, made now for `owner_id`."""
        emit_outputs(self.plan_output, self.plan_output_files, plans,
                     PlanMeta(owner_id=owner_id, generated_at=self.clock()))


def zone_records(provider: Provider, zones: Sequence[str]) -> dict[str, list[Endpoint]]:
    """The provider's records grouped by zone (names in no zone left out)."""
    out: dict[str, list[Endpoint]] = {z: [] for z in zones}
    find = zone_finder(zones)
    for ep in provider.records():
        z = find(ep.dns_name)
        if z is not None:
            out[z].append(ep)
    return out


def refused_zones(works: Sequence[tuple[str, Changes, Verdict]], force: bool,
                  recorder: Recorder | None = None) -> list[tuple[str, Changes, Verdict]]:
    """The unsafe zones, each reported (log, metric, and an `UnsafePlan` Event with a recorder); with
    `force` they are logged as forced and none returned."""
    refused: list[tuple[str, Changes, Verdict]] = []
    for zone, changes, verdict in works:
        if verdict.safe:
            continue
        if force:
            for problem in verdict.problems:
                log.warning(f"Applying with --force: {problem}", zone=log_zone(zone))
            continue
        report_unsafe(verdict.problems[0], changes, recorder)
        refused.append((zone, changes, verdict))
    return refused


def write_plan_file(path: str, controller: Controller, options: OnceOptions, works: Sequence[ZoneWork]) -> None:
    """The plan file for `works`, with a checksum of the provider state of every zone that changes."""
    registry = controller.registry
    state = zone_records(registry.provider, [w.zone for w in works])
    pf = planfile.PlanFile(owner_id=registry.owner_id(), provider=options.provider, registry=options.registry)
    for w in works:
        if w.has_changes:
            pf.zones[w.zone] = planfile.PlannedZone(changes=w.changes, existing=w.verdict.existing,
                                                    state_checksum=planfile.state_checksum(state[w.zone]))
    write_file(path, pf.dumps())
    log.info(f"Plan written to {path}", zones=len(pf.zones), plan_checksum=pf.plan_checksum())


def run_once(controller: Controller, options: OnceOptions) -> int:
    """`--once`: plan every zone, show, check (all-or-nothing), apply. Returns the exit code. The
    controller's sync observers are told after a successful apply (or when nothing needed one), never after a
    refused or failed run."""
    safety = options.safety
    try:
        # The verdicts are computed unforced so --force can log what it overrides.
        works = compute_zone_plans(controller, dataclasses.replace(safety, force=False))
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    log_desired_changes(works)
    try:
        # before the check: a refused plan is still shown, with its verdict
        options.emit([w.plan(forced=safety.force) for w in works], controller.registry.owner_id())
        if options.plan_file:
            write_plan_file(options.plan_file, controller, options, works)
    except OSError as exc:
        log.error(f"cannot write the plan: {exc}")
        return EXIT_FAILED
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    gate = controller.safety_gate()
    refused = refused_zones([(w.zone, w.changes, w.verdict) for w in works], safety.force,
                            gate.recorder if gate is not None else None)
    if refused:
        log.error(f"Unsafe plan in {len(refused)} zone(s): nothing was applied in any zone "
                  f"(review the plan and re-run with --force, or adjust the thresholds)",
                  zones=[z for z, _, _ in refused])
        return EXIT_UNSAFE_PLAN
    if not any(w.has_changes for w in works):
        metrics.NO_OP_RUNS.inc()
        log.info("All records are already up to date")
        controller.synced(None)
        return EXIT_OK
    if options.dry_run:
        log.info("Dry run: no changes were applied")
        return EXIT_OK
    try:
        apply_zone_plans(controller.registry, [(w.zone, w.changes) for w in works], options.new_progress(),
                         options.batch_size(controller.registry.provider), write=controller.apply_changes)
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    controller.synced(None)
    return EXIT_OK


def apply_plan(plan: planfile.PlanFile, path: str, registry: Registry, options: OnceOptions,
               pipeline: Pipeline | None = None) -> int:
    """`external-dns apply`: apply a verified plan file if every zone still matches the provider state it
    was made from, re-checking safety with the current thresholds, and write it through `pipeline`'s write
    step as `--once` does (its metrics and record events; default: a pipeline of its own). Returns the exit
    code."""
    pipeline = pipeline or Pipeline()
    try:
        current = registry.records()  # the registry learns the ownership records it will update or delete
        zones = list(registry.provider.zones()) or [""]
        state = zone_records(registry.provider, sorted(set(zones) | set(plan.zones)))
    except Exception as exc:
        log.error(f"failed to read the provider: {exc}")
        return EXIT_FAILED
    try:
        plan.check_state(state)
    except planfile.StalePlanError as exc:
        log.error(f"Refusing to apply {path}: {exc}", zone=log_zone(exc.zone))
        return EXIT_STALE_PLAN
    log.info(f"Plan {path} matches the provider state", zones=sorted(plan.zones),
             plan_checksum=plan.plan_checksum())
    # Never trust the owner labels inside the file: re-check every change against the provider's records.
    refused = [f"zone {zone!r}: {reason}" for zone, z in sorted(plan.zones.items())
               for reason in ownership_problems(z.changes, current, registry.owner_id())]
    if refused:
        for reason in refused[:50]:
            log.error(f"Plan change refused: {reason}")
        log.error(f"Refusing to apply {path}: {len(refused)} change(s) do not match the records this owner holds "
                  "at the provider (edited plan file?); nothing was applied")
        return EXIT_CONFIG
    for z in plan.zones.values():
        adopt_current_labels(z.changes, current)

    safety = options.safety
    items = [(zone, z.changes, assess(zone, z.changes, z.existing, safety.for_zone(zone)))
             for zone, z in sorted(plan.zones.items())]
    try:
        options.emit([ZonePlan(zone=zone, changes=changes, existing=v.existing,
                               default_ttl=registry.provider.record_default_ttl(zone), verdict=v, forced=safety.force)
                      for zone, changes, v in items], registry.owner_id())
    except OSError as exc:
        log.error(f"cannot write the plan output: {exc}")
        return EXIT_FAILED
    gate = pipeline.safety_gate()
    if refused_zones(items, safety.force, gate.recorder if gate is not None else None):
        log.error(f"Unsafe plan {path}: nothing was applied (re-run with --force to apply it as reviewed)")
        return EXIT_UNSAFE_PLAN
    if options.dry_run:
        log.info("Dry run: the plan is valid and current; no changes were applied")
        return EXIT_OK
    if not items:
        log.info("All records are already up to date")
        return EXIT_OK
    try:
        applied = apply_zone_plans(registry, [(zone, changes) for zone, changes, _ in items],
                                   options.new_progress(), options.batch_size(registry.provider),
                                   write=lambda batch: pipeline.write(batch, registry.apply_changes))
    except Exception as exc:
        log.error(f"failed to apply {path}: {exc}")
        return EXIT_FAILED
    log.info(f"Applied plan {path}", changes=applied)
    return EXIT_OK
