"""Leader election through a coordination.k8s.io/v1 Lease, with client-go `tools/leaderelection` semantics.

* A candidate takes the Lease when it does not exist, when its holder is empty (released), or when the
  holder has not changed it for `leaseDurationSeconds` as *observed locally* (no clock-skew dependence).
* The leader renews every `retry_period`; when renewals keep failing for `renew_deadline` it gives up
  leadership (`on_stopped_leading`) and goes back to standing by. `is_leader()` turns false no later than
  `renew_deadline` after the last successful renewal even if the elector thread is stuck in a request, and
  since `lease_duration > renew_deadline` no other candidate can take over before that.
* Writes are optimistic: PUT with the read `resourceVersion`; a 409 means someone else won this round.
* On `stop()` the leader calls `on_stopped_leading`, then releases the Lease (holderIdentity "",
  leaseDurationSeconds 1) so a standby takes over at its next retry instead of after a full lease duration.
* Times are MicroTime: UTC with exactly 6 fraction digits and `Z` (the apiserver rejects anything else).

The Lease is sent and read as raw JSON through `ApiClient.call_api(..., _preload_content=False)`.
Callbacks run on the elector thread and must return quickly (start/stop work elsewhere).
"""

from __future__ import annotations

import random
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from prometheus_client import Gauge

from external_dns.informers.api import call_json, format_micro_time

log = structlog.get_logger(__name__)

JITTER_FACTOR = 1.2
MIN_REQUEST_TIMEOUT = 0.2

LEADER_STATUS = Gauge("leader_election_master_status",
                      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
                      "1 indicates master. 'name' is the string used to identify the lease.", ["name"])


def parse_micro_time(text: str | None) -> datetime | None:
    """Parse an RFC 3339 time (with or without fraction); None when absent or unparsable."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


@dataclass(frozen=True)
class LeaderElectionRecord:
    """The election-relevant part of a Lease spec."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: str | None = None
    renew_time: str | None = None
    leader_transitions: int = 0

    @classmethod
    def from_lease(cls, lease: dict[str, Any]) -> LeaderElectionRecord:
        spec = lease.get("spec") or {}
        return cls(holder_identity=spec.get("holderIdentity") or "",
                   lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
                   acquire_time=spec.get("acquireTime"), renew_time=spec.get("renewTime"),
                   leader_transitions=int(spec.get("leaseTransitions") or 0))

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"holderIdentity": self.holder_identity,
                                "leaseDurationSeconds": self.lease_duration_seconds,
                                "leaseTransitions": self.leader_transitions}
        if self.acquire_time:
            spec["acquireTime"] = self.acquire_time
        if self.renew_time:
            spec["renewTime"] = self.renew_time
        return spec


class LeaseLock:
    """GET/POST/PUT of one coordination.k8s.io/v1 Lease as raw JSON."""

    def __init__(self, api_client: ApiClient, namespace: str, name: str) -> None:
        self.api = api_client
        self.namespace = namespace
        self.name = name

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"

    def _path(self, with_name: bool) -> str:
        base = f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases"
        return f"{base}/{self.name}" if with_name else base

    def _call(self, method: str, path: str, body: dict[str, Any] | None, timeout: float) -> dict[str, Any]:
        parsed = call_json(self.api, method, path, body, timeout=timeout)
        if not isinstance(parsed, dict):
            raise ValueError(f"Lease {self.describe()}: unexpected response {parsed!r:.200}")
        return parsed

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The Lease, or None when it does not exist."""
        try:
            return self._call("GET", self._path(True), None, timeout)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def create(self, record: LeaderElectionRecord, timeout: float) -> dict[str, Any]:
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace}, "spec": record.to_spec()}
        return self._call("POST", self._path(False), body, timeout)

    def update(self, lease: dict[str, Any], record: LeaderElectionRecord, timeout: float) -> dict[str, Any]:
        """PUT the record with the Lease's resourceVersion (409 on a concurrent change)."""
        metadata = dict(lease.get("metadata") or {})
        metadata.pop("managedFields", None)
        body = {**lease, "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": metadata,
                "spec": {**(lease.get("spec") or {}), **record.to_spec()}}
        if not record.holder_identity:
            body["spec"]["holderIdentity"] = ""
        return self._call("PUT", self._path(True), body, timeout)


def default_identity() -> str:
    return f"{socket.gethostname()}_{uuid.uuid4()}"


