"""The `html` plan output: a standalone HTML page (UTF-8, inline style, every value HTML-escaped).

Per zone an `<h2>` with the zone and a `<table>` with the columns of the Markdown output; an update takes
two rows (old, then new; the new row's first four cells empty); values are joined by `<br/>`; the summary
is a last row spanning all six columns. No changes: `<p><b>No changes were planned</b></p>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from external_dns.plan.output.markdown import HEADER
from external_dns.plan.output.model import NO_CHANGES, Side, ZonePlan, zones_with_changes

_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>external-dns plan</title>
<style>
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { border: 1px solid #999; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
</style>
</head>
<body>
<h1>external-dns plan</h1>
"""
_TAIL = "</body>\n</html>\n"


def _td(text: str) -> str:
    return f"<td>{text}</td>"


def _side(side: Side) -> list[str]:
    return [_td(str(side.ttl)), _td("<br/>".join(escape(v) for v in side.values))]


def render(plans: Sequence[ZonePlan]) -> str:
    changed = zones_with_changes(plans)
    out = [_HEAD]
    if not changed:
        out.append(f"<p><b>{NO_CHANGES}</b></p>\n")
    for plan in changed:
        out.append(f"<h2>{escape(plan.display_name)}</h2>\n<table>\n")
        out.append("<tr>" + "".join(f"<th>{h}</th>" for h in HEADER) + "</tr>\n")
        for r in plan.rows():
            first = r.old if r.old is not None else r.new
            assert first is not None
            head = [_td(r.op), _td(escape(r.name)), _td(escape(r.record_type)), _td(escape(r.set_identifier))]
            out.append("<tr>" + "".join(head + _side(first)) + "</tr>\n")
            if r.op == "Update" and r.new is not None:
                out.append("<tr>" + "".join([_td("")] * 4 + _side(r.new)) + "</tr>\n")
        out.append(f'<tr><td colspan="6">Summary: {escape(plan.summary())}</td></tr>\n</table>\n')
    out.append(_TAIL)
    return "".join(out)
