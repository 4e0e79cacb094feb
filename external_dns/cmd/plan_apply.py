"""`--once` with safety checks, and the two-phase `external-dns plan` / `external-dns apply` sub-commands.

`--once` (`run_once_safely`): every zone is planned first; the plan outputs run (`--plan-output`, also in
`--dry-run`, before the check, so a refused plan is still shown); then every zone is safety-checked
(plan/safety.py) and **if any zone is unsafe nothing is applied anywhere** (all-or-nothing, as octoDNS)
and the process exits with `EXIT_UNSAFE_PLAN` (3), in dry-run too. Otherwise the zones are applied in
batches with progress (controller/progress.py). With `--plan-file PATH` the plan file is written as well.

`external-dns plan --plan-file plan.json [flags]` is `--once --dry-run` that writes the plan file
(plan/planfile.py: the changes per zone, a checksum over the plan and one over each zone's provider records
it was computed from). Nothing is written to the provider. Exit 3 when the plan is unsafe (the file is
still written, so it can be reviewed; applying it then needs `--force`).

`external-dns apply plan.json [flags]` takes the same provider/registry flags (`--source` and `--policy` are
not needed). It verifies the file (readable, untampered, same owner ID, provider and registry), re-reads
the provider and applies the stored changes only if every zone's records still match the checksum taken at
plan time, re-checking safety with the current thresholds. `--dry-run` verifies without writing.

Exit codes (all `external-dns` commands):

* 0 — success;
* 1 — a sync or apply failed (source, registry or provider error);
* 2 — bad input: a flag or flag combination, or an unusable plan file (unreadable, malformed, modified,
  made for another owner ID, provider or registry);
* 3 — `EXIT_UNSAFE_PLAN`: a plan failed the safety checks (too many updates/deletes, root NS change) and
  `--force` was not given; nothing was applied;
* 4 — `EXIT_STALE_PLAN`: `apply` found a zone changed since the plan was made; nothing was applied.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_safety import plan_output_files, safety_config
from external_dns.controller import metrics
from external_dns.controller.controller import Controller, notify_synced
from external_dns.controller.progress import Progress
from external_dns.controller.zone_plans import (
    ZoneWork,
    apply_zone_plans,
    compute_zone_plans,
    find_safety_gate,
    log_desired_changes,
)
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan import Changes, planfile
from external_dns.plan.output import ZonePlan, emit_outputs, write_file
from external_dns.plan.safety import SafetyConfig, SafetyGate, Verdict, assess, report_unsafe
from external_dns.providers.provider import Provider
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_UNSAFE_PLAN = 3
EXIT_STALE_PLAN = 4


def _error(message: str) -> int:
    print(f"external-dns: error: {message}", file=sys.stderr, flush=True)
    return EXIT_CONFIG


def install_safety_gate(controller: Controller, cfg: argparse.Namespace) -> SafetyGate:
    """Add the per-zone SafetyGate to the controller's pre-apply checks (the long-running, zone-keyed
    controller then refuses an unsafe zone, applies the others and retries it at the next sync)."""
    gate = SafetyGate(safety_config(cfg), owner_id=controller.registry.owner_id(),
                      managed_record_types=controller.managed_record_types, zones=controller.zone_keys)
    controller.add_pre_apply_check(gate)
    return gate


def attach_event_recorder(cfg: argparse.Namespace, process: Any) -> None:
    """Process hook (controller/process.py PROCESS_HOOKS): refused zones get an `UnsafePlan` Warning Event
    through the long-running process's event recorder."""
    gate = find_safety_gate(process.controller)
    if gate is not None and getattr(process, "recorder", None) is not None:
        gate.recorder = process.recorder


def attach_plan_outputs(cfg: argparse.Namespace, process: Any) -> None:
    """Process hook: `--plan-output` formats other than `log` and `--plan-output-file` in the long-running
    mode (plan/output/live.py: the latest plan of every zone, before the safety check, in dry-run too)."""
    from external_dns.plan.output.live import LivePlanOutputs

    formats, files = getattr(cfg, "plan_output", None) or [], plan_output_files(cfg)
    if not LivePlanOutputs(formats, files).active:
        return
    controller = process.controller
    controller.plan_observers.append(LivePlanOutputs(formats, files, owner_id=controller.registry.owner_id(),
                                                     managed_record_types=controller.managed_record_types))


def _zone_records(provider: Provider, zones: Sequence[str]) -> dict[str, list[Endpoint]]:
    from external_dns.providers.provider import zone_for_name

    out: dict[str, list[Endpoint]] = {z: [] for z in zones}
    for ep in provider.records():
        z = zone_for_name(ep.dns_name, zones)
        if z is not None:
            out[z].append(ep)
    return out


