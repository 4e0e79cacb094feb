"""What an event run of a zone must plan: the fingerprints of desired endpoints and `DirtyNames`, the
per-zone state the zone controller keeps between runs (plain state behind a lock: no observers, nothing it
reads by itself; controller/zone_runs.py feeds it the results of its runs).

A zone's dirty names are the names whose rows an event run plans (controller/zone_runs.py):

1. the names the source reported changed (`Source.take_dirty_names`: an event's old and new names), or,
   when the source cannot name them, the names whose fingerprint differs from the baseline (new, changed or
   gone names);
2. the names whose current records moved at the provider since the last run, as the registry's zone journal
   saw them (`Registry.zone_changes`: outside edits, ownership moves, our own writes);
3. the names owed by runs that failed or were refused, and names that moved during a run after its read.

A zone's full run may be in flight while event runs plan its names (controller/zone_runs.py): from
`begin_full` to its end every name an event run takes, plans or owes is kept aside (`since_full`). The full
run leaves those names out of its write (its read is older than theirs) and they stay owed after it, so the
next event run plans them again over the full run's older baseline.

Rows not dirty had no change since the run that planned them (same desired, same current), so the full plan
has nothing for them either: planning only the dirty names gives the full plan (property-tested in
tests/controller/test_incremental.py). The baseline of a zone is the fingerprint of each name's desired
endpoints as of the last run that read them (event passes also compare it to skip unchanged zones); it is
trusted for an event run only while the registry's zone journal was followed since (no full run yet, a
registry without a journal or one that lost track of the zone: only a full run is exact).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.fingerprint import fingerprint
from external_dns.providers.provider import zone_for_name
from external_dns.providers.snapshot import name_key

Fingerprints = dict[str, bytes]  # name key -> `fingerprint` (plan/fingerprint.py) of its desired endpoints


def group_by_name(endpoints: Iterable[Endpoint]) -> dict[str, list[Endpoint]]:
    out: dict[str, list[Endpoint]] = {}
    for ep in endpoints:
        out.setdefault(name_key(ep.dns_name), []).append(ep)
    return out


def name_fingerprints(endpoints: Iterable[Endpoint]) -> Fingerprints:
    """`fingerprint` of each name's endpoints."""
    return {name: fingerprint(eps) for name, eps in group_by_name(endpoints).items()}


def in_zone(endpoints: Iterable[Endpoint], zone: str, zones: Sequence[str]) -> list[Endpoint]:
    """The endpoints whose closest zone of `zones` is `zone`."""
    return [ep for ep in endpoints if zone_for_name(ep.dns_name, zones) == zone]


def names_of(changes: Changes) -> set[str]:
    """The names (keys) `changes` write."""
    return {name_key(e.dns_name) for eps in (changes.create, changes.update_old, changes.update_new,
                                             changes.delete) for e in eps}


def without_names(changes: Changes, names: Collection[str]) -> Changes:
    """`changes` without the rows of `names` (keys); an update pair goes when either side is at one."""
    if not names:
        return changes

    def keep(eps: list[Endpoint]) -> list[Endpoint]:
        return [e for e in eps if name_key(e.dns_name) not in names]

    pairs = [(o, n) for o, n in zip(changes.update_old, changes.update_new, strict=True)
             if name_key(o.dns_name) not in names and name_key(n.dns_name) not in names]
    return Changes(create=keep(changes.create), update_old=[o for o, _ in pairs], update_new=[n for _, n in pairs],
                   delete=keep(changes.delete))


def _keep_equal(old: Fingerprints | None, now: Fingerprints) -> Fingerprints:
    """`now`, holding `old`'s digest objects where they are equal: a pass's new digests are freed with the pass
    instead of living on scattered among its freed objects (which keeps the allocator from giving them back)."""
    if not old:
        return now
    return {name: kept if (kept := old.get(name)) == fp else fp for name, fp in now.items()}


