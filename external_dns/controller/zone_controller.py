"""The long-running, zone-keyed controller (sample-controller's pattern): a rate-limited workqueue of the
provider's zones, worker threads (controller/workers.py) reconciling one zone each, and a scheduler thread
queueing every zone at start, every `interval`, and after informer events. One broken zone never stops the
others (unlike upstream's fatal exit): it is retried with back-off. Which run a zone gets (full, or
event-sized over its dirty names) and what it reads is zone_runs.py's.

A periodic pass reads the source once for all its zones (controller/pass_read.py) and releases its zones
into the queue a few at a time (`workers - 1`, at least one; zones never synced all at once): a worker stays
free for event runs, which are queued as they come, so an event never waits behind the other zones' full
runs. An event pass queues only the zones whose desired endpoints changed. A pass's full run of a zone is
queued under a key of its own (`full_key`), so an event run of the same zone can run beside it on the other
worker (zone_runs.py keeps the two from writing conflicting states); the queue keeps its rule per key."""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import structlog

from external_dns.controller import metrics
from external_dns.controller.controller import (
    Controller,
    RunResult,
    is_soft_error,
    split_by_zone,
)
from external_dns.controller.dirty import name_fingerprints
from external_dns.controller.health import WorkerWatchdog
from external_dns.controller.scheduler import EVENT, PERIODIC, Scheduler
from external_dns.controller.workers import Done, Term, WorkerLoop
from external_dns.controller.zone_runs import ZoneRuns
from external_dns.durations import format_go_duration
from external_dns.endpoint.zones import log_zone
from external_dns.events import Recorder
from external_dns.gcsettings import release_free_heap
from external_dns.plan.changes import Changes
from external_dns.workqueue import RateLimiter

log = structlog.get_logger(__name__)

QUEUE_NAME = "zones"
# The newest outcomes keep their RunResult's changes and change lines, up to FULL_RESULTS outcomes holding up to
# CHANGE_BUDGET changes together; older ones release them, except each zone's newest (a first sync of a
# 100k-record zone would otherwise keep every created endpoint and its log line alive: ~70 MiB).
FULL_RESULTS = 64
CHANGE_BUDGET = 1_000
# A result holding more changes than this keeps none, even its zone's newest: a first sync of 100k records
# would hold its endpoints and lines until the zone's next run, and the first periodic passes would then grow
# the heap beside them instead of reusing their space (issue 29: RSS after the passes).
RESULT_MAX = 10_000
_FULL = "\x00full "  # the queue key of a zone's full run of a periodic pass: never a zone's name


def full_key(zone: str) -> str:
    """The queue key of `zone`'s full run (the zone's own key is its event runs')."""
    return _FULL + zone


def key_zone(key: str) -> tuple[str, bool]:
    """(zone, whether the key is its full run's) of a queue key."""
    return (key[len(_FULL):], True) if key.startswith(_FULL) else (key, False)


def _changes_held(result: RunResult) -> int:
    c = result.changes
    return len(c.create) + len(c.update_old) + len(c.update_new) + len(c.delete)


def _release_old_results(held: list[tuple[str, RunResult]]) -> list[tuple[str, RunResult]]:
    """Release the changes of the oldest results while more than FULL_RESULTS are held or they hold more than
    CHANGE_BUDGET changes, keeping each zone's newest (unless it holds more than RESULT_MAX); returns the
    results still holding theirs."""
    newest = {zone: result for zone, result in held}
    count, total = len(held), sum(_changes_held(r) for _, r in held)
    kept: list[tuple[str, RunResult]] = []
    for zone, result in held:
        big = _changes_held(result) > RESULT_MAX
        if big or ((count > FULL_RESULTS or total > CHANGE_BUDGET) and newest[zone] is not result):
            count -= 1
            total -= _changes_held(result)
            result.changes = Changes()  # status, timings and zone counts stay
            result.change_lines = []
        else:
            kept.append((zone, result))
    return kept


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
    full: bool = False  # a full run (else an event run planning the zone's dirty names)

    @property
    def duration(self) -> float:
        return self.finished - self.started


