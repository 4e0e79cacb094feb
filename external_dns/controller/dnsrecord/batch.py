"""The provider pass of a batch of DNSRecords (the keys a worker took at once), zone by zone: `Batcher`.

Each record is planned on its own, as a pass of its own would plan it, through the pipeline's steps
(controller/pipeline.py): the plan within the record's `Scope` (sync, its rootHost, dns-operator's record
types, its owner ID), the pre-apply checks (the safety gate judging the record's own records, `Judged`; the
leader-election fence), and one write per round for the records of a zone that do not overlap (a zone file
is rewritten whole per write, so a write per record made N records cost N zone rewrites). The rules that keep
each record's outcome what its own pass would give sit in `_round` and `settle`: overlapping records are
written one after the other, a refused write is split until the refused record stands alone, and each
record's outcome is its own part of the batch's. The workers' batches of one zone plan and write one after
the other (a lock per zone). How each record's pass ends is decided here (`Ending`) and carried out by the
lifecycle (reconcile.py: its status write) after the zone's lock is released, in the order decided.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import structlog

from external_dns.controller.dnsrecord.registry import (
    MANAGED_RECORD_TYPES,
    Collecting,
    SubtreeIndex,
    SubtreeView,
    record_registry,
    subtree_registry,
)
from external_dns.controller.dnsrecord.status import Obj
from external_dns.controller.dnsrecord.types import DNSRecordSpec
from external_dns.controller.outcomes import is_fatal_error
from external_dns.controller.pipeline import Pipeline, Scope, cause_of
from external_dns.controller.safety_gate import Judged
from external_dns.endpoint.domain_filter import DomainFilter, MatchAllDomainFilters
from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, Endpoint
from external_dns.endpoint.zones import name_key
from external_dns.plan import get_policy
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, SoftError, zone_for_name
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)

SYNC = (get_policy("sync"),)  # a DNSRecord's records are exactly its endpoints


class Outcome(Enum):
    """How a record's provider pass ended."""

    APPLIED = "applied"  # its changes were written
    UNCHANGED = "unchanged"  # the provider already holds what it asks for
    GAVE_UP = "gave-up"  # changes, and this generation's writes are used up
    FAILED = "failed"  # the plan, a check or the write failed (`Ending.error`)


@dataclass(frozen=True)
class Ending:
    """How a record's pass ends: decided under the zone's lock, carried out (the status write) after it, in
    the `order` decided (as single passes would have run one after the other)."""

    order: int
    outcome: Outcome
    error: BaseException | None = None


@dataclass
class Job:
    """One record's provider pass inside a batch: planned (again after a deferral or a split), then ended
    from its own part of the outcome (`ending`, carried out by the lifecycle)."""

    key: str
    obj: Obj
    start: float
    deleting: bool
    owner: str
    root: str
    spec: DNSRecordSpec | None = None
    same_gen: bool = False
    ready: Mapping[str, Any] = field(default_factory=dict)
    counter: int = 0  # status.writeCounter (live records: of this generation, else 0)
    zone: str = ""
    changes: Changes | None = None  # the last plan's changes; None: nothing to write
    collected: Changes | None = None  # what the write sends: `changes` with their ownership TXTs
    read_names: set[str] | None = None  # names the plan read besides those under `root`; None: everything
    limit_reached: bool = False  # the plan has changes, and this generation's writes are used up
    ending: Ending | None = None

    @property
    def write_counter(self) -> int:
        """The counter once this generation's write is sent (a new generation starts again from 0)."""
        return self.counter + 1 if self.same_gen and not self.deleting else self.counter

    def balanced(self) -> bool:
        return self.collected is None or len(self.collected.update_old) == len(self.collected.update_new)


class _Footprints:
    """Where records may read and write: each one's rootHost (the names at or below it) and the other names it
    read; `hits` tells whether another record's rootHost and names meet any of them."""

    def __init__(self) -> None:
        self.roots: set[str] = set()
        self.names: set[str] = set()
        self.above: set[str] = set()  # each root and name with all its parent names

    def add(self, root: str, names: set[str]) -> None:
        self.roots.add(root)
        self.names |= names
        self.above.update(_suffixes({root, *names}))

    def hits(self, root: str, names: set[str]) -> bool:
        if root in self.above or not self.roots.isdisjoint(_suffixes({root})):
            return True  # one root at or below the other, or a name read at or below `root`
        return not self.names.isdisjoint(names) or not self.roots.isdisjoint(_suffixes(names))


def _suffixes(names: set[str]) -> set[str]:
    """Each name and every parent name of it (`a.b.c`: `a.b.c`, `b.c`, `c`)."""
    out: set[str] = set()
    for name in names:
        labels = name.split(".")
        out.update(".".join(labels[i:]) for i in range(len(labels)))
    return out


