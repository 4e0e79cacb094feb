"""The per-record DNSRecord controller: a shared informer on kuadrant.io/v1alpha1 DNSRecords feeds its own
rate-limited workqueue keyed `namespace/name` (sample-controller pattern); worker threads run
`Reconciler.reconcile_many(keys)` on the keys waiting when they wake (at most `batch_size`), so the records of
one zone share a provider write. `install` runs it as a leader task of the long-running process; the rules
(requeues, restarts under leader election) sit beside the methods that implement them.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from external_dns.controller.dnsrecord.clock import SYSTEM_CLOCK, WallClock
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler, Result
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import RESOURCE
from external_dns.controller.workers import Done, WorkerLoop
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
from external_dns.workqueue import RateLimiter

if TYPE_CHECKING:
    from external_dns.controller.pipeline import Pipeline

log = structlog.get_logger(__name__)

SOURCE_NAME = "dnsrecord"
QUEUE_NAME = "dnsrecords"
# Keys a worker takes at once (those already waiting; it never waits for more): their provider writes are
# joined per zone (reconcile.py). Bounded so one worker's batch stays short and the others get work too.
BATCH_SIZE = 64


@dataclass(frozen=True)
class RecordOutcome:
    """One finished reconcile."""

    key: str
    result: Result
    finished: float  # monotonic


class DNSRecordController:
    """Key-per-record workers (controller/workers.py) over a `Reconciler` (see the module docstring)."""

    def __init__(self, reconciler: Reconciler, informer: SharedIndexInformer, *, workers: int = 2,
                 rate_limiter_factory: Callable[[], RateLimiter] | None = None,
                 queue_name: str = QUEUE_NAME, batch_size: int = BATCH_SIZE) -> None:
        self.reconciler = reconciler
        self.informer = informer
        self.loop: WorkerLoop[RecordOutcome] = WorkerLoop(
            "dnsrecord", self._handle, workers=workers, queue_name=queue_name,
            rate_limiter_factory=rate_limiter_factory, batch_size=batch_size)
        self.registration = informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._on_add, on_update=self._on_update, on_delete=self._on_delete))

    @property
    def on_fatal(self) -> Callable[[str, BaseException], None] | None:
        """A failure no retry can fix (the provider refused our credentials) goes to this hook (zone,
        exception) instead of a requeue (`install` sets the process's). None: retried with back-off."""
        return self.loop.on_fatal

    @on_fatal.setter
    def on_fatal(self, hook: Callable[[str, BaseException], None] | None) -> None:
        self.loop.on_fatal = hook

    # -- events ---------------------------------------------------------------------------------------------
    def enqueue(self, key: str) -> None:
        self.loop.add(key)

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
        return self.loop.running()

    def start(self) -> None:
        """Start the workers (no-op when running) with every cached record queued."""
        if self.loop.start(self.informer.get_store().list_keys()):
            log.info("DNSRecord controller started", workers=self.loop.workers)

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop taking work, let in-flight reconciles finish within `timeout`, join the threads."""
        ok = self.loop.stop(timeout)
        log.info("DNSRecord controller stopped", clean=ok)
        return ok

    def close(self, timeout: float = 10.0) -> bool:
        """`stop` and unregister from the informer."""
        ok = self.stop(timeout)
        self.informer.remove_event_handler(self.registration)
        return ok

    # -- one batch ------------------------------------------------------------------------------------------
    def _handle(self, keys: list[str]) -> dict[str, Done[RecordOutcome]]:
        try:
            results = self.reconciler.reconcile_many(keys)
        except Exception as exc:  # a bug: never kills the worker
            log.exception("DNSRecord reconcile failed", records=len(keys))
            results = {key: Result("error", error=str(exc)) for key in keys}
        now = time.monotonic()
        done: dict[str, Done[RecordOutcome]] = {}
        for key in keys:
            result = results.get(key) or Result("error", error="no outcome")
            error = result.cause or (RuntimeError(result.error) if result.error else None)
            # The history keeps the outcome without its exception: the exception's traceback holds the frames
            # of the batch that failed (every record's object, plan and write) for as long as it is kept.
            kept = replace(result, cause=None) if result.cause else result
            done[key] = Done(RecordOutcome(key, kept, now), error=error, zone=result.zone,
                             requeue_after=result.requeue_after)
        return done

    # -- observation ----------------------------------------------------------------------------------------
    def outcomes(self, key: str | None = None) -> list[RecordOutcome]:
        return self.loop.history.items(None if key is None else lambda o: o.key == key)

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until `predicate()` holds, re-checked after every finished reconcile (or `timeout`)."""
        return self.loop.history.wait_until(predicate, timeout)


def unwrap_provider(provider: Provider) -> Provider:
    """The provider under `--provider-cache-time`'s cache: validation passes must see the provider itself."""
    while isinstance(provider, CachedProvider):
        provider = provider.provider
    return provider


def build_dnsrecord_controller(options: Options, factory: Any, provider: Provider, api_client: Any, *,
                               namespace: str = "", workers: int = 2, clock: WallClock = SYSTEM_CLOCK,
                               rng: random.Random | None = None,
                               rate_limiter_factory: Callable[[], RateLimiter] | None = None,
                               batch_size: int = BATCH_SIZE, pipeline: Pipeline | None = None) -> DNSRecordController:
    """The controller on `factory`'s DNSRecord informer (one namespace, or all when empty), through
    `pipeline`'s steps (the process's: its safety gate, leader fence and event recorder)."""
    informer = factory.informer_for(RESOURCE, namespace=namespace or None)
    store = informer.get_store()
    reconciler = Reconciler(unwrap_provider(provider), RecordAPI(api_client), store.get_by_key, options,
                            clock=clock, rng=rng, pipeline=pipeline)
    return DNSRecordController(reconciler, informer, workers=workers, rate_limiter_factory=rate_limiter_factory,
                               batch_size=batch_size)


class ProcessHost(Protocol):
    """What `install` uses of the long-running process (controller/process.ControllerProcess)."""

    @property
    def pipeline(self) -> Pipeline: ...

    @property
    def provider(self) -> Provider: ...

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
    process's `on_fatal` as the zone controller's do (set by cmd/run.py before the features run). Its writes
    go through the process's pipeline: the safety gate, the leader-election fence and the record events, as
    the zone controller's."""
    if process.kube_client is None or process.informer_factory is None:
        from external_dns.errors import ConfigError

        raise ConfigError("--source=dnsrecord needs a Kubernetes API connection (--kubeconfig / --server)")
    ctl = build_dnsrecord_controller(options, process.informer_factory(), process.provider, process.kube_client(),
                                     namespace=namespace, workers=workers, pipeline=process.pipeline)
    ctl.on_fatal = process.on_fatal
    process.add_leader_task(ctl.start, ctl.stop, name="dnsrecord-controller")
    return ctl


class NoEndpoints(Source):
    """`--source=dnsrecord` in the zone-wide pipeline: DNSRecords publish through their own controller, so
    they contribute no endpoints there (cmd/build_sources.build_dnsrecord)."""

    def endpoints(self) -> list[Endpoint]:
        return []