class _Period:
    """One start..stop period: its scheduler, the worker loop's term (set by the scheduler thread before it
    queues anything), and the periodic pass's zones waiting to be released into the queue (`pending`) or
    released and not yet through their full run (`released`)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.term: Term | None = None
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
        self.loop: WorkerLoop[ZoneOutcome] = WorkerLoop(
            "zone", self._handle, workers=workers, queue_name=queue_name, rate_limiter_factory=rate_limiter_factory,
            drain=True, watchdog=watchdog, after=self._after)
        if recorder is not None:  # the controller's writes send the record events
            controller.recorder = recorder
        self.skip_unchanged_zones = skip_unchanged_zones
        # Event-triggered runs plan only the zone's dirty names; periodic passes (and a zone whose last full
        # pass failed) run the full plan: drift repair. Without `incremental` every run is a full one.
        self.runs = ZoneRuns(controller, incremental=incremental, fingerprints=skip_unchanged_zones)

        self._lock = threading.Lock()
        self._period: _Period | None = None
        self._known_keys: list[str] = []
        self._failures: dict[str, int] = {}
        self._soft_failures: dict[str, int] = {}
        self._full_results: list[tuple[str, RunResult]] = []  # (zone, result) keeping their changes, oldest first
        self._full_lock = threading.Lock()
        self.passes = 0
        self.skipped = 0  # zones left out of event-triggered passes because nothing changed for them
        self._state = threading.Lock()
        self._in_flight: dict[str, int] = {}  # zone -> its runs in flight (a full run and an event run)

    @property
    def on_fatal(self) -> Callable[[str, BaseException], None] | None:
        """Called (zone, error) instead of logging a failure that no retry can fix; the long-running process
        sets it to log one fatal line and stop with exit 1 (cmd/run.py). None: such failures are retried."""
        return self.loop.on_fatal

    @on_fatal.setter
    def on_fatal(self, hook: Callable[[str, BaseException], None] | None) -> None:
        self.loop.on_fatal = hook

    # -- scheduling --------------------------------------------------------------------------------------
    def on_event(self) -> None:
        """An informer event: schedule a sync of every zone (batched by the scheduler)."""
        period = self._period
        if period is not None and self.loop.running():
            period.scheduler.schedule_run_once()

    def zone_keys(self) -> list[str]:
        """The zone keys now; the last known ones (or `[""]`) when the provider cannot list its zones."""
        try:
            keys = self.controller.zone_keys()
        except Exception as exc:
            if self.loop.fatal(exc):
                self.loop.report_fatal("", exc)
            else:
                log.error(f"cannot list the provider's zones, keeping the last known ones: {exc}")
            return list(self._known_keys) or [""]
        self._known_keys = keys
        with self._state:
            for gone in [k for k in self._failures if k not in keys]:  # zones that went away
                self._failures.pop(gone, None)
                self._soft_failures.pop(gone, None)
            self._update_soft_gauge()
        self.runs.dirty.keep_only(keys)
        return keys

    def enqueue_all(self, reason: str = PERIODIC) -> list[str]:
        """Queue the zones of a pass: every zone, or for an `EVENT` pass the zones that need it (see the
        module docstring). Returns the keys queued."""
        period = self._period
        return self._enqueue(period, reason) if period is not None else []

    def _enqueue(self, period: _Period, reason: str) -> list[str]:
        term = period.term
        if term is None or term.stopping.is_set():
            return []
        keys = self.zone_keys()
        if reason != EVENT:
            self.begin_pass(keys)
            with self._state:
                waiting = set(period.pending)
                period.pending.extend(k for k in keys if k not in waiting)
            self._release(period, term)
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
        self.runs.begin_pass(keys)

    def _release(self, period: _Period, term: Term) -> None:
        """Queue the pass's next zones for their full run: zones never synced at once, the others while fewer
        than `workers - 1` (at least one) are released and not through their full run."""
        slots = max(1, self.workers - 1)
        known = set(self._known_keys)
        runs = self.runs
        with self._state:
            release: list[str] = []
            for key in list(period.pending):
                if known and key not in known:
                    period.pending.remove(key)  # the zone went away
                elif runs.share_gone(key):
                    period.pending.remove(key)  # an event run of a zone never synced ran in full with its share
                elif not runs.synced_once(key) or len(period.released) < slots:
                    period.pending.remove(key)
                    period.released.add(key)
                    runs.release(key)
                    release.append(key)
        for key in release:
            term.queue.add(full_key(key))

    def _zones_to_sync(self, keys: list[str]) -> list[str]:
        """An event pass queues only the zones whose desired endpoints changed since their last successful
        run (their changed names, or the fingerprints of names, types, targets, TTLs, labels, properties);
        zones in flight, failed or never synced always go. Periodic passes queue every zone (provider-side
        drift); with one zone every event pass reconciles it, as upstream."""
        if not self.skip_unchanged_zones or len(keys) < 2:
            return keys
        named = self.runs.zones_with_events(keys)
        if named is not None:  # the source named the changed names: their zones, without reading it all
            with self._state:
                return [k for k in keys if k in named or k in self._in_flight or k in self._failures
                        or self.runs.full_due(k)]
        try:
            shares = split_by_zone(self.controller.source.endpoints(), keys)
        except Exception as exc:  # the reconciles will report it
            log.debug("cannot read the source for an event-triggered pass", error=str(exc))
            return keys
        with self._state:
            busy = set(self._in_flight) | set(self._failures)
        dirty = self.runs.dirty
        return [k for k in keys if k in busy or dirty.baseline(k) is None
                or dirty.changed(k, name_fingerprints(shares.get(k, ())))]

    # -- lifecycle ---------------------------------------------------------------------------------------
    def running(self) -> bool:
        return self.loop.running()

    def start(self) -> None:
        """Start the scheduler thread and the workers (no-op when running). The first pass is queued at once.
        Repeatable (leader election stops and restarts the workers): each start runs a fresh queue,
        scheduler and threads."""
        with self._lock:
            if self.loop.running():
                return
            period = self._period = _Period(Scheduler(self.interval, self.min_event_sync_interval))
            # set before the threads start: a worker's `_after` looks for it
            self.loop.start(companions=[("zone-scheduler", functools.partial(self._schedule_loop, period))])
        log.info("Zone controller started", workers=self.workers, interval=format_go_duration(self.interval),
                 min_event_sync_interval=format_go_duration(self.min_event_sync_interval))

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop taking work, let in-flight reconciles finish (within `timeout`), join the threads. True when
        everything ended in time."""
        period = self._period
        ok = self.loop.stop(timeout, wake=period.scheduler.stop if period is not None else None)
        log.info("Terminating main controller loop", clean=ok)
        return ok

    # -- threads -----------------------------------------------------------------------------------------
    def _schedule_loop(self, period: _Period, term: Term) -> None:
        period.term = term
        while True:
            reason = period.scheduler.wait_next()
            if reason is None or term.stopping.is_set():
                return
            keys = self._enqueue(period, reason)
            log.debug("Queued a sync", reason=reason, zones=len(keys))

    def _handle(self, keys: list[str]) -> dict[str, Done[ZoneOutcome]]:
        out: dict[str, Done[ZoneOutcome]] = {}
        for key in keys:
            zone, full = key_zone(key)
            out[key] = self._reconcile(zone, full, event=not full)
        return out

    def _after(self, term: Term, keys: list[str], done: Mapping[str, Done[ZoneOutcome]]) -> None:
        period = self._period
        if period is None or period.term is not term:
            return
        ended = [key_zone(key)[0] for key in keys if key in done and key_zone(key)[1]]
        if ended:  # their full runs ended (a failed one retries with back-off)
            with self._state:
                period.released.difference_update(ended)
        self._release(period, term)

    # -- one reconcile -----------------------------------------------------------------------------------
    def reconcile(self, zone: str, full: bool = False) -> bool:
        """Reconcile one zone now (on the calling thread); True on success. Never raises. `full`: the full run
        of a periodic pass (also run when the zone is due one or never synced; else an event run)."""
        done = self._reconcile(zone, full)
        if self.loop.settle(done) and done.error is not None:
            self.loop.report_fatal(zone, done.error)
        return done.error is None

    def _reconcile(self, zone: str, full: bool = False, *, event: bool = False) -> Done[ZoneOutcome]:
        started = time.monotonic()
        with self._state:
            requeues = self._failures.get(zone, 0)
            self._in_flight[zone] = self._in_flight.get(zone, 0) + 1
        run = self.runs.begin(zone, full, event=event)
        try:
            result = self.runs.run(zone, run)
        except Exception as exc:
            self.runs.end(zone, run, ok=False)
            soft = is_soft_error(exc)
            with self._state:
                self._landed(zone)
                self._failures[zone] = requeues + 1
                if soft:
                    self._soft_failures[zone] = self._soft_failures.get(zone, 0) + 1
                count = self._soft_failures.get(zone, 0)
                self._update_soft_gauge()
            if soft:
                log.error(f"Failed to do run once: {exc} (consecutive soft errors: {count})", zone=log_zone(zone))
            elif not self.loop.fatal(exc):  # else on_fatal logs its own line
                log.error(f"Failed to do run once: {exc}", zone=log_zone(zone), failures=requeues + 1)
            return self._ended(ZoneOutcome(zone, False, started, time.monotonic(), error=str(exc), soft=soft,
                                           requeues=requeues, full=run.full), exc)
        self.runs.end(zone, run, ok=True)
        with self._state:
            self._landed(zone)
            recovered = self._soft_failures.pop(zone, 0)
            self._failures.pop(zone, None)
            self._update_soft_gauge()
        if recovered:
            log.info("Reconciliation succeeded after soft errors", zone=log_zone(zone))
        result.fingerprints = None  # kept by the dirty-name state; a result stays in the history
        return self._ended(ZoneOutcome(zone, True, started, time.monotonic(), result=result, requeues=requeues,
                                       full=run.full))

    def _landed(self, zone: str) -> None:
        """One run of `zone` ended (call with `_state` held)."""
        left = self._in_flight.get(zone, 0) - 1
        if left > 0:
            self._in_flight[zone] = left
        else:
            self._in_flight.pop(zone, None)

    def sync(self, zone: str, full: bool = False) -> RunResult:
        """One run of `zone` now on the calling thread, without the retry bookkeeping of `reconcile` (see
        `ZoneRuns.sync`). Raises RunOnceError like `Controller.sync`."""
        return self.runs.sync(zone, full)

    def _ended(self, outcome: ZoneOutcome, error: BaseException | None = None) -> Done[ZoneOutcome]:
        if outcome.result is not None:
            with self._full_lock:
                self._full_results = _release_old_results([*self._full_results, (outcome.zone, outcome.result)])
        if outcome.full:
            # A full run allocated and freed copies of the whole zone: hand glibc's free pages back, or the
            # resident size creeps up pass after pass (external_dns/gcsettings.py; a few ms).
            release_free_heap()
        return Done(outcome, error=error, zone=outcome.zone)

    def _update_soft_gauge(self) -> None:
        """Publish the worst zone's consecutive soft errors (call with `_state` held)."""
        worst = max(self._soft_failures.values(), default=0)
        self.controller.consecutive_soft_errors = worst
        metrics.CONSECUTIVE_SOFT_ERRORS.set(worst)

    # -- observation ---------------------------------------------------------------------------------------
    def outcomes(self, zone: str | None = None) -> list[ZoneOutcome]:
        """The finished reconciles so far (the last 10 000), oldest first; optionally of one zone. Each zone's
        newest result keeps its changes and change lines, and so do the newest others within FULL_RESULTS
        outcomes and CHANGE_BUDGET changes (older ones read as empty)."""
        return self.loop.history.items(None if zone is None else lambda o: o.zone == zone)

    @property
    def reconciles(self) -> int:
        """Finished reconciles since the controller was made."""
        return self.loop.history.total

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` is true, re-checked after every finished reconcile (or `timeout`)."""
        return self.loop.history.wait_until(predicate, timeout)

    def failures(self, zone: str) -> int:
        """Failed reconciles of `zone` in a row (0 after a success)."""
        with self._state:
            return self._failures.get(zone, 0)

    def run_pass(self, timeout: float | None = None) -> dict[str, ZoneOutcome]:
        """One reconcile of every zone on `workers` threads (no retries), for one-shot use and benches.
        Returns the outcome per zone; zones not finished within `timeout` are missing."""
        keys = self.zone_keys()
        self.begin_pass(keys)
        for key in keys:
            self.runs.release(key)
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
