"""README's flag reference is generated from the parser and must not drift from it."""

from __future__ import annotations

from pathlib import Path

from external_dns.cmd.flagdoc import BEGIN, END, flag_table, main, replace_in

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_flag_table_matches_the_parser() -> None:
    text = README.read_text()
    assert BEGIN in text and END in text
    assert replace_in(text) == text, "README flags are stale: run python -m external_dns.cmd.flagdoc --write README.md"


def test_flag_table_lists_core_flags_with_env_and_default() -> None:
    table = flag_table()
    assert "| `--txt-owner-id` | `default` | `EXTERNAL_DNS_TXT_OWNER_ID` |" in table
    assert "`--policy`" in table and "`--interval` | `1m0s`" in table


def test_write_replaces_only_the_table_between_the_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{BEGIN}\n| stale |\n{END}\n\nafter\n")
    assert main(["--write", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith(f"# title\n\n{BEGIN}\n") and text.endswith(f"{END}\n\nafter\n")
    assert "| stale |" not in text and "| `--provider` |" in text and "`EXTERNAL_DNS_PROVIDER`" in text


def test_secret_flags_show_no_default_and_negations_are_not_listed() -> None:
    table = flag_table()
    row = next(line for line in table.splitlines() if line.startswith("| `--rfc2136-tsig-secret` |"))
    assert row.startswith("| `--rfc2136-tsig-secret` |  |") and "%(default" not in table
    assert "`--no-once`" not in table and "| `--once` |" in table
