"""README's flag reference is generated from the parser and must not drift from it."""

from __future__ import annotations

from pathlib import Path

from external_dns.cmd.flagdoc import BEGIN, END, flag_table, replace_in

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_flag_table_matches_the_parser() -> None:
    text = README.read_text()
    assert BEGIN in text and END in text
    assert replace_in(text) == text, "README flags are stale: run python -m external_dns.cmd.flagdoc --write README.md"


def test_flag_table_lists_core_flags_with_env_and_default() -> None:
    table = flag_table()
    assert "| `--txt-owner-id` | `default` | `EXTERNAL_DNS_TXT_OWNER_ID` |" in table
    assert "`--policy`" in table and "`--interval` | `1m0s`" in table
