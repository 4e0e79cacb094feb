"""The long-running, zone-keyed controller (sample-controller's pattern): a rate-limited workqueue of the
provider's zones, worker threads reconciling one zone each through `Controller.run_once(zone=key)`, and a
scheduler thread queueing every zone at start, every `interval`, and after informer events. One broken
zone never stops the others (unlike upstream's fatal exit): it is retried with back-off.

A periodic pass reads the source once for all its zones (controller/pass_read.py) and releases its zones
into the queue a few at a time (`workers - 1`, at least one; zones never synced all at once): a worker stays
free for event runs, which are queued as they come, so an event never waits behind the other zones' full
runs. The queue keeps its rule: one worker per zone at a time."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from hashlib import blake2b

import structlog

from external_dns.controller import metrics
from external_dns.controller.controller import (
    Controller,
    RunResult,
    is_soft_error,
    split_by_zone,
)
from external_dns.controller.health import WorkerWatchdog
from external_dns.controller.incremental import IncrementalPlanner
from external_dns.controller.outcomes import OutcomeLog, is_fatal_error
from external_dns.controller.pass_read import PassRead
from external_dns.controller.scheduler import EVENT, PERIODIC, Scheduler
from external_dns.durations import format_go_duration
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import name_key
from external_dns.events import Recorder
from external_dns.gcsettings import release_free_heap
from external_dns.plan.changes import Changes
from external_dns.workqueue import RateLimiter, RateLimitingQueue, default_controller_rate_limiter

log = structlog.get_logger(__name__)

QUEUE_NAME = "zones"
GET_HEARTBEAT = 5.0  # workers re-check their stop flag at least this often while the queue is empty
HISTORY = 10_000
# The newest outcomes keep their RunResult's changes and change lines, up to FULL_RESULTS outcomes holding up to
# CHANGE_BUDGET changes together; older ones release them, except each zone's newest (a first sync of a
# 100k-record zone would otherwise keep every created endpoint and its log line alive: ~70 MiB).
FULL_RESULTS = 64
CHANGE_BUDGET = 1_000


def _changes_held(result: RunResult) -> int:
    c = result.changes
    return len(c.create) + len(c.update_old) + len(c.update_new) + len(c.delete)


def _release_old_results(held: list[tuple[str, RunResult]]) -> list[tuple[str, RunResult]]:
    """Release the changes of the oldest results while more than FULL_RESULTS are held or they hold more than
    CHANGE_BUDGET changes, keeping each zone's newest; returns the results still holding theirs."""
    newest = {zone: result for zone, result in held}
    count, total = len(held), sum(_changes_held(r) for _, r in held)
    kept: list[tuple[str, RunResult]] = []
    for zone, result in held:
        if (count > FULL_RESULTS or total > CHANGE_BUDGET) and newest[zone] is not result:
            count -= 1
            total -= _changes_held(result)
            result.changes = Changes()  # status, timings and zone counts stay
            result.change_lines = []
        else:
            kept.append((zone, result))
    return kept


def fingerprint(endpoints: Sequence[Endpoint]) -> str:
    """A digest of what a zone's desired endpoints ask for (order-independent)."""
    items = sorted((name_key(e.dns_name), e.record_type, e.set_identifier, tuple(e.targets),
                    e.record_ttl, tuple(sorted(e.labels.items())),
                    tuple((p.name, p.value) for p in e.provider_specific)) for e in endpoints)
    return blake2b(repr(items).encode(), digest_size=16).hexdigest()


def zone_fingerprints(endpoints: Sequence[Endpoint], keys: Sequence[str]) -> dict[str, str]:
    """`fingerprint` of each zone's share of `endpoints` (every key present)."""
    groups = split_by_zone(endpoints, keys)
    return {key: fingerprint(groups.get(key, [])) for key in keys}


@dataclass(frozen=True)
class ZoneOutcome:
    """One finished reconcile of one zone."""

    zone: str
    ok: bool
    started: float  # monotonic
    finished: float  # monotonic
    result: RunResult | None = None
    error: str = ""
    soft: bool = False
    requeues: int = 0  # failures of this zone in a row before this reconcile

    @property
    def duration(self) -> float:
        return self.finished - self.started


