"""Test-suite wide settings.

With CI=true a skipped test marked `integration` fails the run: integration tests never skip silently in CI.
Logging is put back after every test: a test that configures it for the process (configure_logging, a
sub-command run in-process such as webhook-server) would otherwise send the later tests' log lines to its own
stream, and tests reading them from stdout failed depending on the order.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Generator

import pytest
import structlog

# Real-server fixtures shared by every test package (`bind_server`, ...).
pytest_plugins = ["tests.servers.bind", "tests.kubeapi.fixtures", "tests.realkube.plugin", "tests.servers.moto",
                  "tests.servers.pdns"]

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.pop("AWS_PROFILE", None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if os.environ.get("CI") == "true" and report.skipped and item.get_closest_marker("integration"):
        report.outcome = "failed"
        report.longrepr = f"integration test skipped in CI (CI=true): {report.longrepr}"
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Around each test's setup, call and teardown (outside pytest's own per-phase log capture): the root
    logger's handlers and level and structlog's configuration as they were before it."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    configured, config = structlog.is_configured(), structlog.get_config()
    config["processors"] = list(config["processors"])
    try:
        return (yield)
    finally:
        if (structlog.is_configured(), structlog.get_config()) != (configured, config):
            if configured:
                structlog.configure(**config)
            else:
                structlog.reset_defaults()
        root.handlers[:] = handlers
        root.setLevel(level)
