"""Progress of a long `--once` apply, per zone and per batch.

`Progress` receives `start(zones, total)`, `zone_started(zone, changes)`, `batch_done(zone, n)`,
`zone_done(zone)` and `finish()`, and shows them as:

* a progress bar on stderr when stderr is a terminal (`mode="auto"` or `"bar"`): one line redrawn in place
  (`logging_setup.STATUS`: a log line clears it first and it is redrawn below the log line), e.g.
  `example.org. [##########..........]  50% 500/1000 changes, zone 1/3`;
* otherwise (`"log"`, or `"auto"` without a terminal) structured log lines: `Apply progress` with
  `zone`, `zone_done`/`zone_total` and overall `done`/`total`/`percent`, at most one per `interval` seconds
  (the first batch and the end of every zone are always logged);
* nothing with `"none"`.

No third-party bar library: the bar is one redrawn line, and in containers and CI (where these syncs run)
stderr is not a terminal and the log lines are what people read. A dependency (tqdm, rich) would add
nothing those lines do not already give. The clock is injectable for tests.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

import structlog

from external_dns.endpoint.zones import display_zone, log_zone
from external_dns.logging_setup import STATUS

log = structlog.get_logger(__name__)

MODES = ("auto", "bar", "log", "none")
BAR_WIDTH = 30


class Progress:
    """Thread-safe progress reporter for one apply run."""

    def __init__(self, mode: str = "auto", *, interval: float = 10.0, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown progress mode {mode!r} (one of: {', '.join(MODES)})")
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "bar" if self.stream.isatty() else "log"
        self.mode = mode
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self.total = 0
        self.done = 0
        self.zones = 0
        self.zone_index = 0
        self._zone = ""
        self._zone_total = 0
        self._zone_done = 0
        self._last_log = float("-inf")
        self._logged = (0, -1)  # (zone index, zone changes done) of the last progress line logged
        self.log_lines = 0

    def start(self, zones: int, total: int) -> None:
        with self._lock:
            self.zones, self.total, self.done, self.zone_index = zones, total, 0, 0

    def zone_started(self, zone: str, changes: int) -> None:
        with self._lock:
            self.zone_index += 1
            self._zone, self._zone_total, self._zone_done = zone, changes, 0
            self._last_log = float("-inf")

    def batch_done(self, zone: str, n: int) -> None:
        with self._lock:
            self.done += n
            self._zone_done += n
            self._show(final=False)

    def zone_done(self, zone: str) -> None:
        with self._lock:
            self._show(final=True)

    def finish(self) -> None:
        with self._lock:
            if self.mode == "bar" and self.zone_index:
                STATUS.end()

    # -- rendering --------------------------------------------------------------------------------------------
    def _percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 100.0

    def _show(self, final: bool) -> None:
        if self.mode == "bar":
            # through the shared status line: a log line written meanwhile clears the bar first
            STATUS.show(self.stream, self.bar_line())
        elif self.mode == "log":
            now = self._clock()
            if final and self._logged == (self.zone_index, self._zone_done):
                return  # the zone's last batch was just logged: no identical line at its end
            if final or now - self._last_log >= self.interval:
                self._last_log = now
                self._logged = (self.zone_index, self._zone_done)
                self.log_lines += 1
                log.info("Apply progress", zone=log_zone(self._zone), zone_done=self._zone_done,
                         zone_total=self._zone_total, zone_index=self.zone_index, zones=self.zones,
                         done=self.done, total=self.total, percent=round(self._percent(), 1))

    def bar_line(self) -> str:
        filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        return (f"{display_zone(self._zone)} [{bar}] {self._percent():3.0f}% {self.done}/{self.total} changes, "
                f"zone {self.zone_index}/{self.zones}")
