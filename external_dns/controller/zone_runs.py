"""Which run a zone gets, and what it reads: `ZoneRuns`, the zone controller's decision (zone_controller.py
queues and retries the zones; this module runs one).

* The full run (a periodic pass's drift repair, a zone never synced, one due after a failed full run, or an
  event run that cannot be exact) reads the whole zone: its share of the pass's one source read
  (pass_read.py), or the source itself.
* An event run plans only the zone's dirty names (dirty.py): the names the source reports changed, read by
  name (`Read.of_names`), or, when the source cannot name them, the names whose fingerprints differ from the
  baseline after a read of the whole source; plus the names the registry's zone journal saw move and the
  names owed by earlier runs. It needs a trusted baseline (else it is a full run).

The results of each run (`RunResult`: fingerprints, names planned, names that moved meanwhile) go into the
plain dirty-name state; a failed run gives its names back (and what moved during it, or the zone's trust).

Event runs do not wait for the zone's full run: a zone's full runs take turns (one lock per zone), and a full
run holds the zone's run lock only for its write, leaving out the names event runs planned since its read
began (`DirtyNames.since_full`: planned by the newer read); they stay owed after it (dirty.py).
"""

from __future__ import annotations

import threading

from external_dns.controller import metrics
from external_dns.controller.controller import (
    WHOLE,
    ByNameUnavailable,
    Controller,
    Read,
    RunOnceError,
    RunResult,
)
from external_dns.controller.dirty import DirtyNames, in_zone, name_fingerprints
from external_dns.controller.pass_read import PassRead
from external_dns.providers.snapshot import name_key


class Run:
    """One reconcile's kind: `full` (decided up front, or an event run that found it cannot be exact) and
    `whole`, whether it read the whole source itself (counted for the pass's shared read)."""

    def __init__(self, full: bool, unsynced: bool = False) -> None:
        self.full = full
        self.unsynced = unsynced  # full only because the zone never synced: an event run once it has
        self.whole = False


