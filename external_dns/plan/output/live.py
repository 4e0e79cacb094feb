"""Plan outputs for the long-running controller: `LivePlanOutputs`, a `Controller.plan_observers` entry.

`--once` and `external-dns plan` render one plan of every zone (controller/once.py). The long-running
controller plans zone by zone, again at every sync, so here every output shows *the latest plan of every
zone that has changes*, and is only redone when that changes:

* a format with a file (`--plan-output-file FORMAT=PATH`) rewrites the file (atomically) with the latest
  plans of all zones, zones in name order; when no zone has changes left it says so
  (`No changes were planned`). With `--dry-run` the file always holds what a real run would change;
* a format without a file (`markdown`, `html`, `json` in `--plan-output`) prints one zone's plan to stdout
  when that zone's plan changes to a new, non-empty plan;
* `log` adds nothing: the controller already logs every planned change (`Desired change: ...`).

The observer runs right after the plan is calculated, before the safety check, so a refused plan is shown
too, with the verdict the safety check gives it (from `safety`, the gate's configuration). It never raises
(an unwritable file is a logged error; the sync goes on).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TextIO

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.output import render, write_file
from external_dns.plan.output.model import PlanMeta, ZonePlan
from external_dns.plan.safety import SafetyConfig, check_zone

log = structlog.get_logger(__name__)


class LivePlanOutputs:
    """`observer(zone, changes, current, desired)`; `formats` as `--plan-output`, `files` FORMAT -> PATH.
    `owner_id` and `managed_record_types` select the records counted as Existing (as the safety check);
    `safety` gives each zone's verdict; `clock` the time a plan is shown as made."""

    def __init__(self, formats: Sequence[str], files: Mapping[str, str], *, owner_id: str = "",
                 managed_record_types: Iterable[str] | None = None, stdout: TextIO | None = None,
                 default_ttl: Callable[[str], int] | None = None, safety: SafetyConfig | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.files = dict(files)
        self.printed = [f for f in dict.fromkeys(formats) if f != "log" and f not in self.files]
        self.owner_id = owner_id
        self.managed_record_types = list(managed_record_types) if managed_record_types is not None else None
        self.stdout = stdout
        self.default_ttl = default_ttl  # zone -> the TTL a record without one gets (Provider.record_default_ttl)
        self.safety = safety or SafetyConfig()
        self._unforced = dataclasses.replace(self.safety, force=False)  # --force shows what it overrides
        self._clock = clock
        self._lock = threading.Lock()
        self._latest: dict[str, ZonePlan] = {}  # zone -> its latest plan with changes
        self._shown: dict[str, str] = {}  # zone -> JSON of the plan last shown (the identity of a plan)
        self._files_written = False

    @property
    def active(self) -> bool:
        """Whether there is anything to do beyond the controller's own log lines."""
        return bool(self.files or self.printed)

    def __call__(self, zone: str | None, changes: Changes, current: Sequence[Endpoint],
                 desired: Sequence[Endpoint]) -> None:
        del desired
        key = zone or ""
        verdict = check_zone(self._unforced, key, changes, current, owner_id=self.owner_id,
                             managed_record_types=self.managed_record_types)
        plan = ZonePlan(zone=key, changes=changes, existing=verdict.existing,
                        default_ttl=self.default_ttl(key) if self.default_ttl is not None else 0,
                        verdict=verdict, forced=self.safety.force)
        try:
            self._observe(key, plan)
        except Exception as exc:  # an output must never break a sync
            log.error(f"cannot write the plan output: {exc}", zone=key)

    def _observe(self, key: str, plan: ZonePlan) -> None:
        identity = render("json", [plan]) if plan.has_changes else ""
        with self._lock:
            if self._shown.get(key, "") == identity and self._files_written:
                return
            self._shown[key] = identity
            if plan.has_changes:
                self._latest[key] = plan
            else:
                self._latest.pop(key, None)
            plans = [self._latest[z] for z in sorted(self._latest)]
            meta = PlanMeta(owner_id=self.owner_id, generated_at=self._clock())
            for fmt, path in self.files.items():
                write_file(path, render(fmt, plans, meta))
            self._files_written = True
            if plan.has_changes:
                out = self.stdout or sys.stdout
                for fmt in self.printed:
                    out.write(render(fmt, [plan], meta))
                out.flush()

