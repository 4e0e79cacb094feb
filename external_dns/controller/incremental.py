"""Event-sized reconciles of one zone: plan only the names whose desired or current records changed.

`IncrementalPlanner(controller).run(zone)` is what an event-triggered reconcile of a zone runs (the periodic
`--interval` pass still runs the full `Controller.run_once(zone)`, the drift repair):

1. the source's endpoints of the zone, each name fingerprinted (types, targets, TTLs, labels, properties);
   dirty = the names whose fingerprint differs from the last successful sync of the zone (new, changed or
   gone names: an event's old and new names);
2. plus the names whose current records changed since then, as the registry's per-zone ownership map saw
   them come in from the provider's snapshot (outside edits, ownership moves, our own writes);
3. plus the names of an earlier run that failed or was refused (their changes are still owed);
4. the plan of only those rows (`Controller.plan_zone` on the dirty names' current and desired records:
   every plan rule works name by name), the pre-apply checks with the zone's whole current records (the
   safety gate's denominator), the write (`Controller.apply_changes`), `Controller.synced`.

Rows not dirty had no change since the last sync that planned them (same desired, same current), so the full
plan has nothing for them either: the incremental plan equals the full plan (property-tested in
tests/controller/test_incremental.py). `run` returns None when it cannot be exact and the caller must run the
full pass: no baseline yet for the zone (a full pass records one, through the source observer and the sync
observer), a registry without per-zone maps, or a zone map rebuilt (first read, failed write, journal gap).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from hashlib import blake2b

import structlog

from external_dns.controller import metrics
from external_dns.controller.controller import Controller, RunOnceError, RunResult, change_lines
from external_dns.controller.pass_read import NameWatch
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.provider import zone_for_name
from external_dns.providers.snapshot import name_key

log = structlog.get_logger(__name__)

Fingerprints = dict[str, bytes]  # name -> digest of its desired endpoints


def group_by_name(endpoints: Iterable[Endpoint]) -> dict[str, list[Endpoint]]:
    out: dict[str, list[Endpoint]] = {}
    for ep in endpoints:
        out.setdefault(name_key(ep.dns_name), []).append(ep)
    return out


def names_of(changes: Changes) -> set[str]:
    return {name_key(e.dns_name) for eps in (changes.create, changes.update_old, changes.update_new,
                                             changes.delete) for e in eps}


def fingerprints(groups: dict[str, list[Endpoint]]) -> Fingerprints:
    """A digest per name of what its endpoints ask for (order-independent)."""
    out: Fingerprints = {}
    for name, eps in groups.items():
        items = sorted((e.dns_name, e.record_type, e.set_identifier, tuple(e.targets), e.record_ttl,
                        tuple(sorted(e.labels.items())), tuple((p.name, p.value) for p in e.provider_specific))
                       for e in eps)
        out[name] = blake2b(repr(items).encode(), digest_size=12).digest()
    return out


class IncrementalPlanner:
    """Dirty-name reconciles of zones over one `Controller` (see the module docstring)."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._lock = threading.Lock()
        self._baseline: dict[str, Fingerprints] = {}  # zone -> desired fingerprints of its last successful sync
        self._observed: dict[str, Fingerprints] = {}  # zone -> fingerprints of a full read not yet synced
        self._owed: dict[str, set[str]] = {}  # zone -> names of failed or refused runs
        self._written: dict[str, set[str]] = {}  # zone -> names the full pass in progress plans to write
        # zone -> names the source reported changed by events (Source.take_dirty_names), not planned yet
        self._events: dict[str, set[str]] = {}
        # zones whose next run must compare fingerprints: the source could not name its changes at some point
        self._compare_due: set[str] = set()
        self._watches: list[NameWatch] = []  # shared periodic reads recording the names read by name
        self._local = threading.local()
        self.runs = 0
        self.planned_names = 0  # rows planned by incremental runs (for benches and tests)
        controller.source_observers.append(self._observe_full_read)
        controller.plan_observers.append(self._observe_plan)
        controller.sync_observers.append(self._observe_sync)

    # -- the full pass records the baseline ------------------------------------------------------------------
    def _observe_full_read(self, zone: str | None, endpoints: list[Endpoint]) -> None:
        if zone is None:
            return
        take = getattr(self.controller.registry, "zone_changes", None)
        if take is not None:
            take(zone)  # the full pass read the current records just before: changes so far are covered
        groups = self._zone_groups(zone, endpoints)
        with self._lock:
            self._observed[zone] = fingerprints(groups)

    def _observe_plan(self, zone: str | None, changes: Changes, _current: Sequence[Endpoint],
                      _desired: Sequence[Endpoint]) -> None:
        if zone is None or getattr(self._local, "incremental", False):
            return
        with self._lock:
            if zone not in self._observed:
                return
        owed = self._take_moved(zone)  # outside edits between the full pass's read and its plan
        with self._lock:
            if owed is None:
                self._observed.pop(zone, None)
                return
            self._owed[zone] = owed
            self._written[zone] = names_of(changes)

    def _observe_sync(self, zone: str | None, _synced: Callable[[str], bool]) -> None:
        if zone is None or getattr(self._local, "incremental", False):
            return
        with self._lock:
            observed = self._observed.pop(zone, None)
            written = self._written.pop(zone, set())
        if observed is None:
            return
        after = self._take_moved(zone)
        with self._lock:
            if after is None:
                self._baseline.pop(zone, None)
                return
            self._baseline[zone] = observed
            # our own write comes back through the snapshot at the names written: as planned, nothing owed
            self._owed[zone] = self._owed.get(zone, set()) | (after - written)

    def _take_moved(self, zone: str) -> set[str] | None:
        take = getattr(self.controller.registry, "zone_changes", None)
        return None if take is None else take(zone)

    def watch(self) -> NameWatch:
        """Record, from now until `stop()`, the names event runs read by name (controller/pass_read.py)."""
        watch = NameWatch(self._unwatch)
        with self._lock:
            self._watches.append(watch)
        return watch

    def _unwatch(self, watch: NameWatch) -> None:
        with self._lock:
            if watch in self._watches:
                self._watches.remove(watch)

    def read_whole_source(self) -> bool:
        """True when this thread's last `run` read the whole source (it compared fingerprints)."""
        return bool(getattr(self._local, "whole", False))

    def forget(self, zone: str) -> None:
        """Drop the zone's baseline: its next run returns None (a full pass is needed)."""
        with self._lock:
            self._baseline.pop(zone, None)
            self._observed.pop(zone, None)
            self._owed.pop(zone, None)

    def zones_with_events(self, zones: list[str]) -> list[str] | None:
        """The zones holding names the source reported changed since their last run (None: the source cannot
        tell; the caller compares the zones' desired endpoints instead)."""
        with self._lock:
            started = bool(self._baseline or self._observed)
        if not started:  # no zone has synced yet: every zone runs in full anyway, the source keeps its names
            return []
        if not self._collect_events():
            return None
        with self._lock:
            if any(z in self._compare_due for z in zones):
                return None
            return [z for z in zones if self._events.get(z)]

    def _collect_events(self) -> bool:
        """Move the source's changed names into the per-zone sets; False when it cannot name them."""
        take = getattr(self.controller.source, "take_dirty_names", None)
        names = take() if take is not None else None
        zones = self.controller.zone_keys()
        if names is None:
            with self._lock:  # their next runs compare fingerprints: that covers these (zones not synced yet
                # run in full, and read the source after this)
                self._compare_due.update(z for z in zones if z in self._baseline or z in self._observed)
            return False
        with self._lock:
            for name in names:
                zone = zone_for_name(name, zones)
                if zone is not None:
                    self._events.setdefault(zone, set()).add(name)
        return True

    def _run_by_events(self, zone: str, moved: set[str], started: float) -> RunResult | None:
        """The run when the source names its changed names: only those names' endpoints are computed."""
        ctl = self.controller
        with self._lock:
            dirty = self._events.pop(zone, set()) | moved | self._owed.pop(zone, set())
        found = ctl.source.endpoints_for_names(dirty)
        if found is None:
            self._owe(zone, dirty)
            return None
        with self._lock:  # after the read: a shared read that began before it re-reads these names
            for watch in self._watches:
                watch.add(dirty)
        groups = self._zone_groups(zone, found)
        try:
            result = self._plan_and_apply(zone, dirty, groups, started)
        except Exception:
            self._owe(zone, dirty)
            raise
        now = fingerprints(groups)
        with self._lock:
            baseline = self._baseline.get(zone)
            if baseline is not None:
                for name in dirty:
                    if name in now:
                        baseline[name] = now[name]
                    else:
                        baseline.pop(name, None)
        return result

    def _registry_changes(self, zone: str) -> set[str] | None:
        """The names whose current records moved since the last take (`Registry.zone_changes`); None (and
        the zone's baseline dropped) when the whole zone may have changed."""
        try:
            moved = self._take_moved(zone)
        except Exception as exc:
            metrics.REGISTRY_ERRORS.inc()
            raise RunOnceError("registry records", exc) from exc
        if moved is None:
            self.forget(zone)
        return moved

    def _zone_groups(self, zone: str, endpoints: Iterable[Endpoint]) -> dict[str, list[Endpoint]]:
        zones = self.controller.zone_keys()
        if len(zones) == 1 and zones[0] == zone:
            return group_by_name(ep for ep in endpoints if zone_for_name(ep.dns_name, zones) is not None)
        return group_by_name(ep for ep in endpoints if zone_for_name(ep.dns_name, zones) == zone)

    # -- one incremental reconcile ---------------------------------------------------------------------------
    def run(self, zone: str) -> RunResult | None:
        """Reconcile the zone's dirty names; None when only a full pass can be exact (see the docstring).
        Raises RunOnceError like `Controller.run_once`."""
        ctl = self.controller
        self._local.whole = False
        with self._lock:
            baseline = self._baseline.get(zone)
        if getattr(ctl.registry, "zone_changes", None) is None or baseline is None:
            return None
        started = time.monotonic()
        metrics.LAST_RECONCILE_TIMESTAMP.set(time.time())
        named = self._collect_events()
        with self._lock:
            named = named and zone not in self._compare_due
        if named:
            moved = self._registry_changes(zone)
            if moved is None:
                return None
            result = self._run_by_events(zone, moved, started)
            if result is not None:
                return result
        self._local.whole = True
        raw = ctl.read_source()
        for observe in ctl.source_observers:  # the others (the zone controller's per-zone fingerprint)
            if observe != self._observe_full_read:
                try:
                    observe(zone, raw)
                except Exception:  # an observer must never break a sync
                    log.exception("source observer failed", zone=zone)
        groups = self._zone_groups(zone, raw)
        now = fingerprints(groups)
        moved = self._registry_changes(zone)
        if moved is None:
            return None
        with self._lock:
            self._events.pop(zone, None)  # taken before the read above: the comparison covers them
            dirty = {n for n, fp in now.items() if baseline.get(n) != fp}
            dirty.update(n for n in baseline if n not in now)
            dirty |= moved | self._owed.get(zone, set())
        with self._lock:
            self._owed.pop(zone, None)  # planned now; what is owed after this run is added back below
        try:
            result = self._plan_and_apply(zone, dirty, groups, started)
        except Exception:
            self._owe(zone, dirty)
            raise
        with self._lock:
            if zone in self._baseline:
                self._baseline[zone] = now
            self._compare_due.discard(zone)
        return result

    def _plan_and_apply(self, zone: str, dirty: set[str], groups: dict[str, list[Endpoint]],
                        started: float) -> RunResult:
        ctl = self.controller
        self.runs += 1
        self.planned_names += len(dirty)
        try:
            desired = ctl.registry.adjust_endpoints([ep for n in dirty for ep in groups.get(n, ())])
        except Exception as exc:
            self._owe(zone, dirty)
            raise RunOnceError("adjusting endpoints", exc) from exc
        try:
            current = ctl.registry.zone_records(zone, dirty)
        except Exception as exc:
            self._owe(zone, dirty)
            metrics.REGISTRY_ERRORS.inc()
            raise RunOnceError("registry records", exc) from exc
        self._local.incremental = True
        try:
            changes = ctl.plan_zone(zone, current, desired)
        finally:
            self._local.incremental = False
        between = self._take_moved(zone)  # outside edits between the read and the plan: planned next time
        if between is None:
            self.forget(zone)
        else:
            self._owe(zone, between)
        result = RunResult(changes=changes, applied=False, dry_run=ctl.dry_run, current_count=len(current),
                           desired_count=len(desired), zone=zone)
        zlog = log.bind(zone=zone)
        if changes.has_changes():
            result.change_lines = change_lines(changes)
            for line in result.change_lines:
                zlog.info(f"Desired change: {line}")
            zlog.info(f"Plan: {result.summary()}")
            if ctl.dry_run:
                zlog.info("Dry run: no changes were applied")
            else:
                try:
                    view = getattr(ctl.registry, "zone_view", None)
                    whole = view(zone) if view is not None else ctl.registry.zone_records(zone)
                    ctl.check(zone, changes, whole, desired)
                    ctl.apply_changes(changes)
                except Exception:
                    self._owe(zone, dirty)
                    raise
                after = self._take_moved(zone)
                if after is None:
                    self.forget(zone)
                else:  # our own write, back through the snapshot at the names written: nothing owed there
                    self._owe(zone, after - names_of(changes))
                result.applied = True
                zlog.info(f"{result.created + result.updated + result.deleted} record(s) were successfully updated")
        else:
            metrics.NO_OP_RUNS.inc()
            zlog.debug("All records are already up to date", names=len(dirty))
        self._local.incremental = True
        try:
            ctl.synced(zone, ctl.zone_keys())
        finally:
            self._local.incremental = False
        result.duration_seconds = time.monotonic() - started
        return result

    def _owe(self, zone: str, names: set[str]) -> None:
        with self._lock:
            self._owed.setdefault(zone, set()).update(names)
