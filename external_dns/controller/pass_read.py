"""One source read per periodic pass, shared by the pass's zones: `PassRead`.

A periodic `--interval` pass reconciles every zone in full (drift repair). Reading the whole source once per
zone costs zones x source; a `PassRead` reads it once (on the first zone's run), splits it by closest zone,
and hands each zone its share (`take`), once. A share may be older than the zone's run, so a zone takes it
only while that stays exact:

* the names event runs read by name once the read began (`names_read`, told by the zone controller after each
  by-name read) are read again by name (`Source.endpoints_for_names`) and replace their rows in the share:
  rows are planned name by name, so for every name such a run may have written something newer than the
  share, the share is then as new as a read made now;
* a zone that had a run reading the whole source after the read began (an event run comparing fingerprints,
  a full run that read by itself; counted by the zone controller when the run ends) reads by itself (`take`
  returns None): that run may have written something newer than the share for any name;
* so does a zone whose names the source cannot re-read by name, and every zone once the read failed (each
  run then reports the failure itself).

Changes the share misses are still reported by the source: the event run that follows plans them, as it
would after a full pass that read the source itself a moment earlier.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import structlog

from external_dns.controller.controller import Controller, split_by_zone
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.provider import zone_for_name
from external_dns.providers.snapshot import name_key

log = structlog.get_logger(__name__)


class PassRead:
    """The shared source read of one periodic pass over `zones` (see the module docstring). `runs` is the
    zone controller's count of whole-source reads per zone (full runs reading by themselves, comparing event
    runs), incremented when such a run ends."""

    def __init__(self, controller: Controller, zones: Sequence[str], runs: dict[str, int]) -> None:
        self.controller = controller
        self.zones = tuple(zones)
        self._closed = False
        self._runs = runs
        self._lock = threading.Lock()
        self._read = False
        self._failed = False
        self._shares: dict[str, list[Endpoint]] = {}
        self._taken: set[str] = set()
        self._runs_at: dict[str, int] = {}
        # the names event runs read by name since the read began (None: not begun, or closed); a lock of its
        # own: an event run tells them while the read itself holds `_lock`
        self._names_lock = threading.Lock()
        self._names: set[str] | None = None
        self.reads = 0  # whole-source reads made (0 or 1)
        self.overlaid = 0  # names re-read by name in shares (for benches and tests)

    def names_read(self, names: Iterable[str]) -> None:
        """An event run read `names` by name (and may write them): once the read began, their shares are read
        again by name."""
        with self._names_lock:
            if self._names is not None:
                self._names.update(names)

    def pending(self, zone: str) -> bool:
        """True while `zone`'s share has not been asked for."""
        with self._lock:
            return not self._closed and zone in self.zones and zone not in self._taken

    def take(self, zone: str) -> list[Endpoint] | None:
        """`zone`'s share of the pass's read, made now if it is the first (once per zone); None when the zone
        must read the source itself (see the module docstring)."""
        with self._lock:
            if self._closed or zone not in self.zones or zone in self._taken:
                return None
            self._taken.add(zone)
            if not self._read:
                self._read_all()
            if self._failed or zone not in self._shares:
                return None
            share = self._shares.pop(zone)
            whole_since = self._runs.get(zone, 0) != self._runs_at.get(zone, 0)
        try:
            return None if whole_since else self._refresh(zone, share)
        finally:
            with self._lock:
                done = all(z in self._taken for z in self.zones)
            if done:  # every zone asked for its share: nothing more to record
                self.close()

    def _read_all(self) -> None:
        """The read (call with the lock held). Recording names and the run counts start first: a run whose
        read ends after they started is seen, one whose read ended before read older data than this read."""
        self._read = True
        self._runs_at = dict(self._runs)
        with self._names_lock:
            self._names = set()
        try:
            endpoints = self.controller.read_source()
        except Exception as exc:  # each zone's run reads the source itself and reports the failure
            log.debug("cannot read the source for the periodic pass", error=str(exc))
            self._failed = True
            return
        self.reads += 1
        groups = split_by_zone(endpoints, self.zones)
        self._shares = {zone: groups.get(zone, []) for zone in self.zones}

    def _refresh(self, zone: str, share: list[Endpoint]) -> list[Endpoint] | None:
        """`share` with the rows of the names event runs read by name since the read, read again by name."""
        with self._names_lock:
            names = {n for n in self._names or () if zone_for_name(n, self.zones) == zone}
        if not names:
            return share
        fresh = self.controller.source.endpoints_for_names(names)
        if fresh is None:
            return None
        with self._lock:
            self.overlaid += len(names)
        kept = [ep for ep in share if name_key(ep.dns_name) not in names]
        return kept + [ep for ep in fresh if zone_for_name(ep.dns_name, self.zones) == zone]

    def close(self) -> None:
        """Stop recording names and drop the shares not taken (their zones read by themselves)."""
        with self._lock:
            self._shares.clear()
            self._closed = True
        with self._names_lock:
            self._names = None
