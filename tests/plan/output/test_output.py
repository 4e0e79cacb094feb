"""Plan outputs (plan/output/): golden files for log, Markdown, HTML and JSON on one fixed plan; the Markdown
table parsed by markdown-it-py; HTML escaping; order; the no-changes form; files written by emit_outputs.

Regenerate the golden files after a deliberate format change with UPDATE_GOLDEN=1."""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.output import FORMATS, PlanMeta, ZonePlan, emit_outputs, render
from external_dns.plan.safety import Thresholds, assess
from tests.helpers import endpoints

GOLDEN = Path(__file__).parent / "golden"
EXTENSIONS = {"log": "txt", "markdown": "md", "html": "html", "json": "json"}


def ep(name: str, rtype: str, ttl: int, *targets: str, set_id: str = "") -> Endpoint:
    return endpoints.ep(name, rtype, *targets, ttl=ttl, set_id=set_id, owner="golden", resource="service/default/web")


def fixed_plan() -> list[ZonePlan]:
    org = Changes(
        create=[
            ep("www.example.org", "A", 300, "10.0.0.1", "10.0.0.2"),
            ep("*.apps.example.org", "CNAME", 60, "lb.example.net"),
            ep("note.example.org", "TXT", 300, '"<script>alert(1)</script> & a|b"'),
        ],
        update_old=[ep("web.example.org", "A", 300, "10.0.1.1", set_id="blue"),
                    ep("api.example.org", "A", 300, "10.0.0.3")],
        update_new=[ep("web.example.org", "A", 300, "10.0.1.2", set_id="blue"),
                    ep("api.example.org", "A", 600, "10.0.0.4", "10.0.0.5")],
        delete=[ep("zz.example.org", "AAAA", 300, "2001:db8::1"), ep("old.example.org", "A", 300, "10.0.0.9"),
                ep("old.example.org", "AAAA", 300, "2001:db8::9")],
    )
    com = Changes(create=[ep("example.com", "A", 0, "192.0.2.10")])
    # example.org is refused: 3 of 12 deleted is over a 20 % delete threshold
    return [ZonePlan("example.org", org, existing=12, verdict=assess("example.org", org, 12, Thresholds(delete=0.2))),
            ZonePlan("example.net", Changes(), existing=3, verdict=assess("example.net", Changes(), 3, Thresholds())),
            ZonePlan("example.com", com, existing=0, verdict=assess("example.com", com, 0, Thresholds()))]


META = PlanMeta(owner_id="golden", generated_at=1796083200.0)  # 2026-12-01T00:00:00Z


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(fmt: str) -> None:
    text = render(fmt, fixed_plan(), META)
    path = GOLDEN / f"plan.{EXTENSIONS[fmt]}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_changes_says_so(fmt: str) -> None:
    text = render(fmt, [ZonePlan("example.org", Changes(), existing=5)])
    if fmt == "json":
        assert json.loads(text) == {"version": 1, "has_changes": False, "zones": {}, "safe": True,
                                    "unsafe_zones": []}
    else:
        assert "No changes were planned" in text
    assert "example.org" not in text


