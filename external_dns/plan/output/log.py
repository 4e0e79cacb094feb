"""The `log` plan output (default): the plan as text lines, each also logged at info level.

With a `PlanMeta`, first `Plan: owner ID ..., made ...; verdict ...`. Per zone: `Plan for zone example.org.`,
its verdict (`Safety: Safe` / `Safety: UNSAFE, not applied without --force: ...`) and `Thresholds: ...`, then
one line per change (`Delete www.example.org A 300 1.2.3.4`, `Create ...`,
`Update www.example.org A 300 1.2.3.4 -> 600 5.6.7.8`; values joined by `;`, a set identifier as `[id]` after
the type), then `Summary: Creates=..., Updates=..., Deletes=..., Existing=...`. A plan without changes is the
line `No changes were planned`.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from external_dns.plan.output.model import (
    NO_CHANGES,
    PlanMeta,
    Row,
    Side,
    ZonePlan,
    figures_text,
    plan_verdict_text,
    verdict_text,
    zones_with_changes,
)

log = structlog.get_logger(__name__)


def _side(side: Side) -> str:
    return f"{side.ttl} {';'.join(side.values)}".rstrip()


def _row(row: Row) -> str:
    ident = f" [{row.set_identifier}]" if row.set_identifier else ""
    head = f"{row.op} {row.name} {row.record_type}{ident}"
    if row.op == "Update" and row.old is not None and row.new is not None:
        return f"{head} {_side(row.old)} -> {_side(row.new)}"
    side = row.new if row.new is not None else row.old
    return f"{head} {_side(side)}" if side is not None else head


def _head(plans: Sequence[ZonePlan], meta: PlanMeta | None) -> list[str]:
    if meta is None:
        return []
    verdict = plan_verdict_text(plans)
    parts = [meta.text(), f"verdict {verdict}" if verdict else ""]
    return [f"Plan: {'; '.join(p for p in parts if p)}"]


def render_lines(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> list[str]:
    changed = zones_with_changes(plans)
    lines = _head(plans, meta)
    if not changed:
        return [*lines, NO_CHANGES]
    for plan in changed:
        lines.append(f"Plan for zone {plan.display_name}")
        verdict = verdict_text(plan)
        if verdict:
            lines += [f"Safety: {verdict}", f"Thresholds: {figures_text(plan)}"]
        lines.extend(_row(r) for r in plan.rows())
        lines.append(f"Summary: {plan.summary()}")
    return lines


def render(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> str:
    return "\n".join(render_lines(plans, meta)) + "\n"


def emit(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> None:
    """Log every line of the plan (logger `external_dns.plan.output.log`, level info)."""
    for line in render_lines(plans, meta):
        log.info(line)
