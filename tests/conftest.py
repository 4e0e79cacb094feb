"""Test-suite wide settings.

With CI=true a skipped test marked `integration` fails the run: integration tests never skip silently in CI.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

# Real-server fixtures shared by every test package (`bind_server`, ...).
pytest_plugins = ["tests.servers.bind", "tests.kubeapi.fixtures", "tests.servers.moto", "tests.servers.pdns"]

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