def _unsafe(works: Sequence[tuple[str, Changes, Verdict]], force: bool,
            recorder: Any = None) -> list[tuple[str, Changes, Verdict]]:
    """The unsafe zones (reported: log + metric, and an `UnsafePlan` Event with a recorder); with `force`
    they are logged as forced and none returned."""
    refused: list[tuple[str, Changes, Verdict]] = []
    for zone, changes, verdict in works:
        if verdict.safe:
            continue
        if force:
            for problem in verdict.problems:
                log.warning(f"Applying with --force: {problem}", zone=zone)
            continue
        report_unsafe(verdict.problems[0], changes, recorder)
        refused.append((zone, changes, verdict))
    return refused


def _progress(cfg: argparse.Namespace) -> Progress:
    return Progress(cfg.progress, interval=cfg.progress_interval)


def _emit(cfg: argparse.Namespace, plans: Sequence[ZonePlan]) -> None:
    emit_outputs(cfg.plan_output, plan_output_files(cfg), plans)


def write_plan_file(path: str, controller: Controller, cfg: argparse.Namespace, works: Sequence[ZoneWork]) -> None:
    """The plan file for `works`, with the provider state of every zone that changes."""
    registry = controller.registry
    state = _zone_records(registry.provider, [w.zone for w in works])
    pf = planfile.PlanFile(owner_id=registry.owner_id(), provider=cfg.provider, registry=cfg.registry)
    for w in works:
        if w.has_changes:
            pf.zones[w.zone] = planfile.PlannedZone(changes=w.changes, existing=w.verdict.existing,
                                                    state_checksum=planfile.state_checksum(state[w.zone]))
    write_file(path, pf.dumps())
    log.info(f"Plan written to {path}", zones=len(pf.zones), plan_checksum=pf.plan_checksum())


def run_once_safely(controller: Controller, cfg: argparse.Namespace) -> int:
    """`--once`: plan every zone, show, check (all-or-nothing), apply. Returns the exit code. After a
    successful apply (or when nothing needed one) the controller's `sync_observers` are told (DNSEndpoint
    status is written from there); a refused or failed run tells them nothing."""
    from external_dns.sources.informer.hooks import status_after_sync

    status_after_sync(controller)
    recorder = _once_event_recorder(controller, cfg)
    try:
        return _run_once_safely(controller, cfg)
    finally:
        if recorder is not None and not recorder.stop(5.0):
            log.warning("not every Kubernetes Event could be sent before exiting")


def _once_event_recorder(controller: Controller, cfg: argparse.Namespace) -> Any:
    """`--once` with in-cluster sources (not in dry-run): an event recorder on their API client, so bad input
    and refused plans become Warning Events on the objects as in the long-running mode. None otherwise."""
    from external_dns.sources.informer.hooks import informer_sources

    sources = list(informer_sources(controller.source))
    if not sources or cfg.dry_run:
        return None
    from external_dns.events.recorder import EventRecorder

    recorder = EventRecorder(sources[0].factory.api_client)
    recorder.start()
    for source in sources:
        source.recorder = recorder
    gate = find_safety_gate(controller)
    if gate is not None:
        gate.recorder = recorder
    return recorder


def _run_once_safely(controller: Controller, cfg: argparse.Namespace) -> int:
    safety = safety_config(cfg)
    try:
        works = compute_zone_plans(controller, dataclasses.replace(safety, force=False))
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    log_desired_changes(works)
    try:
        _emit(cfg, [w.plan for w in works])
        if getattr(cfg, "plan_file", ""):
            write_plan_file(cfg.plan_file, controller, cfg, works)
    except OSError as exc:
        log.error(f"cannot write the plan: {exc}")
        return EXIT_FAILED
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    gate = find_safety_gate(controller)
    refused = _unsafe([(w.zone, w.changes, w.verdict) for w in works], safety.force,
                      gate.recorder if gate is not None else None)
    if refused:
        log.error(f"Unsafe plan in {len(refused)} zone(s): nothing was applied in any zone "
                  f"(review the plan and re-run with --force, or adjust the thresholds)",
                  zones=[z for z, _, _ in refused])
        return EXIT_UNSAFE_PLAN
    if not any(w.has_changes for w in works):
        metrics.NO_OP_RUNS.inc()
        log.info("All records are already up to date")
        if not cfg.dry_run:
            notify_synced(controller.sync_observers, None)
        return EXIT_OK
    if cfg.dry_run:
        log.info("Dry run: no changes were applied")
        return EXIT_OK
    try:
        apply_zone_plans(controller.registry, [(w.zone, w.changes) for w in works], _progress(cfg),
                         cfg.apply_batch_size)
    except Exception as exc:
        log.error(f"failed to do run once: {exc}")
        return EXIT_FAILED
    notify_synced(controller.sync_observers, None)
    return EXIT_OK


