"""The Markdown output (plan/output/markdown.py): the golden rendering's tables read back by markdown-it-py, cell
for cell."""

from __future__ import annotations

from markdown_it import MarkdownIt

from tests.plan.output.sample import GOLDEN


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
