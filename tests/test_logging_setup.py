"""logging_setup.py: log lines as external-dns's logrus writes them (logfmt or JSON), values as Go prints
them, standard-library logging on the same stream."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from external_dns.logging_setup import configure_logging, go_value, logfmt_renderer


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield io.StringIO()
    structlog.reset_defaults()  # the tests after this one see the logging they started with
    root.handlers[:] = handlers
    root.setLevel(level)


def test_values_print_as_go_does() -> None:
    assert go_value(True) == "true" and go_value(None) == "<nil>"
    assert go_value(2.0) == "2" and go_value(2.5) == "2.5"
    assert go_value(["a", "b"]) == "[a b]" and go_value({"b": 1, "a": [True]}) == "map[a:[true] b:1]"
    assert go_value(ValueError("bad ttl")) == "bad ttl"


def test_logfmt_quotes_only_what_logrus_quotes() -> None:
    line = logfmt_renderer(None, "info", {"timestamp": "T", "level": "info", "event": "All records are up to date",
                                          "zone": "example.org", "url": "http://127.0.0.1:7979", "n": 3})
    assert line == ('time="T" level=info msg="All records are up to date" n=3 url="http://127.0.0.1:7979" '
                    "zone=example.org")


def test_text_and_stdlib_lines_share_the_stream(stream: io.StringIO) -> None:
    configure_logging("debug", "text", stream=stream)
    structlog.get_logger("t").info("Desired change: CREATE a.example.org A", zone="example.org")
    logging.getLogger("kubernetes.client").warning("retrying")
    lines = stream.getvalue().splitlines()
    assert 'level=info msg="Desired change: CREATE a.example.org A" zone=example.org' in lines[0]
    assert "retrying" in lines[1] and "level=warning" in lines[1]


def test_json_lines(stream: io.StringIO) -> None:
    configure_logging("info", "json", stream=stream)
    structlog.get_logger("t").debug("hidden")
    structlog.get_logger("t").warning("zone refused", zone="example.org")
    [doc] = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert (doc["level"], doc["msg"], doc["zone"]) == ("warning", "zone refused", "example.org") and "time" in doc


def test_unknown_level_or_format_is_refused(stream: io.StringIO) -> None:
    with pytest.raises(ValueError, match="--log-level"):
        configure_logging("verbose")
    with pytest.raises(ValueError, match="log format"):
        configure_logging("info", "yaml")