class Batcher:
    """Plans and writes batches of records against one provider (see the module docstring)."""

    def __init__(self, provider: Provider, pipeline: Pipeline, write_counter_limit: int,
                 registry_factory: Callable[[Provider, str], Registry] = record_registry) -> None:
        self.provider = provider
        self.pipeline = pipeline
        self.write_counter_limit = write_counter_limit
        self.registry_factory = registry_factory
        self._lock = threading.Lock()
        self._indexes: dict[str, SubtreeIndex] = {}  # zone -> names under a rootHost, shared by the workers
        # zone -> held from a batch's first read of the zone to its last write: the workers' batches of one zone
        # plan and write one after the other, as single passes of one worker (two batches planned against the
        # same read could both create a name two owners claim; on RFC2136 both targets were added).
        self._zone_locks: dict[str, threading.Lock] = {}
        self._endings = itertools.count()

    def end(self, job: Job, outcome: Outcome, error: BaseException | None = None) -> None:
        """The record's pass ends with `outcome` (carried out by the lifecycle, in this order)."""
        job.ending = Ending(next(self._endings), outcome, None if error is None else cause_of(error))

    def write_zone(self, jobs: list[Job]) -> None:
        """Plan and write the records of one zone (`jobs[0].zone`), under the zone's lock; every job ends."""
        with self._lock:
            lock = self._zone_locks.setdefault(jobs[0].zone, threading.Lock())
        with lock:
            self.settle(jobs)

    @staticmethod
    def zone_of(root_host: str, zones: list[str]) -> str:
        """The zone of `zones` holding `root_host` ("" when the provider lists no zones); LookupError if none."""
        if not zones:
            return ""
        zone = zone_for_name(root_host, zones)
        if zone is None:
            raise LookupError(f"Unable to find suitable zone in provider: no zone of the provider holds rootHost "
                              f"{root_host} (zones: {', '.join(sorted(zones))})")
        return zone

    # -- rounds ------------------------------------------------------------------------------------------------
    def settle(self, jobs: list[Job], soft: Exception | None = None) -> None:
        """Write the records of one zone: rounds of one provider write each (`_round`). A refused write of
        several records is split in halves, each planned again and written on its own, until the refused
        record stands alone and fails alone (changes a provider applied before refusing show up as done in
        the new plan). A `SoftError` (a provider down or busy, a lock held) is not split: the records are
        planned again, and when none of them moved, all fail with it (no 2n-1 attempts on a dead provider).
        """
        while jobs:
            accepted, later = self._round(jobs)
            if soft is not None:
                if len(accepted) + len(later) == len(jobs) and all(j.changes is not None for j in later):
                    for job in [*accepted, *later]:
                        self.end(job, Outcome.FAILED, soft)
                    return
                soft = None
            if accepted:
                self._write(accepted)
            jobs = later

    def _round(self, jobs: list[Job]) -> tuple[list[Job], list[Job]]:
        """Plan `jobs` in order against one read of the zone; end those that end without a write (no
        changes, the write limit, a failed plan or check). Returns (the records written together now, the
        records deferred to after that write). Each record must end as it would in single passes in this
        order, so a record is deferred, whatever its plan said, when it read a name an earlier record of the
        write changes (it must see that write), when its reads or writes touch what an earlier deferred record
        may read or write (the order between them must hold), when either reads the whole provider (a custom
        registry), or when its updates are not in old/new pairs (the write must keep every record's pairs
        aligned)."""
        accepted: list[Job] = []
        later: list[Job] = []
        written: set[str] = set()
        above: set[str] = set()  # every written name and each of its parent names
        waiting = _Footprints()  # what the deferred records may read and write
        exclusive = False
        try:
            snapshot = self._snapshot(jobs[0].zone) if jobs else None
            domains = self.provider.get_domain_filter() if snapshot is not None else None
        except Exception as exc:  # the zone cannot be read: every record would have failed on it
            for job in jobs:
                self.end(job, Outcome.FAILED, exc)
            return [], []
        for job in jobs:
            error: Exception | None = None
            try:
                self._plan(job, snapshot, domains)
            except Exception as exc:  # provider, registry, another owner's record, a check refusing it
                error = exc
            mine = {name_key(ep.dns_name) for ep in job.collected.all_endpoints()} if job.collected else set()
            touched = mine | (job.read_names or set())
            if later and (job.read_names is None or waiting.hits(job.root, touched)):
                waiting.add(job.root, touched)
                later.append(job)
                continue
            if accepted and (exclusive or job.read_names is None or not job.balanced() or job.root in above
                             or not written.isdisjoint(touched)):
                waiting.add(job.root, touched)
                later.append(job)
                continue
            if error is not None:
                self.end(job, Outcome.FAILED, error)
            elif job.limit_reached:
                self.end(job, Outcome.GAVE_UP)
            elif job.changes is None:
                self.end(job, Outcome.UNCHANGED)
            else:
                accepted.append(job)
                exclusive = exclusive or job.read_names is None or not job.balanced()
                written |= mine
                above.update(_suffixes(mine))
        return accepted, later

    def _write(self, jobs: list[Job]) -> None:
        """One provider write for `jobs` through the pipeline's write step (each record's events come with its
        own outcome); a refused write is split or planned again (see `settle`)."""
        merged = Changes()
        for job in jobs:
            assert job.collected is not None
            merged.create.extend(job.collected.create)
            merged.update_old.extend(job.collected.update_old)
            merged.update_new.extend(job.collected.update_new)
            merged.delete.extend(job.collected.delete)
        try:
            if not merged.is_empty():
                self.pipeline.write(merged, self.provider.apply_changes, events=False)
        except Exception as failure:
            exc = cause_of(failure)
            if len(jobs) == 1 or is_fatal_error(exc):  # a refused credential refuses every half as well
                for job in jobs:
                    self.end(job, Outcome.FAILED, exc)
            elif isinstance(exc, SoftError):
                log.info("DNSRecord batch write failed, planning its records again", records=len(jobs),
                         error=str(exc))
                self.settle(jobs, soft=exc)
            else:
                log.info("DNSRecord batch write refused, writing it in halves", records=len(jobs), error=str(exc))
                mid = len(jobs) // 2
                self.settle(jobs[:mid])
                self.settle(jobs[mid:])
            return
        if len(jobs) > 1:
            log.debug("DNSRecord batch written", records=len(jobs), zone=jobs[0].zone)
        for job in jobs:
            self.end(job, Outcome.APPLIED)

    # -- one record's plan ----------------------------------------------------------------------------------------
    def _plan(self, job: Job, snapshot: ZoneSnapshot | None, domains: DomainFilter | None = None) -> None:
        """Plan one record against `snapshot` (the zone as the round read it; None: read it now) through the
        pipeline's plan and check steps; its writes (with their ownership TXTs) are kept in `job.collected`,
        not sent; `job.limit_reached` when they would pass the write limit."""
        job.changes = job.collected = None
        job.limit_reached = False
        desired_names = [ep.dns_name for ep in job.spec.endpoints] if job.spec is not None else []
        registry, sink = self._registry(job.owner, job.root, job.zone, desired_names, snapshot, domains)
        job.read_names = sink.read_names if isinstance(sink, SubtreeView) else None  # filled by the read
        desired = registry.adjust_endpoints([ep.copy() for ep in job.spec.endpoints]) if job.spec is not None else []
        current = registry.records()
        check_conflicts(current, desired, job.owner)
        scope = Scope(SYNC, MatchAllDomainFilters([DomainFilter([job.root]), registry.get_domain_filter()]),
                      MANAGED_RECORD_TYPES, owner_id=job.owner)
        changes = self.pipeline.plan(current, desired, scope)
        if not changes.has_changes():
            return
        if not job.deleting and job.same_gen and job.counter >= self.write_counter_limit:
            job.limit_reached = True
            return
        for ep in changes.all_endpoints():  # the record's events (and a refusal's) are about the DNSRecord
            ep.ref_objects = [job.obj]
        # judged by the record's own records: deleting them all as the record goes is no "too many deletes"
        self.pipeline.check(job.zone, changes, current, desired,
                            Judged(job.owner, MANAGED_RECORD_TYPES, deletes_exempt=job.deleting))
        registry.apply_changes(changes)  # the registry's part of the write: collected for the batch
        job.changes = changes
        job.collected = sink.collected or Changes()

    def _snapshot(self, zone: str) -> ZoneSnapshot | None:
        """The zone's snapshot, read once for a round of records that all plan before anything is written (so
        each would have read the same); None with a custom registry (it reads for itself)."""
        if self.registry_factory is not record_registry:
            return None
        return self.provider.zone_snapshot(zone)

    def _registry(self, owner_id: str, root_host: str, zone: str, desired_names: list[str],
                  snapshot: ZoneSnapshot | None = None,
                  domains: DomainFilter | None = None) -> tuple[Registry, SubtreeView | Collecting]:
        """The record's registry and what it writes into (kept for the batch's write). The default one reads
        only the names under `root_host` from the provider's zone snapshot (registry.SubtreeView) instead of
        the whole provider."""
        if self.registry_factory is not record_registry:
            sink = Collecting(self.provider)
            return self.registry_factory(sink, owner_id), sink
        with self._lock:
            index = self._indexes.setdefault(zone, SubtreeIndex())
        return subtree_registry(self.provider, owner_id, zone, root_host, desired_names, index=index, collect=True,
                                snapshot=snapshot, domain_filter=domains)


class OwnershipConflictError(Exception):
    """A desired record exists at the provider and is not owned by this record's owner ID."""


def check_conflicts(current: list[Endpoint], desired: list[Endpoint], owner_id: str) -> None:
    """Refuse (nothing is written) when a desired name/type/set identifier is held by somebody else."""
    held = {(name_key(ep.dns_name), ep.record_type, ep.set_identifier): ep for ep in current}
    taken: list[str] = []
    for ep in desired:
        cur = held.get((name_key(ep.dns_name), ep.record_type, ep.set_identifier))
        if cur is not None and cur.labels.get(OWNER_LABEL_KEY, "") != owner_id:
            who = cur.labels.get(OWNER_LABEL_KEY, "")
            taken.append(f"{ep.dns_name} {ep.record_type} is " + (f"owned by {who!r}" if who else "not owned by us"))
    if taken:
        raise OwnershipConflictError("records held by another owner, not taken over: " + "; ".join(taken))
