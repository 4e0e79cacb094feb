"""Fixtures of the CLI tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """For a test that configures logging for the process (configure_logging, a sub-command run in-process):
    the root logger's handlers and level, and structlog's defaults, are put back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)