# -- sub-commands -----------------------------------------------------------------------------------------
def plan_main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """`external-dns plan [--plan-file PATH] [flags]`: the `--once --dry-run` sync that writes the plan file."""
    from external_dns.cmd.main import run

    return run(["--once", *argv, "--dry-run"], environ)


def _load_apply_config(argv: Sequence[str], environ: Mapping[str, str] | None) -> argparse.Namespace:
    from external_dns.cmd.config import build_parser, validate

    parser = build_parser()
    cfg = parser.parse(argv, environ)
    # Sources and the policy made the plan; apply never uses them.
    if not cfg.source:
        cfg.source = ["manifest"]
        cfg.manifest_dir = cfg.manifest_dir or "(not used by apply)"
    if not cfg.policy:
        cfg.policy = "sync"
    cfg.once = True
    validate(cfg)
    return cfg


def _build_registry(cfg: argparse.Namespace) -> Registry:
    from external_dns.cmd.build import REGISTRY_BUILDERS, build_provider, load_builder
    from external_dns.providers.provider import CachedProvider

    provider: Provider = build_provider(cfg)
    if getattr(cfg, "provider_cache_time", 0.0) > 0:
        provider = CachedProvider(provider, cfg.provider_cache_time)
    registry: Registry = load_builder(REGISTRY_BUILDERS, "registry", cfg.registry)(cfg, provider)
    return registry


def apply_main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """`external-dns apply PLAN_FILE [flags]`. Returns the exit code (see the module docstring)."""
    args = list(argv)
    if not args or args[0].startswith("-"):
        return _error("apply: the plan file is missing (usage: external-dns apply PLAN_FILE [flags])")
    path, rest = args[0], args[1:]
    try:
        cfg = _load_apply_config(rest, environ)
    except ConfigError as exc:
        return _error(str(exc))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_CONFIG)
    from external_dns.logging_setup import configure_logging

    try:
        configure_logging(cfg.log_level, cfg.log_format)
    except ValueError as exc:
        return _error(str(exc))
    try:
        plan = planfile.load(path)
    except planfile.PlanFileError as exc:
        return _error(str(exc))
    try:
        registry = _build_registry(cfg)
    except ConfigError as exc:
        return _error(str(exc))
    except Exception as exc:
        log.error(f"failed to start: {exc}", error_type=type(exc).__name__)
        return EXIT_FAILED
    try:
        plan.check_identity(registry.owner_id(), cfg.provider)
        if plan.registry != cfg.registry:
            raise planfile.PlanFileError(f"plan file was made for registry {plan.registry!r}, not "
                                         f"{cfg.registry!r} (--registry)")
    except planfile.PlanFileError as exc:
        return _error(f"{path}: {exc}")
    return _apply_plan(plan, path, registry, cfg)


def _apply_plan(plan: planfile.PlanFile, path: str, registry: Registry, cfg: argparse.Namespace) -> int:
    try:
        registry.records()  # the registry learns the ownership records it will update or delete
        zones = list(registry.provider.zones()) or [""]
        state = _zone_records(registry.provider, sorted(set(zones) | set(plan.zones)))
    except Exception as exc:
        log.error(f"failed to read the provider: {exc}")
        return EXIT_FAILED
    try:
        plan.check_state(state)
    except planfile.StalePlanError as exc:
        log.error(f"Refusing to apply {path}: {exc}", zone=exc.zone)
        return EXIT_STALE_PLAN
    log.info(f"Plan {path} matches the provider state", zones=sorted(plan.zones),
             plan_checksum=plan.plan_checksum())

    safety: SafetyConfig = safety_config(cfg)
    items = [(zone, z.changes, assess(zone, z.changes, z.existing, safety.for_zone(zone)))
             for zone, z in sorted(plan.zones.items())]
    try:
        _emit(cfg, [ZonePlan(zone=zone, changes=changes, existing=v.existing) for zone, changes, v in items])
    except OSError as exc:
        log.error(f"cannot write the plan output: {exc}")
        return EXIT_FAILED
    if _unsafe(items, safety.force):
        log.error(f"Unsafe plan {path}: nothing was applied (re-run with --force to apply it as reviewed)")
        return EXIT_UNSAFE_PLAN
    if cfg.dry_run:
        log.info("Dry run: the plan is valid and current; no changes were applied")
        return EXIT_OK
    if not items:
        log.info("All records are already up to date")
        return EXIT_OK
    try:
        applied = apply_zone_plans(registry, [(zone, changes) for zone, changes, _ in items], _progress(cfg),
                                   cfg.apply_batch_size)
    except Exception as exc:
        log.error(f"failed to apply {path}: {exc}")
        return EXIT_FAILED
    log.info(f"Applied plan {path}", changes=applied)
    return EXIT_OK