class ZoneRuns:
    """The runs of the zones of one `Controller` (see the module docstring). `incremental`: event runs plan
    dirty names (else every run is full); `fingerprints`: full runs keep their baseline (event passes compare
    it to skip unchanged zones)."""

    def __init__(self, controller: Controller, *, incremental: bool = True, fingerprints: bool = True) -> None:
        self.controller = controller
        self.incremental = incremental
        self.fingerprints = fingerprints or incremental
        self.dirty = DirtyNames()
        self._lock = threading.Lock()
        self._full_due: set[str] = set()  # zones whose next run is full: released by a pass, or failed full
        self._synced_once: set[str] = set()  # zones with a successful run
        self._whole_reads: dict[str, int] = {}  # zone -> runs that read the whole source themselves
        self.pass_read: PassRead | None = None  # the source read of the current periodic pass
        self._full_locks: dict[str, threading.Lock] = {}  # zone -> its full runs take turns

    # -- what the zone controller asks ----------------------------------------------------------------------
    def begin_pass(self, keys: list[str]) -> None:
        """A new periodic pass over `keys`: a new shared source read (made on its first zone's full run)."""
        with self._lock:
            old, self.pass_read = self.pass_read, PassRead(self.controller, keys, self._whole_reads)
        if old is not None:
            old.close()

    def release(self, zone: str) -> None:
        """The pass released `zone` into the queue: its next run is its full run."""
        with self._lock:
            self._full_due.add(zone)

    def full_due(self, zone: str) -> bool:
        with self._lock:
            return zone in self._full_due

    def synced_once(self, zone: str) -> bool:
        with self._lock:
            return zone in self._synced_once

    def share_gone(self, zone: str) -> bool:
        """True when the current pass's read holds no share for `zone` any more (taken by an event run of a
        zone never synced, which ran in full with it; or the pass's read closed)."""
        with self._lock:
            pass_read = self.pass_read
        return pass_read is not None and not pass_read.pending(zone)

    def zones_with_events(self, keys: list[str]) -> list[str] | None:
        """The zones holding names the source reported changed; None when the source cannot name them (the
        caller compares fingerprints)."""
        if not self.incremental:
            return None
        if not self.dirty.started():  # no zone synced yet: they all run in full, the source keeps its names
            return []
        if not self._collect_events():
            return None
        return self.dirty.zones_with_events(keys)

    # -- one run ---------------------------------------------------------------------------------------------
    def sync(self, zone: str, full: bool = False) -> RunResult:
        """One run of `zone` now: the full run when `full` or when an event run cannot be exact. Raises
        RunOnceError like `Controller.sync`."""
        run = self.begin(zone, full)
        try:
            result = self.run(zone, run)
        except BaseException:
            self.end(zone, run, ok=False)
            raise
        self.end(zone, run, ok=True)
        return result

    def begin(self, zone: str, full: bool, *, event: bool = False) -> Run:
        """The kind of `zone`'s run: full when asked, or due (unless `event`: an event's run, the zone's full
        run queued on its own), or never synced, or without `incremental`."""
        with self._lock:
            due = zone in self._full_due and not event
            unsynced = zone not in self._synced_once
            return Run(full or not self.incremental or due or unsynced,
                       unsynced=unsynced and self.incremental and not (full or due))

    def end(self, zone: str, run: Run, *, ok: bool) -> None:
        """The run ended: a whole-source read is counted (pass_read.py), a success noted."""
        with self._lock:
            if run.whole:  # this run's read is newer than the pass's shared read
                self._whole_reads[zone] = self._whole_reads.get(zone, 0) + 1
            if ok:
                self._synced_once.add(zone)

    def run(self, zone: str, run: Run) -> RunResult:
        """The zone's run: an event run when it can be exact, else the full run (see the module docstring)."""
        if not run.full:
            result = self._event_run(zone, run)
            if result is not None:
                return result
            run.full = True
        with self._lock:
            full_lock = self._full_locks.setdefault(zone, threading.Lock())
        with full_lock:
            if run.unsynced and self.synced_once(zone):  # the zone's first full run ended meanwhile
                result = self._event_run(zone, run)
                if result is not None:
                    run.full = False
                    return result
            return self._full_run(zone, run)

    def _full_run(self, zone: str, run: Run) -> RunResult:
        """The zone's full run (its full lock held), beside event runs of the zone (the module docstring)."""
        with self._lock:
            pass_read = self.pass_read
        share = pass_read.take(zone) if pass_read is not None else None
        if share is None:
            run.whole = True
            self.dirty.read_whole(zone)
        read = WHOLE if share is None else Read.shared(share)
        self.dirty.begin_full(zone)
        try:
            result = self.controller.sync(zone, read, fingerprints=self.fingerprints, journal=self.incremental,
                                          leave_out=(lambda: self.dirty.since_full(zone)) if self.incremental
                                          else None)
        except BaseException:
            self.dirty.end_full(zone)
            raise
        if result.fingerprints is not None:
            self.dirty.full_synced(zone, result.fingerprints, result.owed if self.incremental else None)
        else:
            self.dirty.end_full(zone)
        with self._lock:
            self._full_due.discard(zone)
        return result

    def _event_run(self, zone: str, run: Run) -> RunResult | None:
        """The zone's dirty names planned, read by name when the source names its changes, else found by
        comparing the whole source with the baseline; None when only a full run can be exact."""
        if not self.dirty.trusted(zone):
            return None
        if self._collect_events() and not self.dirty.compare_due(zone):
            moved = self._moved(zone)
            if moved is None:
                return None
            names = self.dirty.take(zone, moved)  # kept aside for a full run in flight (dirty.py)
            try:
                result = self.controller.sync(zone, Read.of_names(names), fingerprints=True, journal=True)
            except ByNameUnavailable:
                self.dirty.owe(zone, names)  # compared below
            except Exception as exc:
                self._owe_after_failure(zone, names, exc)
                self._read_by_name(names)
                raise
            else:
                self._read_by_name(names)
                self.dirty.names_synced(zone, names, result.fingerprints or {}, result.owed)
                return result
        run.whole = True
        share = in_zone(self.controller.read_source(), zone, self.controller.zone_keys())
        now = name_fingerprints(share)
        moved = self._moved(zone)
        if moved is None:
            return None
        names = self.dirty.take(zone, moved) | self.dirty.changed(zone, now)
        self.dirty.planning(zone, names)
        endpoints = [ep for ep in share if name_key(ep.dns_name) in names]
        try:
            result = self.controller.sync(zone, Read.of_names(names, endpoints), journal=True)
        except Exception as exc:
            self._owe_after_failure(zone, names, exc)
            raise
        self.dirty.compared(zone, now, result.owed)
        return result

    # -- helpers ---------------------------------------------------------------------------------------------
    def _collect_events(self) -> bool:
        """Hand the source's changed names to the dirty-name state; False when the source cannot name them."""
        names = self.controller.source.take_dirty_names()
        zones = self.controller.zone_keys()
        if names is None:
            self.dirty.unnamed(zones)
            return False
        self.dirty.add_events(names, zones)
        return True

    def _moved(self, zone: str) -> set[str] | None:
        """The registry's zone journal since the last look (None: lost track; the zone is forgotten)."""
        try:
            moved = self.controller.registry.zone_changes(zone)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            raise RunOnceError("registry records", exc) from exc
        if moved is None:
            self.dirty.forget(zone)
        return moved

    def _owe_after_failure(self, zone: str, names: set[str], exc: Exception) -> None:
        """A failed event run owes its names and what moved during it (unknown: only a full run is exact)."""
        self.dirty.owe(zone, names)
        owed = exc.owed if isinstance(exc, RunOnceError) else None
        if owed is None:
            self.dirty.forget(zone)
        else:
            self.dirty.owe(zone, owed)

    def _read_by_name(self, names: set[str]) -> None:
        """An event run read `names` by name: the current pass's shared read re-reads them (pass_read.py)."""
        with self._lock:
            pass_read = self.pass_read
        if pass_read is not None:
            pass_read.names_read(names)
