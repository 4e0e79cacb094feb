"""The `log` plan output (default): the plan as text lines, each also logged at info level.

Per zone: `Plan for zone example.org.`, then one line per change (`Delete www.example.org A 300 1.2.3.4`,
`Create ...`, `Update www.example.org A 300 1.2.3.4 -> 600 5.6.7.8`; values joined by `;`, a set
identifier as `[id]` after the type), then `Summary: Creates=..., Updates=..., Deletes=..., Existing=...`.
A plan without changes is the single line `No changes were planned`.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from external_dns.plan.output.model import NO_CHANGES, Row, Side, ZonePlan, zones_with_changes

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


def render_lines(plans: Sequence[ZonePlan]) -> list[str]:
    changed = zones_with_changes(plans)
    if not changed:
        return [NO_CHANGES]
    lines: list[str] = []
    for plan in changed:
        lines.append(f"Plan for zone {plan.display_name}")
        lines.extend(_row(r) for r in plan.rows())
        lines.append(f"Summary: {plan.summary()}")
    return lines


def render(plans: Sequence[ZonePlan]) -> str:
    return "\n".join(render_lines(plans)) + "\n"


def emit(plans: Sequence[ZonePlan]) -> None:
    """Log every line of the plan (logger `external_dns.plan.output.log`, level info)."""
    for line in render_lines(plans):
        log.info(line)
