"""cmd/run.FatalStop: a failure no retry can fix ends the long-running process with one fatal line naming the
provider, the zone and the cause, however many workers meet it."""

from __future__ import annotations

import threading

from structlog.testing import capture_logs

from external_dns.cmd.run import FatalStop


def test_a_fatal_failure_logs_one_line_and_stops_the_process() -> None:
    stop = threading.Event()
    fatal = FatalStop(stop, "pdns")
    first = ConnectionRefusedError("refused the API key")
    with capture_logs() as logs:
        fatal("example.org", first)
        fatal("example.com", ValueError("again"))  # another worker meets the same refusal
    assert stop.is_set() and fatal.error is first
    assert logs == [{"event": "Failed to do run once: refused the API key", "log_level": "critical",
                     "provider": "pdns", "zone": "example.org"}]


def test_a_failure_to_list_the_zones_names_no_zone() -> None:
    stop = threading.Event()
    fatal = FatalStop(stop, "cloudflare")
    with capture_logs() as logs:
        fatal("", PermissionError("invalid token"))
    assert stop.is_set()
    assert logs == [{"event": "Failed to do run once: invalid token", "log_level": "critical",
                     "provider": "cloudflare"}]
