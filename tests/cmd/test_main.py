"""In-process checks of the CLI entry point and the log renderers (the subprocess tests are in test_cli.py)."""

from __future__ import annotations

import io
import json
import os

import pytest
import structlog

from external_dns.cmd.main import main
from external_dns.logging_setup import configure_logging, logfmt_renderer


def test_unknown_sub_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "unknown sub-command 'frobnicate' (available: run" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--zonefile-dir" in out and "--inmemory-zone" in out


def test_config_error_is_one_line_naming_the_flag(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("EXTERNAL_DNS_")]:
        monkeypatch.delenv(key)
    assert main(["run", "--once", "--source=manifest", "--manifest-dir=.", "--provider=zonefile",
                 "--policy=sync"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "external-dns: error: --zonefile-dir must be set for --provider=zonefile"


@pytest.mark.parametrize(("argv", "message"), [
    (["--no-such-flag"], "external-dns: error: unrecognized arguments: --no-such-flag, try --help"),
    (["--workers=x", "--policy=sync"], "external-dns: error: argument --workers: invalid int value: 'x', try --help"),
    (["--interval=abc"], "external-dns: error: argument --interval: invalid duration 'abc'"),
])
def test_bad_command_line_is_one_line_without_the_usage(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                        message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message), err[:3]


def test_logfmt_renderer_quotes_only_when_needed() -> None:
    line = logfmt_renderer(None, "info", {"timestamp": "T", "level": "info", "event": "All records are up",
                                          "zone": "example.org", "note": "two words", "n": 3, "cfg": {"a": 1}})
    assert line == 'time="T" level=info msg="All records are up" cfg="map[a:1]" n=3 note="two words" zone=example.org'


def test_json_and_level_filtering() -> None:
    out = io.StringIO()
    configure_logging("warning", "json", stream=out)
    log = structlog.get_logger("t")
    log.info("hidden")
    log.warning("shown", key="v")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 1
    assert lines[0]["msg"] == "shown" and lines[0]["level"] == "warning" and lines[0]["key"] == "v"
    assert "time" in lines[0]


def test_bad_level_or_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported log format: xml"):
        configure_logging("info", "xml")
    with pytest.raises(ValueError, match="--log-level"):
        configure_logging("loud", "text")
