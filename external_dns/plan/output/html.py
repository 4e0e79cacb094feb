"""The `html` plan output: a standalone HTML page (UTF-8, inline style, every value HTML-escaped).

With a `PlanMeta`, a first paragraph names the owner ID and the time, with the whole plan's verdict. Per zone
an `<h2>` with the zone, its verdict (`<p class="verdict unsafe">`: Safe, or UNSAFE and why) and the thresholds
with this plan's figures, then a `<table>` with the columns of the Markdown output; an update is one row, its
TTL and values as `old → new` (each side labelled: `<span class="old">`, `<span class="new">`, the TTL shown
once when it does not change); values are joined by `<br/>`; the summary is a last row spanning all six
columns. No changes: `<p><b>No changes were planned</b></p>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from external_dns.plan.output.markdown import HEADER
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

_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>external-dns plan</title>
<style>
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { border: 1px solid #999; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
.unsafe { color: #b00020; font-weight: bold; }
.safe { color: #1b5e20; font-weight: bold; }
.old { text-decoration: line-through; color: #666; }
</style>
</head>
<body>
<h1>external-dns plan</h1>
"""
_TAIL = "</body>\n</html>\n"
_ARROW = " &rarr; "


def _td(text: str) -> str:
    return f"<td>{text}</td>"


def _values(side: Side) -> str:
    return "<br/>".join(escape(v) for v in side.values)


def _cells(r: Row) -> list[str]:
    """TTL and value cells: one side's, or an update's `old → new`."""
    if r.op == "Update" and r.old is not None and r.new is not None:
        ttl = str(r.new.ttl) if r.old.ttl == r.new.ttl else \
            f'<span class="old">{r.old.ttl}</span>{_ARROW}<span class="new">{r.new.ttl}</span>'
        value = f'<span class="old">{_values(r.old)}</span>{_ARROW}<span class="new">{_values(r.new)}</span>'
        return [_td(ttl), _td(value)]
    side = r.new if r.new is not None else r.old
    assert side is not None
    return [_td(str(side.ttl)), _td(_values(side))]


def _verdict(text: str, safe: bool, label: str = "") -> str:
    """`text` (`Safe`, or `UNSAFE...: why`) as a paragraph, the verdict itself coloured."""
    verdict, _, why = text.partition(": ")
    css = "safe" if safe else "unsafe"
    rest = f": {escape(why)}" if why else ""
    return f'<p class="verdict">{escape(label)}<span class="{css}">{escape(verdict)}</span>{rest}</p>\n'


def render(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> str:
    changed = zones_with_changes(plans)
    out = [_HEAD]
    if meta is not None:
        out.append(f"<p>{escape(meta.text())}</p>\n")
        verdict = plan_verdict_text(plans)
        if verdict:
            out.append(_verdict(verdict, all(p.safe for p in plans), "Plan verdict: "))
    if not changed:
        out.append(f"<p><b>{NO_CHANGES}</b></p>\n")
    for plan in changed:
        out.append(f"<h2>{escape(plan.display_name)}</h2>\n")
        text = verdict_text(plan)
        if text:
            out.append(_verdict(text, plan.safe))
            out.append(f"<p>Thresholds: {escape(figures_text(plan))}</p>\n")
        out.append("<table>\n<tr>" + "".join(f"<th>{h}</th>" for h in HEADER) + "</tr>\n")
        for r in plan.rows():
            head = [_td(r.op), _td(escape(r.name)), _td(escape(r.record_type)), _td(escape(r.set_identifier))]
            out.append("<tr>" + "".join(head + _cells(r)) + "</tr>\n")
        out.append(f'<tr><td colspan="6">Summary: {escape(plan.summary())}</td></tr>\n</table>\n')
    out.append(_TAIL)
    return "".join(out)
