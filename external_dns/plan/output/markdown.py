"""The `markdown` plan output: a GitHub-flavoured Markdown document for a pull-request comment.

Per zone a `## example.org.` heading and a table `| Operation | Name | Type | Set identifier | TTL | Value |`
(values joined by `; `); an update takes two rows, the old TTL/values on the `Update` row and the new ones
on the following row whose first four cells are empty. After each table the line
`Summary: Creates=..., Updates=..., Deletes=..., Existing=...`. No changes: `## No changes were planned`.
Cell text is escaped (`|` and Markdown punctuation), so record values cannot break the table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from external_dns.plan.output.model import NO_CHANGES, Side, ZonePlan, zones_with_changes

HEADER = ("Operation", "Name", "Type", "Set identifier", "TTL", "Value")
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape(text: str) -> str:
    """Backslash-escape Markdown punctuation; newlines become spaces."""
    return _SPECIAL.sub(r"\\\1", text.replace("\r", " ").replace("\n", " "))


def _cells(side: Side) -> list[str]:
    return [str(side.ttl), "; ".join(escape(v) for v in side.values)]


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render(plans: Sequence[ZonePlan]) -> str:
    changed = zones_with_changes(plans)
    if not changed:
        return f"## {NO_CHANGES}\n"
    out: list[str] = []
    for plan in changed:
        out += [f"## {escape(plan.display_name)}", "", _line(HEADER), _line(["---"] * len(HEADER))]
        for r in plan.rows():
            head = [r.op, escape(r.name), r.record_type, escape(r.set_identifier)]
            first = r.old if r.old is not None else r.new
            assert first is not None
            out.append(_line(head + _cells(first)))
            if r.op == "Update" and r.new is not None:
                out.append(_line([*[""] * 4, *_cells(r.new)]))
        out += ["", f"Summary: {plan.summary()}", ""]
    return "\n".join(out)