class _Term:
    """One start..stop period: its own queue, scheduler and threads, and the periodic pass's zones waiting
    to be released into the queue (`pending`) or released and not yet through their full run (`released`)."""

    def __init__(self, queue: RateLimitingQueue[str], scheduler: Scheduler) -> None:
        self.queue = queue
        self.scheduler = scheduler
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.pending: deque[str] = deque()
        self.released: set[str] = set()


class ZoneController:
    """Zone-keyed reconcile workers over a `Controller` (see the module docstring)."""

    def __init__(self, controller: Controller, *, workers: int = 2, interval: float = 60.0,
                 min_event_sync_interval: float = 5.0,
                 rate_limiter_factory: Callable[[], RateLimiter] | None = None,
                 watchdog: WorkerWatchdog | None = None, recorder: Recorder | None = None,
                 queue_name: str = QUEUE_NAME, skip_unchanged_zones: bool = True,
                 incremental: bool = True) -> None:
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        Scheduler(interval, min_event_sync_interval)  # validates the two durations
        self.controller = controller
        self.workers = workers
        self.interval = interval
        self.min_event_sync_interval = min_event_sync_interval
        self.rate_limiter_factory = rate_limiter_factory or default_controller_rate_limiter
        self.watchdog = watchdog
        self.queue_name = queue_name
        if recorder is not None:  # the controller's writes send the record events
            controller.recorder = recorder
        self.skip_unchanged_zones = skip_unchanged_zones
        # Event-triggered reconciles plan only the zone's dirty names (controller/incremental.py); periodic
        # passes (and a zone whose last full pass failed) run the full plan: drift repair.
        self.planner = IncrementalPlanner(controller) if incremental else None
        self._full_due: set[str] = set()  # zones whose next run is full: released by a pass, or failed full
        self._pass_read: PassRead | None = None  # the source read of the current periodic pass
        self._whole_reads: dict[str, int] = {}  # zone -> runs that read the whole source themselves
        self._synced_once: set[str] = set()  # zones with a successful run in this controller

        self._lock = threading.Lock()
        self._term: _Term | None = None
        self._known_keys: list[str] = []
        self._failures: dict[str, int] = {}
        self._soft_failures: dict[str, int] = {}
        self._outcomes: OutcomeLog[ZoneOutcome] = OutcomeLog(HISTORY)
        self._full_results: list[tuple[str, RunResult]] = []  # (zone, result) keeping their changes, oldest first
        self._full_lock = threading.Lock()
        self.passes = 0
        self.skipped = 0  # zones left out of event-triggered passes because nothing changed for them
        # zone -> fingerprint of the desired endpoints its last successful reconcile used; zones in flight
        self._state = threading.Lock()
        self._applied: dict[str, str] = {}
        self._in_flight: set[str] = set()
        self._local = threading.local()
        # Called (zone, error) instead of logging a failure that no retry can fix; the long-running process
        # sets it to log one fatal line and stop with exit 1 (cmd/run.py). None: such failures are retried.
        self.on_fatal: Callable[[str, BaseException], None] | None = None
        controller.source_observers.append(self._observe_source)

    # -- scheduling --------------------------------------------------------------------------------------
    def on_event(self) -> None:
        """An informer event: schedule a sync of every zone (batched by the scheduler)."""
        term = self._term
        if term is not None and not term.stopping.is_set():
            term.scheduler.schedule_run_once()

    def zone_keys(self) -> list[str]:
        """The zone keys now; the last known ones (or `[""]`) when the provider cannot list its zones."""
        try:
            keys = self.controller.zone_keys()
        except Exception as exc:
            if not self._fatal("", exc):
                log.error(f"cannot list the provider's zones, keeping the last known ones: {exc}")
            return list(self._known_keys) or [""]
        self._known_keys = keys
        with self._state:
            for gone in [k for k in {*self._failures, *self._applied} if k not in keys]:  # zones that went away
                self._failures.pop(gone, None)
                self._soft_failures.pop(gone, None)
                self._applied.pop(gone, None)
            self._update_soft_gauge()
        return keys

    def enqueue_all(self, reason: str = PERIODIC) -> list[str]:
        """Queue the zones of a pass: every zone, or for an `EVENT` pass the zones that need it (see the
        module docstring). Returns the keys queued."""
        term = self._term
        return self._enqueue(term, reason) if term is not None else []

    def _enqueue(self, term: _Term, reason: str) -> list[str]:
        if term.stopping.is_set():
            return []
        keys = self.zone_keys()
        if reason != EVENT:
            self.begin_pass(keys)
            with self._state:
                waiting = set(term.pending)
                term.pending.extend(k for k in keys if k not in waiting)
            self._release(term)
            self.passes += 1
            return keys
        queued = self._zones_to_sync(keys)
        for key in queued:
            term.queue.add(key)
        self.passes += 1
        self.skipped += len(keys) - len(queued)
        return queued

    def begin_pass(self, keys: list[str]) -> None:
        """A new periodic pass over `keys`: a new shared source read (made on its first zone's full run)."""
        watch = self.planner.watch if self.planner is not None else None
        with self._state:
            old, self._pass_read = self._pass_read, PassRead(self.controller, keys, self._whole_reads, watch)
        if old is not None:
            old.close()

    def _release(self, term: _Term) -> None:
        """Queue the pass's next zones for their full run: zones never synced at once, the others while fewer
        than `workers - 1` (at least one) are released and not through their full run."""
        slots = max(1, self.workers - 1)
        known = set(self._known_keys)
        with self._state:
            release: list[str] = []
            pass_read = self._pass_read
            for key in list(term.pending):
                if known and key not in known:
                    term.pending.remove(key)  # the zone went away
                elif pass_read is not None and not pass_read.pending(key):
                    term.pending.remove(key)  # an event run of a zone never synced ran in full with its share
                elif key not in self._synced_once or len(term.released) < slots:
                    term.pending.remove(key)
                    term.released.add(key)
                    self._full_due.add(key)
                    release.append(key)
        for key in release:
            term.queue.add(key)

    def _zones_to_sync(self, keys: list[str]) -> list[str]:
        """An event pass queues only the zones whose desired endpoints changed since their last successful
        reconcile (fingerprint of names, types, targets, TTLs, labels, properties); zones in flight, failed
        or never synced always go. Periodic passes queue every zone (provider-side drift); with one zone
        every event pass reconciles it, as upstream."""
        if not self.skip_unchanged_zones or len(keys) < 2:
            return keys
        named = self.planner.zones_with_events(keys) if self.planner is not None else None
        if named is not None:  # the source named the changed names: their zones, without reading it all
            with self._state:
                return [k for k in keys if k in named or k in self._in_flight or k in self._failures
                        or k in self._full_due]
        try:
            now = zone_fingerprints(self.controller.source.endpoints(), keys)
        except Exception as exc:  # the reconciles will report it
            log.debug("cannot read the source for an event-triggered pass", error=str(exc))
            return keys
        with self._state:
            return [k for k in keys if k in self._in_flight or self._applied.get(k) != now[k]]

    def _observe_source(self, zone: str | None, endpoints: list[Endpoint]) -> None:
        """Controller source observer: remember what this thread's reconcile of `zone` read."""
        if zone is None or not self.skip_unchanged_zones or getattr(self._local, "zone", None) != zone:
            return
        keys = self._known_keys or [zone]
        if len(keys) < 2:
            return
        self._local.fingerprint = zone_fingerprints(endpoints, keys).get(zone)

    # -- lifecycle ---------------------------------------------------------------------------------------
    def running(self) -> bool:
        term = self._term
        return term is not None and not term.stopping.is_set()

    def start(self) -> None:
        """Start the scheduler thread and the workers (no-op when running). The first pass is queued at once.
        Repeatable (leader election stops and restarts the workers): each start runs a fresh queue,
        scheduler and threads."""
        with self._lock:
            if self.running():
                return
            queue: RateLimitingQueue[str] = RateLimitingQueue(self.rate_limiter_factory(), name=self.queue_name)
            term = _Term(queue, Scheduler(self.interval, self.min_event_sync_interval))
            for i in range(self.workers):
                term.threads.append(threading.Thread(target=self._worker, args=(term, f"zone-worker-{i}"),
                                                     name=f"zone-worker-{i}", daemon=True))
            term.threads.append(threading.Thread(target=self._schedule_loop, args=(term,),
                                                 name="zone-scheduler", daemon=True))
            self._term = term
            for thread in term.threads:
                thread.start()
        log.info("Zone controller started", workers=self.workers, interval=format_go_duration(self.interval),
                 min_event_sync_interval=format_go_duration(self.min_event_sync_interval))

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop taking work, let in-flight reconciles finish (within `timeout`), join the threads. True when
        everything ended in time."""
        with self._lock:
            term = self._term
            if term is None:
                return True
            term.stopping.set()
        deadline = time.monotonic() + timeout
        term.scheduler.stop()
        drained = term.queue.shut_down_with_drain(timeout)
        if not drained:
            term.queue.shut_down()
        ok = drained
        for thread in term.threads:
            if thread is threading.current_thread():
                continue
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("zone controller thread did not stop in time", thread=thread.name, timeout=timeout)
                ok = False
        with self._lock:
            if self._term is term:
                self._term = None
        log.info("Terminating main controller loop", clean=ok)
        return ok

    # -- threads -----------------------------------------------------------------------------------------
    def _schedule_loop(self, term: _Term) -> None:
        while True:
            reason = term.scheduler.wait_next()
            if reason is None or term.stopping.is_set():
                return
            keys = self._enqueue(term, reason)
            log.debug("Queued a sync", reason=reason, zones=len(keys))

    def _worker(self, term: _Term, name: str) -> None:
        while self._process_next(term, name):
            pass

    def _process_next(self, term: _Term, name: str) -> bool:
        key, shutdown = term.queue.get(timeout=GET_HEARTBEAT)
        if shutdown:
            return False
        if key is None:  # heartbeat
            return not term.stopping.is_set() or len(term.queue) > 0
        try:
            if term.stopping.is_set():
                return True  # shutting down: queued zones are dropped, in-flight ones finish
            if self.watchdog is not None:
                with self.watchdog.working(name):
                    ok = self.reconcile(key)
            else:
                ok = self.reconcile(key)
            if ok:
                term.queue.forget(key)
            else:  # per-zone exponential back-off (5 ms .. 1000 s) under a 10 qps / 100 burst bucket
                term.queue.add_rate_limited(key)
        finally:
            term.queue.done(key)
            if getattr(self._local, "full", False):  # its full run ended (a failed one retries with back-off)
                with self._state:
                    term.released.discard(key)
            self._release(term)
        return True

    # -- one reconcile -----------------------------------------------------------------------------------
    def reconcile(self, zone: str, full: bool = False) -> bool:
        """Reconcile one zone now (on the calling thread); True on success. Never raises. `full`: the full run
        of a periodic pass (also run when the zone is due one or never synced; else an event run)."""
        started = time.monotonic()
        with self._state:
            requeues = self._failures.get(zone, 0)
            self._in_flight.add(zone)
        self._local.zone = zone
        self._local.fingerprint = None
        self._local.full = False
        whole = False
        try:
            with self._state:
                full = full or self.planner is None or zone in self._full_due or zone not in self._synced_once
                pass_read = self._pass_read
            result = None
            if not full and self.planner is not None:
                try:
                    result = self.planner.run(zone)
                finally:
                    whole = self.planner.read_whole_source()
            if result is None:
                self._local.full = True
                desired = pass_read.take(zone) if pass_read is not None else None
                whole = whole or desired is None
                result = self.controller.run_once(zone=zone, desired=desired)
                with self._state:
                    self._full_due.discard(zone)
        except Exception as exc:
            soft = is_soft_error(exc)
            with self._state:
                if whole:  # this run's read is newer than the pass's shared read: see controller/pass_read.py
                    self._whole_reads[zone] = self._whole_reads.get(zone, 0) + 1
                self._applied.pop(zone, None)
                self._in_flight.discard(zone)
                self._failures[zone] = requeues + 1
                if soft:
                    self._soft_failures[zone] = self._soft_failures.get(zone, 0) + 1
                count = self._soft_failures.get(zone, 0)
                self._update_soft_gauge()
            if soft:
                log.error(f"Failed to do run once: {exc} (consecutive soft errors: {count})", zone=zone)
            elif not self._fatal(zone, exc):
                log.error(f"Failed to do run once: {exc}", zone=zone, failures=requeues + 1)
            self._record(ZoneOutcome(zone, False, started, time.monotonic(), error=str(exc), soft=soft,
                                     requeues=requeues))
            return False
        with self._state:
            if whole:
                self._whole_reads[zone] = self._whole_reads.get(zone, 0) + 1
            self._synced_once.add(zone)
            fp = self._local.fingerprint
            if fp is not None:
                self._applied[zone] = fp
            else:
                self._applied.pop(zone, None)
            self._in_flight.discard(zone)
            recovered = self._soft_failures.pop(zone, 0)
            self._failures.pop(zone, None)
            self._update_soft_gauge()
        if recovered:
            log.info("Reconciliation succeeded after soft errors", zone=zone)
        self._record(ZoneOutcome(zone, True, started, time.monotonic(), result=result, requeues=requeues))
        return True

    def _fatal(self, zone: str, exc: BaseException) -> bool:
        """Hand a failure no retry can fix (controller/outcomes.is_fatal_error: refused credentials) to
        `on_fatal`, which logs it and ends the process; False when there is no such handler or it is not one."""
        if self.on_fatal is None or not is_fatal_error(exc):
            return False
        self.on_fatal(zone, exc)
        return True

    def _update_soft_gauge(self) -> None:
        """Publish the worst zone's consecutive soft errors (call with `_state` held)."""
        worst = max(self._soft_failures.values(), default=0)
        self.controller.consecutive_soft_errors = worst
        metrics.CONSECUTIVE_SOFT_ERRORS.set(worst)

    def _record(self, outcome: ZoneOutcome) -> None:
        if outcome.result is not None:
            with self._full_lock:
                self._full_results = _release_old_results([*self._full_results, (outcome.zone, outcome.result)])
        self._outcomes.append(outcome)
        if getattr(self._local, "full", False):
            # A full run allocated and freed copies of the whole zone: hand glibc's free pages back, or the
            # resident size creeps up pass after pass (external_dns/gcsettings.py; a few ms).
            release_free_heap()

    # -- observation ---------------------------------------------------------------------------------------
    def outcomes(self, zone: str | None = None) -> list[ZoneOutcome]:
        """The finished reconciles so far (the last 10 000), oldest first; optionally of one zone. Each zone's
        newest result keeps its changes and change lines, and so do the newest others within FULL_RESULTS
        outcomes and CHANGE_BUDGET changes (older ones read as empty)."""
        return self._outcomes.items(None if zone is None else lambda o: o.zone == zone)

    @property
    def reconciles(self) -> int:
        """Finished reconciles since the controller was made."""
        return self._outcomes.total

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` is true, re-checked after every finished reconcile (or `timeout`)."""
        return self._outcomes.wait_until(predicate, timeout)

    def failures(self, zone: str) -> int:
        """Failed reconciles of `zone` in a row (0 after a success)."""
        with self._state:
            return self._failures.get(zone, 0)

    def run_pass(self, timeout: float | None = None) -> dict[str, ZoneOutcome]:
        """One reconcile of every zone on `workers` threads (no retries), for one-shot use and benches.
        Returns the outcome per zone; zones not finished within `timeout` are missing."""
        keys = self.zone_keys()
        self.begin_pass(keys)
        with self._state:
            self._full_due.update(keys)
        results: dict[str, ZoneOutcome] = {}
        lock = threading.Lock()
        pending = list(keys)

        def work() -> None:
            while True:
                with lock:
                    if not pending:
                        return
                    key = pending.pop(0)
                self.reconcile(key)
                found = self.outcomes(key)
                with lock:
                    if found:
                        results[key] = found[-1]

        threads = [threading.Thread(target=work, name=f"zone-pass-{i}", daemon=True)
                   for i in range(min(self.workers, len(keys)))]
        for thread in threads:
            thread.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        with lock:
            return dict(results)
