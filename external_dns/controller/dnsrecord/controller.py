"""The per-record DNSRecord controller: a shared informer on kuadrant.io/v1alpha1 DNSRecords feeds its own
rate-limited workqueue keyed `namespace/name` (sample-controller pattern); worker threads run
`Reconciler.reconcile_many(keys)` on the keys waiting when they wake (at most `batch_size`), so the records of
one zone share a provider write. `install` runs it as a leader task of the long-running process; the rules
(requeues, restarts under leader election) sit beside the methods that implement them.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from external_dns.controller.dnsrecord.clock import SYSTEM_CLOCK, WallClock
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler, Result
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import RESOURCE
from external_dns.controller.outcomes import OutcomeLog, is_fatal_error
from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import (
    DeletedFinalStateUnknown,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    SharedInformerFactory,
    deletion_handling_key,
)
from external_dns.providers.provider import CachedProvider, Provider
from external_dns.sources.source import Source
from external_dns.workqueue import RateLimiter, RateLimitingQueue, default_controller_rate_limiter

if TYPE_CHECKING:
    from external_dns.controller.controller import Controller

log = structlog.get_logger(__name__)

SOURCE_NAME = "dnsrecord"
QUEUE_NAME = "dnsrecords"
GET_HEARTBEAT = 5.0
HISTORY = 10_000
# Keys a worker takes at once (those already waiting; it never waits for more): their provider writes are
# joined per zone (reconcile.py). Bounded so one worker's batch stays short and the others get work too.
BATCH_SIZE = 64


@dataclass(frozen=True)
class RecordOutcome:
    """One finished reconcile."""

    key: str
    result: Result
    finished: float  # monotonic


class _Term:
    def __init__(self, queue: RateLimitingQueue[str]) -> None:
        self.queue = queue
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []


class DNSRecordController:
    """Key-per-record workers over a `Reconciler` (see the module docstring)."""

    def __init__(self, reconciler: Reconciler, informer: SharedIndexInformer, *, workers: int = 2,
                 rate_limiter_factory: Callable[[], RateLimiter] | None = None,
                 queue_name: str = QUEUE_NAME, batch_size: int = BATCH_SIZE) -> None:
        if workers < 1:
            raise ValueError(f"DNSRecord workers must be at least 1, got {workers}")
        if batch_size < 1:
            raise ValueError(f"DNSRecord batch size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.reconciler = reconciler
        self.informer = informer
        self.workers = workers
        self.rate_limiter_factory = rate_limiter_factory or default_controller_rate_limiter
        self.queue_name = queue_name
        self._lock = threading.Lock()
        self._term: _Term | None = None
        self._outcomes: OutcomeLog[RecordOutcome] = OutcomeLog(HISTORY)
        # A failure no retry can fix (the provider refused our credentials: is_fatal_error) goes to this hook
        # (zone, exception) instead of a requeue: the long-running process ends on it as on the zone
        # controller's (cmd/run.FatalStop; `install` sets it). None: retried with back-off as any failure.
        self.on_fatal: Callable[[str, BaseException], None] | None = None
        self.registration = informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._on_add, on_update=self._on_update, on_delete=self._on_delete))

    # -- events ---------------------------------------------------------------------------------------------
    def enqueue(self, key: str) -> None:
        term = self._term
        if term is not None and not term.stopping.is_set():
            term.queue.add(key)

    def _on_add(self, obj: dict[str, Any]) -> None:
        self.enqueue(deletion_handling_key(obj))

    def _on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        old_rv = (old.get("metadata") or {}).get("resourceVersion")
        if old_rv and old_rv == (new.get("metadata") or {}).get("resourceVersion"):
            return  # a resync: nothing changed
        self.enqueue(deletion_handling_key(new))

    def _on_delete(self, obj: dict[str, Any] | DeletedFinalStateUnknown) -> None:
        self.enqueue(deletion_handling_key(obj))

    # -- lifecycle ------------------------------------------------------------------------------------------
    def running(self) -> bool:
        term = self._term
        return term is not None and not term.stopping.is_set()

    def start(self) -> None:
        """Start the workers (no-op when running) and queue every cached record."""
        with self._lock:
            if self.running():
                return
            queue: RateLimitingQueue[str] = RateLimitingQueue(self.rate_limiter_factory(), name=self.queue_name)
            term = _Term(queue)
            for i in range(self.workers):
                term.threads.append(threading.Thread(target=self._worker, args=(term,),
                                                     name=f"dnsrecord-worker-{i}", daemon=True))
            self._term = term
            for key in self.informer.get_store().list_keys():  # queued first: the workers start on full batches
                queue.add(key)
            for thread in term.threads:
                thread.start()
        log.info("DNSRecord controller started", workers=self.workers)

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop taking work, let in-flight reconciles finish within `timeout`, join the threads."""
        with self._lock:
            term = self._term
            if term is None:
                return True
            term.stopping.set()
        deadline = time.monotonic() + timeout
        term.queue.shut_down()
        ok = True
        for thread in term.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("DNSRecord worker did not stop in time", thread=thread.name, timeout=timeout)
                ok = False
        with self._lock:
            if self._term is term:
                self._term = None
        log.info("DNSRecord controller stopped", clean=ok)
        return ok

    def close(self, timeout: float = 10.0) -> bool:
        """`stop` and unregister from the informer."""
        ok = self.stop(timeout)
        self.informer.remove_event_handler(self.registration)
        return ok

    # -- workers --------------------------------------------------------------------------------------------
    def _worker(self, term: _Term) -> None:
        while True:
            key, shutdown = term.queue.get(timeout=GET_HEARTBEAT)
            if shutdown:
                return
            if key is None:
                if term.stopping.is_set():
                    return
                continue
            keys = [key]
            while len(keys) < self.batch_size:  # what else is waiting now, without blocking: one batch
                more, _ = term.queue.get(timeout=0)
                if more is None:
                    break
                keys.append(more)
            try:
                if not term.stopping.is_set():
                    self._process(term.queue, keys)
            finally:
                for k in keys:
                    term.queue.done(k)

    def _process(self, queue: RateLimitingQueue[str], keys: list[str]) -> None:
        try:
            results = self.reconciler.reconcile_many(keys)
        except Exception as exc:  # a bug: never kills the worker
            log.exception("DNSRecord reconcile failed", records=len(keys))
            results = {key: Result("error", error=str(exc)) for key in keys}
        now = time.monotonic()
        fatal: tuple[str, BaseException] | None = None
        for key in keys:
            result = results.get(key) or Result("error", error="no outcome")
            if self.on_fatal is not None and result.cause is not None and is_fatal_error(result.cause):
                fatal = fatal or (result.zone, result.cause)
                queue.forget(key)  # not retried: the process ends
            elif result.error:
                queue.add_rate_limited(key)
            else:
                queue.forget(key)
                if result.requeue_after is not None:
                    queue.add_after(key, max(0.0, result.requeue_after))
            # The history keeps the outcome without its exception: the exception's traceback holds the frames
            # of the batch that failed (every record's object, plan and write) for as long as it is kept.
            self._outcomes.append(RecordOutcome(key, replace(result, cause=None) if result.cause else result, now))
        if fatal is not None and self.on_fatal is not None:
            try:
                self.on_fatal(*fatal)  # once per batch: the records of a batch share the provider's refusal
            except Exception:  # never kills the worker
                log.exception("DNSRecord fatal-error hook failed")

    # -- observation ----------------------------------------------------------------------------------------
    def outcomes(self, key: str | None = None) -> list[RecordOutcome]:
        return self._outcomes.items(None if key is None else lambda o: o.key == key)

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` holds, re-checked after every finished reconcile (or `timeout`)."""
        return self._outcomes.wait_until(predicate, timeout)


def unwrap_provider(provider: Provider) -> Provider:
    """The provider under `--provider-cache-time`'s cache: validation passes must see the provider itself."""
    while isinstance(provider, CachedProvider):
        provider = provider.provider
    return provider


def build_dnsrecord_controller(options: Options, factory: Any, provider: Provider, api_client: Any, *,
                               namespace: str = "", workers: int = 2, clock: WallClock = SYSTEM_CLOCK,
                               rng: random.Random | None = None,
                               rate_limiter_factory: Callable[[], RateLimiter] | None = None,
                               batch_size: int = BATCH_SIZE) -> DNSRecordController:
    """The controller on `factory`'s DNSRecord informer (one namespace, or all when empty)."""
    informer = factory.informer_for(RESOURCE, namespace=namespace or None)
    store = informer.get_store()
    reconciler = Reconciler(unwrap_provider(provider), RecordAPI(api_client), store.get_by_key, options,
                            clock=clock, rng=rng)
    return DNSRecordController(reconciler, informer, workers=workers, rate_limiter_factory=rate_limiter_factory,
                               batch_size=batch_size)


class ProcessHost(Protocol):
    """What `install` uses of the long-running process (controller/process.ControllerProcess)."""

    @property
    def controller(self) -> Controller: ...

    @property
    def kube_client(self) -> Callable[[], Any] | None: ...

    @property
    def informer_factory(self) -> Callable[[], SharedInformerFactory] | None: ...

    @property
    def on_fatal(self) -> Callable[[str, BaseException], None] | None: ...

    def add_leader_task(self, start: Callable[[], None], stop: Callable[[float], bool], name: str = "") -> None: ...


def install(process: ProcessHost, options: Options, *, namespace: str = "", workers: int = 2) -> DNSRecordController:
    """Run the DNSRecord controller as a leader task of the long-running `process` (a ControllerProcess
    feature, added by cmd/ for `--source=dnsrecord` outside `--dry-run`), on its informer factory,
    Kubernetes client and provider, beside the zone controller; a failure no retry can fix goes to the
    process's `on_fatal` as the zone controller's do (set by cmd/run.py before the features run)."""
    if process.kube_client is None or process.informer_factory is None:
        from external_dns.errors import ConfigError

        raise ConfigError("--source=dnsrecord needs a Kubernetes API connection (--kubeconfig / --server)")
    provider = process.controller.registry.provider
    ctl = build_dnsrecord_controller(options, process.informer_factory(), provider, process.kube_client(),
                                     namespace=namespace, workers=workers)
    ctl.on_fatal = process.on_fatal
    process.add_leader_task(ctl.start, ctl.stop, name="dnsrecord-controller")
    return ctl


class NoEndpoints(Source):
    """`--source=dnsrecord` in the zone-wide pipeline: DNSRecords publish through their own controller, so
    they contribute no endpoints there (cmd/build_sources.build_dnsrecord)."""

    def endpoints(self) -> list[Endpoint]:
        return []