def test_log_order_and_update_shows_old_and_new() -> None:
    lines = render("log", fixed_plan()).splitlines()
    assert lines[0] == "Plan for zone example.com."
    org = lines[lines.index("Plan for zone example.org.") + 1:]
    assert org[0].startswith("Safety: UNSAFE, not applied without --force: Too many deletes")
    assert org[1].startswith("Thresholds: updates 2/12 = 16.67% (threshold 30.00%), deletes 3/12 = 25.00%")
    org = org[2:]
    ops = [line.split()[0] for line in org[:-1]]
    assert ops == ["Delete"] * 3 + ["Create"] * 3 + ["Update"] * 2
    assert org[0] == "Delete old.example.org A 300 10.0.0.9"
    assert org[1] == "Delete old.example.org AAAA 300 2001:db8::9"
    assert org[2] == "Delete zz.example.org AAAA 300 2001:db8::1"
    assert org[3].startswith("Create *.apps.example.org CNAME 60")
    assert "Update api.example.org A 300 10.0.0.3 -> 600 10.0.0.4;10.0.0.5" in org
    assert "Update web.example.org A [blue] 300 10.0.1.1 -> 300 10.0.1.2" in org
    assert org[-1] == "Summary: Creates=3, Updates=2, Deletes=3, Existing=12"


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every table as rows of cell texts, from markdown-it-py's tokens."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables: list[list[list[str]]] = []
    row: list[str] = []
    cell_open = False
    for tok in tokens:
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type in ("th_open", "td_open"):
            cell_open = True
            row.append("")
        elif tok.type == "inline" and cell_open:
            row[-1] = "".join(child.content for child in tok.children or [] if child.type in ("text", "text_special"))
        elif tok.type in ("th_close", "td_close"):
            cell_open = False
        elif tok.type == "tr_close":
            tables[-1].append(row)
    return tables


def test_markdown_table_parses_with_markdown_it() -> None:
    text = (GOLDEN / "plan.md").read_text(encoding="utf-8")
    tables = _tables(text)
    assert len(tables) == 2
    com, org = tables
    header = ["Operation", "Name", "Type", "Set identifier", "TTL", "Value"]
    assert com == [header, ["Create", "example.com", "A", "", "0", "192.0.2.10"]]
    assert org[0] == header
    assert len(org) == 1 + 3 + 3 + 2 * 2, "an update takes two rows"
    assert org[1] == ["Delete", "old.example.org", "A", "", "300", "10.0.0.9"]
    assert org[4] == ["Create", "*.apps.example.org", "CNAME", "", "60", "lb.example.net"]
    # the TXT value with | and HTML survives as one cell, unescaped by the renderer
    assert org[5] == ["Create", "note.example.org", "TXT", "", "300", '"<script>alert(1)</script> & a|b"']
    assert org[7] == ["Update", "api.example.org", "A", "", "300", "10.0.0.3"]
    assert org[8] == ["", "", "", "", "600", "10.0.0.4; 10.0.0.5"]
    assert org[9] == ["Update", "web.example.org", "A", "blue", "300", "10.0.1.1"]
    assert org[10] == ["", "", "", "", "300", "10.0.1.2"]
    assert "Summary: Creates=3, Updates=2, Deletes=3, Existing=12" in text
    assert "## example.org." in text and "## example.com." in text


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._in_cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.rows[-1][-1] += data


def test_html_is_a_standalone_page_with_escaped_values() -> None:
    text = render("html", fixed_plan())
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; a|b" in text
    parser = _Cells()
    parser.feed(text)
    assert "script" not in parser.tags
    assert parser.tags.count("table") == 2
    assert ["Create", "note.example.org", "TXT", "", "300", '"<script>alert(1)</script> & a|b"'] in parser.rows
    # an update is one row, old -> new (values split by <br/>)
    assert ["Update", "api.example.org", "A", "", "300 → 600", "10.0.0.3 → 10.0.0.410.0.0.5"] in parser.rows
    assert ["Summary: Creates=3, Updates=2, Deletes=3, Existing=12"] in parser.rows


def test_json_is_stable_and_complete() -> None:
    text = render("json", fixed_plan())
    doc = json.loads(text)
    assert text == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n", "sorted keys"
    assert doc["version"] == 1 and doc["has_changes"] is True
    assert sorted(doc["zones"]) == ["example.com.", "example.org."]
    org = doc["zones"]["example.org."]
    assert org["summary"] == {"creates": 3, "updates": 2, "deletes": 3, "existing": 12}
    assert [c["type"] for c in org["changes"]] == ["delete"] * 3 + ["create"] * 3 + ["update"] * 2
    api = next(c for c in org["changes"] if c["name"] == "api.example.org")
    assert api == {"type": "update", "name": "api.example.org", "record_type": "A", "set_identifier": "",
                   "existing": {"ttl": 300, "values": ["10.0.0.3"]},
                   "new": {"ttl": 600, "values": ["10.0.0.4", "10.0.0.5"]}}
    # the same plan in another input order renders byte for byte the same
    shuffled = fixed_plan()[::-1]
    shuffled[2].changes.delete.reverse()
    assert render("json", shuffled) == text


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown plan output 'pdf'"):
        render("pdf", fixed_plan())


