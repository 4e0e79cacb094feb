"""The worker loop of the zone and DNSRecord controllers (sample-controller's `runWorker` and
`processNextWorkItem`): `WorkerLoop` runs `workers` threads taking keys off a rate-limited workqueue, hands
them to the controller's `handle`, and settles each key as its `Done` says: a failure is requeued with
back-off, a success forgotten (and queued again after `requeue_after` when set), a failure no retry can fix
handed to `on_fatal`. It keeps the finished reconciles (`history`). Each `start` runs a fresh queue and
threads (leader election stops and restarts the controllers); `stop` lets in-flight work finish."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Generic, TypeVar

import structlog

from external_dns.controller.health import WorkerWatchdog
from external_dns.controller.outcomes import OutcomeLog, is_fatal_error
from external_dns.workqueue import RateLimiter, RateLimitingQueue, default_controller_rate_limiter

log = structlog.get_logger(__name__)

O = TypeVar("O")  # noqa: E741 - what the history keeps of one finished reconcile

GET_HEARTBEAT = 60.0  # workers re-check their stop flag at least this often while the queue is empty (stop()
# shuts the queue down, which wakes them: this only bounds a lost wakeup; longer wakes an idle process less)
HISTORY = 10_000


@dataclass(frozen=True)
class Done(Generic[O]):
    """How one key's reconcile ended: `record` goes into the history; with `error` the key is requeued with
    back-off, or, when no retry can fix it (outcomes.is_fatal_error) and `on_fatal` is set, handed to it
    (`zone`: where it failed) and not requeued; without, the key's back-off is forgotten and it is queued
    again after `requeue_after` seconds when that is set."""

    record: O
    error: BaseException | None = None
    zone: str = ""
    requeue_after: float | None = None


class Term:
    """One start..stop period: its queue, stop flag and threads."""

    def __init__(self, queue: RateLimitingQueue[str]) -> None:
        self.queue = queue
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []


# the controller's reconcile of the keys a worker took (one, or up to `batch_size` waiting at once)
Handle = Callable[[list[str]], Mapping[str, Done[O]]]
# called after every taken batch once its keys are done in the queue, with how each ended ({} when skipped)
After = Callable[[Term, list[str], Mapping[str, Done[O]]], None]


class WorkerLoop(Generic[O]):
    """Worker threads over a rate-limited queue of string keys (see the module docstring)."""

    def __init__(self, kind: str, handle: Handle[O], *, workers: int, queue_name: str,
                 rate_limiter_factory: Callable[[], RateLimiter] | None = None, batch_size: int = 1,
                 drain: bool = False, watchdog: WorkerWatchdog | None = None, after: After[O] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"{kind} workers must be at least 1, got {workers}")
        if batch_size < 1:
            raise ValueError(f"{kind} batch size must be at least 1, got {batch_size}")
        self.kind = kind
        self.handle = handle
        self.workers = workers
        self.queue_name = queue_name
        self.rate_limiter_factory = rate_limiter_factory or default_controller_rate_limiter
        self.batch_size = batch_size
        self.drain = drain  # stop waits for the queued keys to be handed out (they are dropped, not run)
        self.watchdog = watchdog
        self.after = after
        self.history: OutcomeLog[O] = OutcomeLog(HISTORY)
        # Called (zone, error) instead of requeueing a failure no retry can fix; the long-running process sets
        # it to log one fatal line and stop with exit 1 (cmd/run.FatalStop). None: such failures are retried.
        self.on_fatal: Callable[[str, BaseException], None] | None = None
        self._lock = threading.Lock()
        self._term: Term | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------------
    @property
    def term(self) -> Term | None:
        """The running period (None when stopped)."""
        return self._term

    def running(self) -> bool:
        term = self._term
        return term is not None and not term.stopping.is_set()

    def add(self, key: str) -> None:
        """Queue `key` (dropped while stopped or stopping)."""
        term = self._term
        if term is not None and not term.stopping.is_set():
            term.queue.add(key)

    def start(self, keys: Iterable[str] = (),
              companions: Sequence[tuple[str, Callable[[Term], None]]] = ()) -> bool:
        """Start the workers (and `companions`, threads of the controller's own, given the term) with `keys`
        queued first; False when already running."""
        with self._lock:
            if self.running():
                return False
            term = Term(RateLimitingQueue(self.rate_limiter_factory(), name=self.queue_name))
            for i in range(self.workers):
                name = f"{self.kind}-worker-{i}"
                term.threads.append(threading.Thread(target=self._run, args=(term, name), name=name, daemon=True))
            for name, target in companions:
                term.threads.append(threading.Thread(target=target, args=(term,), name=name, daemon=True))
            for key in keys:  # queued first: the workers start on full batches
                term.queue.add(key)
            self._term = term
            for thread in term.threads:
                thread.start()
        return True

    def stop(self, timeout: float, wake: Callable[[], None] | None = None) -> bool:
        """Stop taking work (`wake` tells the companions), let in-flight reconciles finish within `timeout`,
        join the threads. True when everything ended in time."""
        with self._lock:
            term = self._term
            if term is None:
                return True
            term.stopping.set()
        deadline = time.monotonic() + timeout
        if wake is not None:
            wake()
        ok = term.queue.shut_down_with_drain(timeout) if self.drain else True
        if not ok or not self.drain:
            term.queue.shut_down()
        for thread in term.threads:
            if thread is threading.current_thread():  # stopped from its own worker (a fatal hook)
                continue
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning(f"{self.kind} thread did not stop in time", thread=thread.name, timeout=timeout)
                ok = False
        with self._lock:
            if self._term is term:
                self._term = None
        return ok

    # -- workers -----------------------------------------------------------------------------------------------
    def _run(self, term: Term, name: str) -> None:
        while self.process_next(term, name):
            pass

    def process_next(self, term: Term, name: str) -> bool:
        """Take the next key (with `batch_size` > 1, also the keys waiting now), reconcile and settle them;
        False once the queue is shut down."""
        keys = self._take(term.queue)
        if keys is None:
            return False
        if not keys:  # heartbeat
            return not term.stopping.is_set() or len(term.queue) > 0
        done: Mapping[str, Done[O]] = {}
        try:
            if not term.stopping.is_set():  # shutting down: queued keys are dropped, in-flight ones finish
                with self.watchdog.working(name) if self.watchdog is not None else nullcontext():
                    done = self.work(keys, term.queue)
        finally:
            for key in keys:
                term.queue.done(key)
            if self.after is not None:
                self.after(term, keys, done)
        return True

    def _take(self, queue: RateLimitingQueue[str]) -> list[str] | None:
        """The next key and what else waits now (without blocking), at most `batch_size`; [] on a heartbeat,
        None once shut down."""
        key, shutdown = queue.get(timeout=GET_HEARTBEAT)
        if shutdown:
            return None
        if key is None:
            return []
        keys = [key]
        while len(keys) < self.batch_size:
            more, _ = queue.get(timeout=0)
            if more is None:
                break
            keys.append(more)
        return keys

    def work(self, keys: list[str], queue: RateLimitingQueue[str]) -> Mapping[str, Done[O]]:
        """Reconcile `keys` and settle each in `queue`; returns how each ended (`handle` should never raise: a
        bug there is logged and its keys retried with back-off, the worker goes on)."""
        try:
            done = self.handle(keys)
        except Exception:
            log.exception(f"{self.kind} reconcile failed", keys=len(keys))
            done = {}
        fatal: Done[O] | None = None
        for key in keys:
            d = done.get(key)
            if d is not None and self.settle(d):
                fatal = fatal or d
                queue.forget(key)  # not retried: the process ends
            elif d is None or d.error is not None:
                queue.add_rate_limited(key)  # per-key exponential back-off under a 10 qps / 100 burst bucket
            else:
                queue.forget(key)
                if d.requeue_after is not None:
                    queue.add_after(key, max(0.0, d.requeue_after))
        if fatal is not None and fatal.error is not None:
            self.report_fatal(fatal.zone, fatal.error)  # once per batch: its keys share the provider's refusal
        return done

    def settle(self, done: Done[O]) -> bool:
        """Keep `done.record` in the history; True when its error is one for `on_fatal`."""
        self.history.append(done.record)
        return done.error is not None and self.fatal(done.error)

    def fatal(self, exc: BaseException) -> bool:
        """True when `exc` goes to `on_fatal` (one is set and no retry can fix the failure)."""
        return self.on_fatal is not None and is_fatal_error(exc)

    def report_fatal(self, zone: str, exc: BaseException) -> None:
        """Hand a failure no retry can fix to `on_fatal` (its own failure is logged, never raised)."""
        hook = self.on_fatal
        if hook is None:
            return
        try:
            hook(zone, exc)
        except Exception:  # never kills the worker
            log.exception(f"{self.kind} fatal-error hook failed")
