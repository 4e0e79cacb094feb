"""Logging is the process's: tests/conftest.py puts it back after every test. The first test configures it the
way a sub-command run in-process does (webhook-server, `run`); the second, run after it, still reads its own
log lines from its captured stdout (it failed when the first one's configuration stayed: the lines went to
the first test's stream)."""

from __future__ import annotations

import io

import pytest
import structlog

from external_dns.logging_setup import configure_logging


def test_a_test_configures_logging_for_the_process() -> None:
    out = io.StringIO()
    configure_logging("warning", "json", stream=out)
    structlog.get_logger("t").warning("to the first test's stream")
    assert "to the first test's stream" in out.getvalue()


def test_the_next_test_reads_its_log_lines_from_its_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    structlog.get_logger("t").info("Desired change: CREATE www.example.com A")
    assert "Desired change: CREATE www.example.com A" in capsys.readouterr().out
