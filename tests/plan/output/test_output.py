"""Plan outputs (plan/output/): golden files for log, Markdown, HTML and JSON on one fixed plan; the no-changes form;
an unknown format; files written by emit_outputs; the safety verdict in every output.

Regenerate the golden files after a deliberate format change with UPDATE_GOLDEN=1."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from external_dns.plan.changes import Changes
from external_dns.plan.output import FORMATS, PlanMeta, ZonePlan, emit_outputs, render
from external_dns.plan.safety import Thresholds, assess
from tests.plan.output.sample import GOLDEN, META, ep, fixed_plan

EXTENSIONS = {"log": "txt", "markdown": "md", "html": "html", "json": "json"}


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
