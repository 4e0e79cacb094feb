"""cmd/usage.py, what `--help` and a bare `external-dns` tell a user: every command listed once with its line,
the overview's usage and example (a command line that really validates), each command's parser naming itself
in its usage and its errors. The subprocess view of the same is tests/cli/test_usage_errors.py."""

from __future__ import annotations

import shlex

import pytest

from external_dns.cmd.config import build_parser, load_config
from external_dns.cmd.usage import (
    APPLY,
    COMMANDS,
    EXAMPLE,
    PLAN,
    RUN,
    WEBHOOK_SERVER,
    Command,
    command_list,
    overview,
)


def test_command_list_names_every_command_once_aligned() -> None:
    lines = command_list().splitlines()
    assert lines[0] == "commands:"
    rows = lines[1:1 + len(COMMANDS)]
    assert [row.split()[0] for row in rows] == ["run", "plan", "apply", "webhook-server", "rbac", "informer-probe"]
    assert len({row.index(text) for row, (_name, text) in zip(rows, COMMANDS, strict=True)}) == 1  # one column
    assert "`external-dns COMMAND --help`" in lines[-1]


def test_overview_opens_with_the_usage_and_ends_with_the_example() -> None:
    text = overview()
    assert text.startswith("usage: external-dns [run] --source=SOURCE... --provider=PROVIDER --policy=POLICY [flags]")
    assert command_list() in text and f"example:\n  {EXAMPLE}\n" in text
    assert text.endswith("`external-dns --help` lists every flag.\n")


def test_the_example_is_a_valid_command_line() -> None:
    argv = shlex.split(EXAMPLE.replace("\\\n", " "))
    assert argv[0] == "external-dns"
    _parser, cfg = load_config(argv[1:], environ={})
    assert cfg.core.once and cfg.core.provider == "zonefile" and cfg.local.zonefile_create_zones == ("example.org",)


def test_run_help_tells_of_the_environment() -> None:
    assert "EXTERNAL_DNS_TXT_OWNER_ID" in RUN.description


@pytest.mark.parametrize("command", [RUN, PLAN, APPLY, WEBHOOK_SERVER])
def test_each_command_parser_names_itself(command: Command, capsys: pytest.CaptureFixture[str]) -> None:
    flags = build_parser(command)
    assert flags.parser.format_usage().startswith(f"usage: {command.usage.splitlines()[0]}")
    with pytest.raises(SystemExit) as exited:
        flags.parse(["--policy-typo=sync"], environ={})
    assert exited.value.code == 2 and capsys.readouterr().err.startswith(f"{command.prog}: error: ")