class DirtyNames:
    """Per zone: the baseline, the names the source reported changed, the names owed, and whether the next run
    must compare the source's fingerprints (see the module docstring). A baseline is kept after every
    successful run that read the zone's desired endpoints (event passes compare it to skip unchanged zones);
    it is `trusted` for event runs only while the registry's zone journal was followed since. Thread-safe; one
    run per zone at a time (the workqueue's rule) changes a zone's entries."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._baseline: dict[str, Fingerprints] = {}
        self._trusted: set[str] = set()  # zones whose journal was followed since their baseline
        self._events: dict[str, set[str]] = {}  # names the source reported changed, not planned yet
        self._owed: dict[str, set[str]] = {}  # names of failed or refused runs, and names moved during a run
        # zones whose next run must compare fingerprints: the source could not name its changes at some point
        self._compare_due: set[str] = set()
        # zones with a full run in flight -> the names event runs took, planned or owed meanwhile
        self._since_full: dict[str, set[str]] = {}
        self._lost_in_full: set[str] = set()  # zones untrusted while their full run was in flight

    # -- reading ---------------------------------------------------------------------------------------------
    def baseline(self, zone: str) -> Fingerprints | None:
        """The zone's baseline (read-only for the caller); None before its first successful run."""
        with self._lock:
            return self._baseline.get(zone)

    def trusted(self, zone: str) -> bool:
        """True when an event run can plan the zone's dirty names (else only a full run is exact)."""
        with self._lock:
            return zone in self._trusted

    def started(self) -> bool:
        """True once any zone has a baseline."""
        with self._lock:
            return bool(self._baseline)

    def compare_due(self, zone: str) -> bool:
        with self._lock:
            return zone in self._compare_due

    def zones_with_events(self, zones: Iterable[str]) -> list[str] | None:
        """The zones of `zones` holding names the source reported changed; None when one of them must compare
        fingerprints (the source could not name its changes)."""
        zones = list(zones)
        with self._lock:
            if any(z in self._compare_due for z in zones):
                return None
            return [z for z in zones if self._events.get(z)]

    def changed(self, zone: str, now: Mapping[str, bytes]) -> set[str]:
        """The names whose fingerprint in `now` differs from the baseline's (new, changed and gone names)."""
        with self._lock:
            baseline = self._baseline.get(zone, {})
            dirty = {n for n, fp in now.items() if baseline.get(n) != fp}
            dirty.update(n for n in baseline if n not in now)
            return dirty

    # -- what the source and the runs report -----------------------------------------------------------------
    def add_events(self, names: Iterable[str], zones: Sequence[str]) -> None:
        """The source reported `names` changed (each kept under its closest zone of `zones`)."""
        with self._lock:
            for name in names:
                zone = zone_for_name(name, zones)
                if zone is not None:
                    self._events.setdefault(zone, set()).add(name)

    def unnamed(self, zones: Iterable[str]) -> None:
        """The source could not name its changes: the next run of each trusted zone compares fingerprints (that
        covers these changes; the other zones run in full anyway)."""
        with self._lock:
            self._compare_due.update(z for z in zones if z in self._trusted)

    def take(self, zone: str, moved: Collection[str]) -> set[str]:
        """The zone's dirty names for an event run: the source's changed names, `moved`, the owed names;
        emptied (a run that fails gives them back with `owe`)."""
        with self._lock:
            names = self._events.pop(zone, set()) | set(moved) | self._owed.pop(zone, set())
            self._aside(zone, names)
            return names

    def planning(self, zone: str, names: Iterable[str]) -> None:
        """An event run is about to plan `names` (kept aside while the zone's full run is in flight)."""
        with self._lock:
            self._aside(zone, names)

    def begin_full(self, zone: str) -> None:
        """The zone's full run begins (before its read): event runs' names are kept aside until it ends."""
        with self._lock:
            self._since_full[zone] = set()
            self._lost_in_full.discard(zone)

    def since_full(self, zone: str) -> set[str]:
        """The names event runs took, planned or owed since the zone's full run began (a copy)."""
        with self._lock:
            return set(self._since_full.get(zone, ()))

    def end_full(self, zone: str) -> None:
        """The zone's full run failed: what event runs did meanwhile is in their own state already."""
        with self._lock:
            self._since_full.pop(zone, None)
            self._lost_in_full.discard(zone)

    def _aside(self, zone: str, names: Iterable[str]) -> None:
        aside = self._since_full.get(zone)
        if aside is not None:
            aside.update(names)

    def read_whole(self, zone: str) -> None:
        """A full run is about to read the whole source: the changed names reported so far are covered."""
        with self._lock:
            self._events.pop(zone, None)

    def owe(self, zone: str, names: Iterable[str]) -> None:
        """`names` must be planned by the zone's next run."""
        with self._lock:
            names = set(names)
            self._owed.setdefault(zone, set()).update(names)
            self._aside(zone, names)

    def full_synced(self, zone: str, now: Fingerprints, owed: Collection[str] | None) -> None:
        """A full run read `now` and succeeded; `owed`: names moved at the provider after its read (None: the
        registry lost track of the zone, or has no journal). Names event runs handled meanwhile stay owed."""
        with self._lock:
            self._baseline[zone] = _keep_equal(self._baseline.get(zone), now)
            aside = self._since_full.pop(zone, set())
            lost = zone in self._lost_in_full
            self._lost_in_full.discard(zone)
            if owed is None or lost:
                self._untrust(zone)
                return
            self._trusted.add(zone)
            self._owed[zone] = set(owed) | aside  # the full plan covered every name owed before its read

    def names_synced(self, zone: str, planned: Collection[str], now: Mapping[str, bytes],
                     owed: Collection[str] | None) -> None:
        """An event run planned `planned` (their fingerprints now: `now`; a name missing there has no
        endpoints) and succeeded; `owed` as for `full_synced`."""
        with self._lock:
            baseline = self._baseline.get(zone)
            if baseline is not None:
                for name in planned:
                    fp = now.get(name)
                    if fp is None:
                        baseline.pop(name, None)
                    else:
                        baseline[name] = fp
            self._owe_or_untrust(zone, owed)

    def compared(self, zone: str, now: Fingerprints, owed: Collection[str] | None) -> None:
        """An event run compared the whole source (`now`) with the baseline and succeeded."""
        with self._lock:
            self._compare_due.discard(zone)
            self._baseline[zone] = _keep_equal(self._baseline.get(zone), now)
            self._owe_or_untrust(zone, owed)

    def forget(self, zone: str) -> None:
        """The registry lost track of the zone: only a full run is exact now."""
        with self._lock:
            self._untrust(zone)

    def keep_only(self, zones: Collection[str]) -> None:
        """Forget the zones not in `zones` (they went away)."""
        with self._lock:
            for table in (self._baseline, self._events, self._owed):
                for gone in [z for z in table if z not in zones]:
                    del table[gone]
            self._trusted.intersection_update(zones)
            self._compare_due.intersection_update(zones)

    def _owe_or_untrust(self, zone: str, owed: Collection[str] | None) -> None:
        if owed is None:
            self._untrust(zone)
        elif owed:
            self._owed.setdefault(zone, set()).update(owed)
            self._aside(zone, owed)

    def _untrust(self, zone: str) -> None:
        self._trusted.discard(zone)
        self._owed.pop(zone, None)
        if zone in self._since_full:
            self._lost_in_full.add(zone)
