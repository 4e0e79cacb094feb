"""The HTML output (plan/output/html.py): a standalone page, every value escaped, one row per change."""

from __future__ import annotations

from html.parser import HTMLParser

from external_dns.plan.output import render
from tests.plan.output.sample import fixed_plan


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