class LeaderElector:
    """Runs the election in a background thread (`start()` / `stop(timeout)`)."""

    def __init__(self, api_client: ApiClient, *, name: str, namespace: str = "default",
                 identity: str | None = None, lease_duration: float = 15.0, renew_deadline: float = 10.0,
                 retry_period: float = 2.0, on_started_leading: Callable[[], None] | None = None,
                 on_stopped_leading: Callable[[], None] | None = None,
                 on_new_leader: Callable[[str], None] | None = None, release_on_cancel: bool = True,
                 request_timeout: float = 10.0) -> None:
        if lease_duration <= renew_deadline:
            raise ValueError(f"leader election: lease duration ({lease_duration}s) must be greater than the "
                             f"renew deadline ({renew_deadline}s)")
        if retry_period <= 0 or renew_deadline <= JITTER_FACTOR * retry_period:
            raise ValueError(f"leader election: renew deadline ({renew_deadline}s) must be greater than "
                             f"{JITTER_FACTOR} x retry period ({retry_period}s)")
        if lease_duration < 1 or lease_duration != int(lease_duration):
            raise ValueError(f"leader election: lease duration must be a whole number of seconds >= 1, "
                             f"got {lease_duration}")
        if not name or not namespace:
            raise ValueError("leader election: lease name and namespace must not be empty")
        self.lock = LeaseLock(api_client, namespace, name)
        self.identity = identity or default_identity()
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.on_started_leading = on_started_leading
        self.on_stopped_leading = on_stopped_leading
        self.on_new_leader = on_new_leader
        self.release_on_cancel = release_on_cancel
        self.request_timeout = request_timeout

        self._state = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._leading = False
        self._last_renew = 0.0  # monotonic time taken before the last successful acquire/renew request
        self._last_contact = float("-inf")  # monotonic time of the last successful read of the Lease
        self._observed: LeaderElectionRecord | None = None
        self._observed_time = 0.0
        self._reported_leader = ""
        LEADER_STATUS.labels(name=name).set(0)

    # -- public state --------------------------------------------------------------------------------
    def is_leader(self) -> bool:
        """True while this candidate holds the Lease and renewed it within the renew deadline."""
        with self._state:
            return self._leading and time.monotonic() - self._last_renew < self.renew_deadline

    def get_leader(self) -> str:
        """The holder identity last observed ("" when none)."""
        with self._state:
            return self._observed.holder_identity if self._observed else ""

    def standing_by(self) -> bool:
        """Running and in contact with the API server (read the Lease within one lease duration)."""
        with self._state:
            recent = time.monotonic() - self._last_contact < self.lease_duration
        return self.running() and recent

    def ready(self) -> bool:
        """Readiness for /readyz: leading or standing by."""
        return self.is_leader() or self.standing_by()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("LeaderElector already started")
        self._thread = threading.Thread(target=self._run, name=f"leader-elector-{self.lock.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop campaigning; a leader calls on_stopped_leading and releases the Lease. Returns True when the
        thread ended (worst case: one in-flight request plus the release, each bounded by renew_deadline)."""
        self._stop.set()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        if thread.is_alive():
            log.warning("leader elector did not stop in time", lease=self.lock.describe(), timeout=timeout)
            return False
        return True

    # -- the loop ------------------------------------------------------------------------------------
    def _jittered(self, period: float) -> float:
        return period * (1.0 + random.random() * JITTER_FACTOR)

    def _run(self) -> None:
        log.info("leader election started", lease=self.lock.describe(), identity=self.identity)
        try:
            while not self._stop.is_set():
                if not self._acquire():
                    break
                self._renew_until_lost_or_stopped()
        except Exception:
            log.exception("leader elector crashed", lease=self.lock.describe())
            with self._state:
                was_leading, self._leading = self._leading, False
            if was_leading:
                self._stopped_leading()
        log.info("leader election stopped", lease=self.lock.describe(), identity=self.identity)

    def _acquire(self) -> bool:
        """Retry until the Lease is ours (True) or we are stopped (False)."""
        while not self._stop.is_set():
            started = time.monotonic()
            if self._try_acquire_or_renew(self.request_timeout):
                with self._state:
                    self._leading = True
                    self._last_renew = started
                LEADER_STATUS.labels(name=self.lock.name).set(1)
                log.info("successfully acquired lease", lease=self.lock.describe(), identity=self.identity)
                self._callback(self.on_started_leading)
                return True
            self._stop.wait(self._jittered(self.retry_period))
        return False

    def _renew_until_lost_or_stopped(self) -> None:
        while not self._stop.wait(self.retry_period):
            started = time.monotonic()
            with self._state:
                remaining = self.renew_deadline - (started - self._last_renew)
            if remaining > 0 and self._try_acquire_or_renew(max(MIN_REQUEST_TIMEOUT,
                                                                min(self.request_timeout, remaining))):
                with self._state:
                    self._last_renew = started
                continue
            with self._state:
                expired = time.monotonic() - self._last_renew >= self.renew_deadline
            if expired:
                log.warning("leader election lost: failed to renew lease", lease=self.lock.describe(),
                            identity=self.identity, renew_deadline=self.renew_deadline)
                self._stopped_leading()
                return
        # stopped while leading: stop the work first, then let the others in
        self._stopped_leading()
        if self.release_on_cancel:
            self._release()

    def _stopped_leading(self) -> None:
        with self._state:
            self._leading = False
        LEADER_STATUS.labels(name=self.lock.name).set(0)
        self._callback(self.on_stopped_leading)

    def _callback(self, fn: Callable[[], None] | None) -> None:
        if fn is None:
            return
        try:
            fn()
        except Exception:
            log.exception("leader election callback failed", lease=self.lock.describe())

    def _observe(self, record: LeaderElectionRecord, now: float) -> None:
        with self._state:
            if record != self._observed:
                self._observed = record
                self._observed_time = now
            self._last_contact = now
            holder = record.holder_identity
            report = bool(holder) and holder != self._reported_leader
            if report:
                self._reported_leader = holder
        if report:
            log.info("new leader elected", lease=self.lock.describe(), leader=holder)
            if self.on_new_leader is not None:
                try:
                    self.on_new_leader(holder)
                except Exception:
                    log.exception("on_new_leader callback failed", lease=self.lock.describe())

    def _try_acquire_or_renew(self, timeout: float) -> bool:
        now_wall = format_micro_time(datetime.now(UTC))
        desired = LeaderElectionRecord(holder_identity=self.identity,
                                       lease_duration_seconds=int(self.lease_duration),
                                       acquire_time=now_wall, renew_time=now_wall)
        try:
            lease = self.lock.get(timeout)
            if lease is None:
                self.lock.create(desired, timeout)
                self._observe(desired, time.monotonic())
                return True
            old = LeaderElectionRecord.from_lease(lease)
            now = time.monotonic()
            self._observe(old, now)
            with self._state:
                observed_time = self._observed_time
            held_by_other = old.holder_identity and old.holder_identity != self.identity
            if held_by_other and observed_time + old.lease_duration_seconds > now:
                log.debug("lease is held by another candidate and not yet expired",
                          lease=self.lock.describe(), holder=old.holder_identity)
                return False
            if old.holder_identity == self.identity:
                desired = LeaderElectionRecord(self.identity, desired.lease_duration_seconds, old.acquire_time,
                                               now_wall, old.leader_transitions)
            else:
                desired = LeaderElectionRecord(self.identity, desired.lease_duration_seconds, now_wall, now_wall,
                                               old.leader_transitions + 1)
            self.lock.update(lease, desired, timeout)
            self._observe(desired, time.monotonic())
            return True
        except ApiException as exc:
            if exc.status == 409:  # resourceVersion conflict or AlreadyExists: someone else won this round
                log.debug("lease changed concurrently, retrying later", lease=self.lock.describe(),
                          status=exc.status)
            else:
                log.warning("error acquiring or renewing lease", lease=self.lock.describe(), status=exc.status,
                            reason=exc.reason)
            return False
        except Exception as exc:  # network errors, timeouts, bad JSON: retry at the next period
            log.warning("error acquiring or renewing lease", lease=self.lock.describe(), error=repr(exc))
            return False

    def _release(self) -> None:
        """Give the Lease up: holderIdentity "" and a 1 s lease, keeping the transition count."""
        timeout = max(MIN_REQUEST_TIMEOUT, min(self.request_timeout, self.renew_deadline / 2))
        try:
            lease = self.lock.get(timeout)
            if lease is None:
                return
            old = LeaderElectionRecord.from_lease(lease)
            if old.holder_identity != self.identity:
                return
            now_wall = format_micro_time(datetime.now(UTC))
            self.lock.update(lease, LeaderElectionRecord("", 1, now_wall, now_wall, old.leader_transitions),
                             timeout)
            log.info("released lease", lease=self.lock.describe(), identity=self.identity)
        except Exception as exc:
            log.warning("failed to release lease", lease=self.lock.describe(), error=repr(exc))


@dataclass(frozen=True)
class LeaderElectionOptions:
    """The `--leader-elect-*` settings."""

    name: str = "external-dns-py"
    namespace: str = "default"
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    request_timeout: float = 10.0


def leader_elector(api_client: ApiClient, options: LeaderElectionOptions, **callbacks: Any) -> LeaderElector:
    """A LeaderElector for `options`; `callbacks` are passed through (on_started_leading,
    on_stopped_leading, on_new_leader, identity, release_on_cancel)."""
    return LeaderElector(api_client, name=options.name, namespace=options.namespace,
                         lease_duration=options.lease_duration, renew_deadline=options.renew_deadline,
                         retry_period=options.retry_period, request_timeout=options.request_timeout, **callbacks)
