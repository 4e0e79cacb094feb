"""Plan every zone first, check, then apply: the steps `--once`, `external-dns plan` and `apply` share
(controller/once.py runs them). Planning goes through the same `Controller.read` / `Controller.plan_zone`
steps as the long-running reconcile, and writing through the pipeline's `write` step, so observers,
metrics and events are the same."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import structlog

from external_dns.controller.controller import (
    Controller,
    RunOnceError,
    applied_text,
    change_lines,
    partition_by_zone,
)
from external_dns.controller.progress import Progress
from external_dns.controller.safety_gate import SafetyGate
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import display_zone, log_zone, name_key
from external_dns.plan import Changes
from external_dns.plan.output import ZonePlan
from external_dns.plan.safety import SafetyConfig, Verdict, check_zone
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)


@dataclass
class ZoneWork:
    """One zone's computed plan."""

    zone: str
    changes: Changes
    current: list[Endpoint]
    verdict: Verdict
    lines: list[str] = field(default_factory=list)
    default_ttl: int = 0  # the TTL the provider gives a record without one (plan outputs show it)

    def plan(self, forced: bool = False) -> ZonePlan:
        """The zone's plan as the outputs show it, with its verdict (`forced`: the run was given --force)."""
        return ZonePlan(zone=self.zone, changes=self.changes, existing=self.verdict.existing,
                        default_ttl=self.default_ttl, verdict=self.verdict, forced=forced)

    @property
    def has_changes(self) -> bool:
        return self.changes.has_changes()


def compute_zone_plans(controller: Controller, safety: SafetyConfig) -> list[ZoneWork]:
    """Every zone's plan and verdict; nothing is written. Names in no zone are left out, as the provider's
    domain filter would drop them. Raises RunOnceError naming the step."""
    current, desired, _raw = controller.read()
    zones = controller.zone_keys()
    unknown = safety.unknown_zones(zones)
    if unknown:
        log.warning(f"--zone-threshold names zones the provider does not manage: {', '.join(unknown)}",
                    zones=zones)
    owner_id = controller.registry.owner_id()
    works: list[ZoneWork] = []
    for zone, (zcurrent, zdesired) in partition_by_zone(current, desired, zones).items():
        if zone is None:
            continue
        changes = controller.plan_zone(zone, zcurrent, zdesired)
        verdict = check_zone(safety, zone, changes, zcurrent, owner_id=owner_id,
                             managed_record_types=controller.managed_record_types)
        works.append(ZoneWork(zone=zone, changes=changes, current=zcurrent, verdict=verdict,
                              lines=change_lines(changes) if changes.has_changes() else [],
                              default_ttl=controller.registry.provider.record_default_ttl(zone)))
    return works


def log_desired_changes(works: Iterable[ZoneWork]) -> None:
    """The controller's `Desired change: CREATE www.example.org A 1.2.3.4` lines and per-zone summary."""
    for w in works:
        if not w.has_changes:
            continue
        zlog = log.bind(zone=log_zone(w.zone))
        for line in w.lines:
            zlog.info(f"Desired change: {line}")
        zlog.info(f"Plan: {len(w.changes.create)} to create, {len(w.changes.update_new)} to update, "
                  f"{len(w.changes.delete)} to delete")


def batches(changes: Changes, size: int) -> list[Changes]:
    """`changes` in batches of at most `size` changes (an update pair counts once; 0 = one batch), never
    splitting the changes of one name."""
    if size <= 0:
        return [changes]
    by_name: dict[str, Changes] = {}

    def slot(ep: Endpoint) -> Changes:
        return by_name.setdefault(name_key(ep.dns_name), Changes())

    for ep in changes.delete:
        slot(ep).delete.append(ep)
    for ep in changes.create:
        slot(ep).create.append(ep)
    for old, new in zip(changes.update_old, changes.update_new, strict=False):
        s = slot(new)
        s.update_old.append(old)
        s.update_new.append(new)
    out: list[Changes] = []
    cur = Changes()
    count = 0
    for name in sorted(by_name):
        part = by_name[name]
        n = change_count(part)
        if count and count + n > size:
            out.append(cur)
            cur, count = Changes(), 0
        cur.delete += part.delete
        cur.create += part.create
        cur.update_old += part.update_old
        cur.update_new += part.update_new
        count += n
    if count:
        out.append(cur)
    return out


def change_count(changes: Changes) -> int:
    return len(changes.create) + len(changes.update_new) + len(changes.delete)


def apply_zone_plans(registry: Registry, works: Sequence[tuple[str, Changes]], progress: Progress,
                     batch_size: int, write: Callable[[Changes], None] | None = None) -> int:
    """Write each zone's changes in batches of at most `batch_size` changes (one name's changes stay in one
    batch, so a CNAME replaced by an A record is never split) through `write` (`--once` and `apply` pass the
    pipeline's write step; default: the registry's `apply_changes`). Returns the number of changes applied.
    A failed batch ends its zone (earlier batches stay applied) but never the others: every zone is tried,
    then RunOnceError (step `applying changes`, naming the failed zones, caused by the first failure) is
    raised if any failed."""
    write = write or registry.apply_changes
    todo = [(z, c) for z, c in works if c.has_changes()]
    progress.start(len(todo), sum(change_count(c) for _, c in todo))
    applied = 0
    failed: list[tuple[str, Exception, Changes]] = []
    try:
        for zone, changes in todo:
            progress.zone_started(zone, change_count(changes))
            for batch in batches(changes, batch_size):
                try:
                    write(batch)
                except Exception as exc:
                    if isinstance(exc, RunOnceError) and exc.__cause__ is not None:
                        exc = exc.__cause__  # type: ignore[assignment]  # report the registry's own error
                    failed.append((zone, exc, batch))
                    log.error(f"failed to apply changes: {exc}", zone=log_zone(zone))
                    break
                applied += change_count(batch)
                progress.batch_done(zone, change_count(batch))
            else:
                progress.zone_done(zone)
                log.info(applied_text(changes), zone=log_zone(zone))
    finally:
        progress.finish()
    if failed:
        _zone, first, batch = failed[0]
        cause: Exception = first
        if len(failed) > 1:
            names = ", ".join(display_zone(z) for z, _, _ in failed)
            cause = RuntimeError(f"{len(failed)} zones failed ({names}); the first: {first}")
        raise RunOnceError("applying changes", cause, batch) from first
    return applied


def find_safety_gate(controller: Controller) -> SafetyGate | None:
    """The SafetyGate among the controller's pre-apply checks, if one is installed."""
    return controller.safety_gate()