def test_emit_outputs_writes_files_and_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "plan.md"
    js = tmp_path / "plan.json"
    emit_outputs(["log", "markdown", "html"], {"markdown": str(md), "json": str(js)}, fixed_plan())
    out = capsys.readouterr().out
    assert "<!DOCTYPE html>" in out, "html without a file goes to stdout"
    assert "| Operation |" not in out, "markdown went to its file"
    assert md.read_text() == render("markdown", fixed_plan())
    assert json.loads(js.read_text())["zones"]["example.com."]["summary"]["creates"] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".plan-")], "no temporary files left"


# -- the safety verdict in every output (issue 28 item 4) -----------------------------------------------------------
def refused_plan(forced: bool = False) -> list[ZonePlan]:
    zone = "example.org"
    changes = Changes(delete=[ep(f"h{i}.example.org", "A", 300, "10.0.0.1") for i in range(9)])
    return [ZonePlan(zone, changes, existing=20, verdict=assess(zone, changes, 20, Thresholds()), forced=forced)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_refused_plan_says_so_with_its_figures_owner_and_time(fmt: str) -> None:
    """A refused plan must not look like an acceptable one in a PR comment: the verdict, why, the thresholds
    and the figures, whose plan it is and when it was made."""
    text = render(fmt, refused_plan(), PlanMeta(owner_id="prod-eu-1", generated_at=1796083200.0))
    if fmt == "json":
        doc = json.loads(text)
        assert (doc["safe"], doc["unsafe_zones"], doc["owner_id"], doc["generated_at"]) == \
            (False, ["example.org."], "prod-eu-1", "2026-12-01T00:00:00Z")
        assert doc["zones"]["example.org."]["safety"] == {
            "safe": False, "forced": False, "percentage_checked": True,
            "problems": [{"reason": "too-many-deletes",
                          "message": "Too many deletes, 45.00% is over 30.00% (9/20), force required"}],
            "thresholds": {"update": 0.3, "delete": 0.3, "min_existing_records": 10},
            "update_fraction": 0.0, "delete_fraction": 0.45}
        return
    plain = re.sub(r"<[^>]+>", "", text).replace("\\", "")  # HTML tags, Markdown escapes
    assert "UNSAFE, not applied without --force" in plain
    assert "Too many deletes, 45.00% is over 30.00% (9/20)" in plain
    assert "deletes 9/20 = 45.00% (threshold 30.00%)" in plain
    assert "prod-eu-1" in plain and "2026-12-01T00:00:00Z" in plain
    assert "UNSAFE: 1 zone(s) need --force (example.org.)" in plain


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_forced_plan_says_it_was_applied_with_force(fmt: str) -> None:
    text = render(fmt, refused_plan(forced=True), PlanMeta(owner_id="prod-eu-1"))
    if fmt == "json":
        safety = json.loads(text)["zones"]["example.org."]["safety"]
        assert (safety["safe"], safety["forced"]) == (False, True)
    else:
        assert "UNSAFE, applied with --force" in text


def test_json_keeps_its_version_1_fields() -> None:
    """Fields are only added: a reader of version 1 finds every key it knew, with the same values."""
    doc = json.loads(render("json", fixed_plan(), META))
    old = json.loads(render("json", [ZonePlan(p.zone, p.changes, p.existing) for p in fixed_plan()]))
    assert doc["version"] == old["version"] == 1 and doc["has_changes"] == old["has_changes"]
    for zone, body in old["zones"].items():
        assert set(body) == {"changes", "summary"}
        assert doc["zones"][zone]["changes"] == body["changes"] and doc["zones"][zone]["summary"] == body["summary"]
