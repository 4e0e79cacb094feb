"""The long-running process around the zone controller: the health/metrics server, informers started and
synced, leader election, Kubernetes Events, features wired in by cmd/, and a bounded shutdown on `stop`
(SIGTERM/SIGINT)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import structlog

from external_dns.controller.controller import Controller
from external_dns.controller.features import attach_events
from external_dns.controller.health import HealthServer, WorkerWatchdog
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.controller.pipeline import Pipeline
from external_dns.controller.zone_controller import ZoneController
from external_dns.errors import ConfigError
from external_dns.events.emit_filter import filter_events
from external_dns.providers.provider import Provider

if TYPE_CHECKING:  # leader election and the recorder need the Kubernetes client: imported only when enabled
    from external_dns.controller.leader_election import LeaderElectionOptions, LeaderElector
    from external_dns.events.emit_filter import EmitFilter
    from external_dns.events.recorder import EventRecorder

log = structlog.get_logger(__name__)

DEFAULT_SHUTDOWN_TIMEOUT = 10.0
DEFAULT_CACHE_SYNC_TIMEOUT = 60.0
DEFAULT_STUCK_AFTER = 600.0
_WAIT_SLICE = 1.0


@runtime_checkable
class LazyClient(Protocol):
    """A Kubernetes client made on first use (cmd/wiring.KubeClient): `created` once something needed it. The
    process sends Events only then (a process whose sources never needed the API server sends none)."""

    def __call__(self) -> Any: ...

    @property
    def created(self) -> bool: ...


class NotLeaderError(Exception):
    """A write was refused because this process does not hold the leader election Lease."""


class _LeaderTask:
    def __init__(self, name: str, start: Callable[[], None], stop: Callable[[float], bool]) -> None:
        self.name = name
        self.start = start
        self.stop = stop


# A feature wired in by cmd/ (another controller, live plan outputs): called with the process before the
# informers start; it may add leader tasks and use the informer factory and the Kubernetes client.
ProcessFeature = Callable[["ControllerProcess"], None]


@dataclass(frozen=True)
class ProcessOptions:
    """What the long-running process needs from the command line."""

    metrics_address: str = ":7979"
    workers: int = 2
    interval: float = 60.0
    min_event_sync_interval: float = 5.0
    events: bool = False  # informer events schedule syncs (--events)
    dry_run: bool = False
    leader_election: LeaderElectionOptions | None = None  # None: no leader election
    events_emit: tuple[str, ...] = ()  # --events-emit: the record events to send (empty: none, as upstream)


class ControllerProcess:
    """Runs the controller until `stop` is set (see the module docstring)."""

    def __init__(self, options: ProcessOptions, controller: Controller, *, stop: threading.Event,
                 kube_client: Callable[[], Any] | None = None,
                 informer_factory: LazyInformerFactory | None = None, emit_events: bool | None = None,
                 identity: str | None = None, shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
                 cache_sync_timeout: float = DEFAULT_CACHE_SYNC_TIMEOUT,
                 stuck_after: float = DEFAULT_STUCK_AFTER, features: Sequence[ProcessFeature] = ()) -> None:
        self.options = options
        self.features = list(features)
        self.controller = controller
        self.stop_event = stop
        self.kube_client = kube_client
        self.informer_factory = informer_factory
        self.identity = identity
        self.shutdown_timeout = shutdown_timeout
        self.cache_sync_timeout = cache_sync_timeout
        self.watchdog = WorkerWatchdog(stuck_after)
        self.emit_events = emit_events
        self.server: HealthServer | None = None
        self.recorder: EventRecorder | EmitFilter | None = None
        self.elector: LeaderElector | None = None
        self.synced = threading.Event()
        # A failure no retry can fix (zone, exception): set by cmd/ (run.FatalStop) for the controllers the
        # features add (the DNSRecord controller); the zone controller has its own hook (on_fatal).
        self.on_fatal: Callable[[str, BaseException], None] | None = None
        self.zone_controller = ZoneController(
            controller, workers=options.workers, interval=options.interval,
            min_event_sync_interval=options.min_event_sync_interval, watchdog=self.watchdog)
        self._tasks: list[_LeaderTask] = [_LeaderTask("zone-controller", self.zone_controller.start,
                                                      self.zone_controller.stop)]
        self._leading_lock = threading.Lock()
        self._leading = False

    # -- extension points ----------------------------------------------------------------------------------
    @property
    def pipeline(self) -> Pipeline:
        """The pipeline's steps every writer of this process goes through (the zone controller's Controller)."""
        return self.controller

    @property
    def provider(self) -> Provider:
        return self.controller.registry.provider

    def add_leader_task(self, start: Callable[[], None], stop: Callable[[float], bool], name: str = "") -> None:
        """Run `start()` when this process starts leading (at once without leader election) and
        `stop(timeout)` when it stops leading or shuts down."""
        self._tasks.append(_LeaderTask(name or getattr(start, "__qualname__", "task"), start, stop))

    # -- health --------------------------------------------------------------------------------------------
    def ready(self) -> bool:
        if not self.synced.is_set():
            return False
        return self.elector is None or bool(self.elector.ready())

    def leading(self) -> bool:
        with self._leading_lock:
            return self._leading

    # -- leadership ------------------------------------------------------------------------------------------
    def _start_leading(self) -> None:
        with self._leading_lock:
            if self._leading:
                return
            self._leading = True
        log.info("Starting workers", **({"identity": self.identity} if self.identity else {}))
        for task in self._tasks:
            try:
                task.start()
            except Exception:
                log.exception("failed to start", task=task.name)

    def _stop_leading(self, timeout: float) -> bool:
        with self._leading_lock:
            if not self._leading:
                return True
            self._leading = False
        deadline = time.monotonic() + timeout
        ok = True
        for task in self._tasks:  # signal them in turn; each waits for its own in-flight work
            try:
                ok = bool(task.stop(max(0.0, deadline - time.monotonic()))) and ok
            except Exception:
                log.exception("failed to stop", task=task.name)
                ok = False
        return ok

    def _fence(self, zone: str | None, *_: Any) -> None:
        if self.elector is not None and not self.elector.is_leader():
            raise NotLeaderError(f"not writing zone {zone!r}: this process is not the leader any more")

    # -- the run ---------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Start everything, wait for `stop`, shut down. Returns the process exit code.

        1. `/healthz` (fails when a worker is stuck on one zone longer than `stuck_after`), `/readyz`
           (informers synced and, with leader election, leading or standing by) and `/metrics` on
           `metrics_address` (a bad address is a ConfigError; one that cannot be bound exits 1).
        2. With `events`, informer events schedule syncs; the features run; the shared informers must
           sync within `cache_sync_timeout` (60 s, as external-dns), else exit 1.
        3. Without leader election the workers start at once; with it only the leader runs them, losing
           the lease stops them and a fence before every write refuses it when not leading any more.
        4. On `stop`: stop taking work, let in-flight reconciles finish, release the Lease, flush events,
           stop the informers and the server, all within `shutdown_timeout` (10 s); exit 0."""
        try:
            code = self._start()
        except ConfigError:
            self.shutdown()
            raise
        except Exception as exc:  # anything else at start-up: stop what was started, exit 1
            log.error(f"failed to start: {exc}", error_type=type(exc).__name__)
            code = 1
        if code is None:
            while not self.stop_event.wait(60.0):
                pass
            code = 0
        clean = self.shutdown()
        if not clean:
            log.warning("shutdown did not finish in time", timeout=self.shutdown_timeout)
        return code

    def _start(self) -> int | None:
        options = self.options
        self.server = HealthServer(options.metrics_address, watchdog=self.watchdog,
                                   ready_checks={"informers-synced": self.synced.is_set,
                                                 "leader-election": self.ready})
        try:
            self.server.start()
        except ValueError as exc:
            self.server = None
            raise ConfigError(str(exc)) from None
        except OSError as exc:
            log.error(f"cannot serve metrics on --metrics-address={options.metrics_address}: {exc}")
            self.server = None
            return 1
        log.info("Serving /healthz, /readyz and /metrics", url=self.server.url)

        if self._events_wanted():
            from external_dns.events.recorder import EventRecorder

            assert self.kube_client is not None
            self.recorder = filter_events(EventRecorder(self.kube_client(), dry_run=options.dry_run),
                                          options.events_emit)
            self.recorder.start()
        attach_events(self.controller, self.recorder)

        if options.events:
            self.controller.source.add_event_handler(self.zone_controller.on_event)

        for feature in self.features:
            feature(self)

        if not self._sync_informers():
            return None if self.stop_event.is_set() else 1

        if options.leader_election is not None:
            from external_dns.controller.leader_election import leader_elector

            if self.kube_client is None:
                raise ConfigError("--leader-elect needs a Kubernetes API connection (--kubeconfig / --server)")
            callbacks: dict[str, Any] = {"on_started_leading": self._start_leading,
                                         "on_stopped_leading": self._on_stopped_leading}
            if self.identity:
                callbacks["identity"] = self.identity
            self.elector = leader_elector(self.kube_client(), options.leader_election, **callbacks)
            self.identity = self.elector.identity
            self.controller.add_pre_apply_check(self._fence)
            self.elector.start()
            log.info("Waiting for leadership", lease=self.elector.lock.describe(), identity=self.identity)
        else:
            self._start_leading()
        return None

    def _events_wanted(self) -> bool:
        if self.emit_events is not None:
            return self.emit_events and self.kube_client is not None
        client = self.kube_client
        return isinstance(client, LazyClient) and client.created and not self.options.dry_run

    def _on_stopped_leading(self) -> None:
        election = self.options.leader_election
        assert election is not None  # only called by the elector
        grace = election.lease_duration - election.renew_deadline
        self._stop_leading(max(0.5, min(grace, self.shutdown_timeout * 0.6)))

    def _sync_informers(self) -> bool:
        """Start the shared informers (if any) and wait for their caches; a stop ends the wait early."""
        if self.informer_factory is None or not self.informer_factory.created:
            self.synced.set()
            return True
        factory = self.informer_factory()
        factory.start()
        deadline = time.monotonic() + self.cache_sync_timeout
        while not self.stop_event.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log.error("failed to sync the informer caches", timeout=self.cache_sync_timeout)
                return False
            if factory.wait_for_cache_sync(min(_WAIT_SLICE, remaining)):
                self.synced.set()
                log.info("Informer caches synced", informers=len(factory.informers()))
                return True
        return False

    def shutdown(self) -> bool:
        """Stop work, release the Lease, flush events, stop informers and the server within the timeout."""
        deadline = time.monotonic() + self.shutdown_timeout

        def remaining(share: float = 1.0) -> float:
            return max(0.0, (deadline - time.monotonic()) * share)

        ok = True
        if self.elector is not None:
            # stop() calls on_stopped_leading (stops the workers) before releasing the Lease
            ok = self.elector.stop(remaining(0.8)) and ok
            ok = self._stop_leading(remaining(0.5)) and ok
        else:
            ok = self._stop_leading(remaining(0.6)) and ok
        if self.recorder is not None:
            ok = self.recorder.stop(remaining(0.4)) and ok
        if self.informer_factory is not None and self.informer_factory.created:
            ok = self.informer_factory().shutdown(remaining(0.6)) and ok
        if self.server is not None:
            self.server.stop(remaining())
        log.info("Shut down", clean=ok)
        return ok
