"""logging_setup.py: log lines as external-dns's logrus writes them (logfmt or JSON), values as Go prints
them, standard-library logging on the same stream."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
import structlog

from external_dns.logging_setup import STATUS, configure_logging, go_value, logfmt_renderer, print_line


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
    structlog.get_logger("t").critical("Failed to do run once: refused", provider="pdns")
    logging.getLogger("urllib3").critical("gone")
    lines = stream.getvalue().splitlines()
    assert 'level=info msg="Desired change: CREATE a.example.org A" zone=example.org' in lines[0]
    assert "retrying" in lines[1] and "level=warning" in lines[1]
    # logrus has no `critical`: its level above error is fatal
    assert 'level=fatal msg="Failed to do run once: refused" provider=pdns' in lines[2]
    assert "level=fatal" in lines[3] and "critical" not in stream.getvalue()


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


_RFC3339_UTC = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def test_times_are_rfc3339_seconds_as_logrus_writes_them(stream: io.StringIO) -> None:
    """external-dns configures logrus's default TextFormatter / JSONFormatter{}: time.RFC3339, no fraction."""
    configure_logging("info", "text", stream=stream)
    structlog.get_logger("t").info("a")
    logging.getLogger("urllib3").warning("b")
    for line in stream.getvalue().splitlines():
        assert re.match(f'time="{_RFC3339_UTC}" level=', line), line
    json_stream = io.StringIO()
    configure_logging("info", "json", stream=json_stream)
    structlog.get_logger("t").info("a", zone="z")
    logging.getLogger("urllib3").warning("b")
    lines = json_stream.getvalue().splitlines()
    assert re.fullmatch(f'{{"level":"info","msg":"a","time":"{_RFC3339_UTC}","zone":"z"}}', lines[0]), lines[0]
    assert re.match(f'{{"level":"warning","logger":"urllib3","msg":"b","time":"{_RFC3339_UTC}"}}', lines[1])


def test_rfc3339_local_offset_and_z_for_utc() -> None:
    code = "from external_dns.logging_setup import rfc3339; print(rfc3339(0.0))"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TZ": "Europe/Berlin"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "1970-01-01T01:00:00+01:00"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TZ": "UTC"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "1970-01-01T00:00:00Z"


def test_a_log_reader_that_went_away_drops_lines_and_never_raises(stream: io.StringIO) -> None:
    """`external-dns ... | head -1`: once the reader is gone a write fails with EPIPE; the line is dropped, the
    descriptor now points at /dev/null (later writes, ours and the interpreter's, succeed) and no caller
    (a zone worker, the signal watcher) sees an exception."""
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    out = os.fdopen(write_fd, "w")
    try:
        print_line("webhook server listening on ...", out)  # a plain line (not a log line) is dropped too
        assert os.path.samestat(os.fstat(write_fd), os.stat(os.devnull))
        configure_logging("info", "text", stream=out)
        structlog.get_logger("t").info("lost")
        structlog.get_logger("t").info("dropped too")
        logging.getLogger("kubernetes.client").warning("and this")
        assert os.path.samestat(os.fstat(write_fd), os.stat(os.devnull))
        out.write("still fine\n")
        out.flush()
    finally:
        out.close()


def test_a_closed_log_stream_drops_lines_and_never_raises(stream: io.StringIO) -> None:
    out = io.StringIO()
    configure_logging("info", "json", stream=out)
    out.close()
    structlog.get_logger("t").warning("nowhere to go")  # ValueError from the closed stream: dropped
    logging.getLogger("boto3").error("nor this")


def test_a_status_line_on_a_closed_stream_stops_drawing_without_raising(stream: io.StringIO) -> None:
    """`--progress=bar` on a terminal that went away: the bar stops, the apply it reports on goes on."""
    out = io.StringIO()
    configure_logging("info", "text", stream=out)
    STATUS.show(out, "example.org [####....] 50%")
    out.close()
    STATUS.show(out, "example.org [########] 100%")  # ValueError from the closed stream: no longer drawn
    assert STATUS.stream is None
    structlog.get_logger("t").info("a log line after it")
    STATUS.end()
