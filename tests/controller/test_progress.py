"""Apply progress (controller/progress.py): the bar on a terminal, throttled structured log lines otherwise."""

from __future__ import annotations

import io

import pytest
import structlog

from external_dns.controller.progress import Progress
from external_dns.workqueue import FakeClock


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_picks_the_bar_on_a_terminal_and_log_lines_otherwise() -> None:
    assert Progress("auto", stream=FakeTty()).mode == "bar"
    assert Progress("auto", stream=io.StringIO()).mode == "log"
    with pytest.raises(ValueError, match="unknown progress mode 'fancy'"):
        Progress("fancy")


def test_bar_redraws_one_line() -> None:
    tty = FakeTty()
    p = Progress("bar", stream=tty)
    p.start(zones=2, total=40)
    p.zone_started("example.org", 30)
    p.batch_done("example.org", 10)
    assert tty.getvalue().endswith("\r\x1b[Kexample.org. [#######.......................]  25% 10/40 changes, zone 1/2")
    p.batch_done("example.org", 20)
    p.zone_done("example.org")
    p.zone_started("example.com", 10)
    p.batch_done("example.com", 10)
    p.finish()
    out = tty.getvalue()
    assert out.count("\n") == 1 and out.endswith("100% 40/40 changes, zone 2/2\n")
    assert "[" + "#" * 30 + "]" in out


def test_log_lines_are_throttled_but_every_zone_end_is_logged() -> None:
    clock = FakeClock(0.0)
    p = Progress("log", interval=10.0, stream=io.StringIO(), clock=clock.now)
    with structlog.testing.capture_logs() as logs:
        p.start(zones=1, total=100)
        p.zone_started("example.org", 100)
        for _ in range(10):  # ten batches within 3 seconds: only the first is logged
            clock.step(0.3)
            p.batch_done("example.org", 5)
        clock.step(10.0)
        p.batch_done("example.org", 25)  # interval passed: logged
        p.batch_done("example.org", 25)  # not yet
        p.zone_done("example.org")  # always
    lines = [e for e in logs if e["event"] == "Apply progress"]
    assert [e["done"] for e in lines] == [5, 75, 100]
    assert lines[-1] == {"event": "Apply progress", "log_level": "info", "zone": "example.org", "zone_done": 100,
                         "zone_total": 100, "zone_index": 1, "zones": 1, "done": 100, "total": 100, "percent": 100.0}
    assert p.log_lines == 3


def test_none_prints_nothing() -> None:
    stream = FakeTty()
    p = Progress("none", stream=stream)
    with structlog.testing.capture_logs() as logs:
        p.start(1, 1)
        p.zone_started("z", 1)
        p.batch_done("z", 1)
        p.zone_done("z")
        p.finish()
    assert stream.getvalue() == "" and not logs


def test_single_batch_zone_logs_one_line_not_two() -> None:
    p = Progress("log", interval=10.0, stream=io.StringIO(), clock=FakeClock(0.0).now)
    with structlog.testing.capture_logs() as logs:
        p.start(zones=2, total=4)
        for zone in ("a.org", "b.org"):
            p.zone_started(zone, 2)
            p.batch_done(zone, 2)
            p.zone_done(zone)
    lines = [(e["zone"], e["done"]) for e in logs if e["event"] == "Apply progress"]
    assert lines == [("a.org", 2), ("b.org", 4)]


def test_a_log_line_clears_the_bar_and_the_bar_is_redrawn_below_it() -> None:
    import logging

    from external_dns.logging_setup import CLEAR_LINE, configure_logging

    tty = FakeTty()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        configure_logging("info", "text", stream=tty)
        p = Progress("bar", stream=tty)
        p.start(zones=1, total=4)
        p.zone_started("example.org", 4)
        p.batch_done("example.org", 2)
        structlog.get_logger("t").info("a log line")
        logging.getLogger("urllib3").warning("another")
        p.batch_done("example.org", 2)
        p.finish()
        structlog.get_logger("t").info("after the bar")
    finally:
        structlog.reset_defaults()
        root.handlers[:] = handlers
        root.setLevel(level)
    lines = tty.getvalue().split("\n")
    bar = "example.org. [###############...............]  50% 2/4 changes, zone 1/1"
    # every log line starts on a cleared line, the bar comes back after it, the last line has no bar
    assert lines[0] == CLEAR_LINE + bar + CLEAR_LINE + lines[0].split(CLEAR_LINE)[2]
    assert 'msg="a log line"' in lines[0] and lines[0].split(CLEAR_LINE)[2].startswith("time=")
    assert lines[1].startswith(bar + CLEAR_LINE + "time=") and "msg=another" in lines[1]
    assert lines[2].startswith(bar + CLEAR_LINE + "example.org. [" + "#" * 30 + "] 100% 4/4")
    assert lines[3].startswith("time=") and 'msg="after the bar"' in lines[3] and CLEAR_LINE not in lines[3]
