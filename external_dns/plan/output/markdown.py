"""The `markdown` plan output: a GitHub-flavoured Markdown document for a pull-request comment.

With a `PlanMeta`, a first line names the owner ID and the time and gives the whole plan's verdict
(`**Plan verdict: UNSAFE: 1 zone(s) need --force (example.org.)**`). Per zone a `## example.org.` heading, its
verdict in bold (`**Safe**`, or `**UNSAFE, not applied without --force:** Too many deletes, ...`) and the
thresholds with this plan's figures, then a table `| Operation | Name | Type | Set identifier | TTL | Value |`
(values joined by `; `); an update takes two rows, the old TTL/values on the `Update` row and the new ones on
the following row whose first four cells are empty. After each table the line
`Summary: Creates=..., Updates=..., Deletes=..., Existing=...`. No changes: `## No changes were planned`.
Cell text is escaped (`|` and Markdown punctuation), so record values cannot break the table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from external_dns.plan.output.model import (
    NO_CHANGES,
    PlanMeta,
    Side,
    ZonePlan,
    figures_text,
    plan_verdict_text,
    verdict_text,
    zones_with_changes,
)

HEADER = ("Operation", "Name", "Type", "Set identifier", "TTL", "Value")
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape(text: str) -> str:
    """Backslash-escape Markdown punctuation; newlines become spaces."""
    return _SPECIAL.sub(r"\\\1", text.replace("\r", " ").replace("\n", " "))


def _cells(side: Side) -> list[str]:
    return [str(side.ttl), "; ".join(escape(v) for v in side.values)]


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _head(plans: Sequence[ZonePlan], meta: PlanMeta | None) -> list[str]:
    if meta is None:
        return []
    verdict = plan_verdict_text(plans)
    parts = [escape(meta.text()), f"**Plan verdict: {escape(verdict)}**" if verdict else ""]
    line = ". ".join(p for p in parts if p)
    return [line, ""] if line else []


def _verdict(plan: ZonePlan) -> list[str]:
    text = verdict_text(plan)
    if not text:
        return []
    verdict, _, why = text.partition(": ")
    line = f"**{escape(verdict)}:** {escape(why)}" if why else f"**{escape(verdict)}**"
    return [line, "", f"Thresholds: {escape(figures_text(plan))}", ""]


def render(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> str:
    changed = zones_with_changes(plans)
    out = _head(plans, meta)
    if not changed:
        return "\n".join([*out, f"## {NO_CHANGES}", ""])
    for plan in changed:
        out += [f"## {escape(plan.display_name)}", "", *_verdict(plan), _line(HEADER), _line(["---"] * len(HEADER))]
        for r in plan.rows():
            head = [r.op, escape(r.name), r.record_type, escape(r.set_identifier)]
            first = r.old if r.old is not None else r.new
            assert first is not None
            out.append(_line(head + _cells(first)))
            if r.op == "Update" and r.new is not None:
                out.append(_line([*[""] * 4, *_cells(r.new)]))
        out += ["", f"Summary: {plan.summary()}", ""]
    return "\n".join(out)
