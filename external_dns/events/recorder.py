"""Kubernetes event recorder: events.k8s.io/v1 Events (core/v1 when events.k8s.io is not served).

`EventRecorder.event(obj, type, reason, note)` never blocks: it puts the event on a bounded queue (dropped
with a warning when full) that a background thread sends. Like client-go's recorders:

* Identical events (same regarding/related object, reason, action, type and note) seen again within the
  series window (6 min after the last occurrence) are not created again: the second occurrence turns the
  Event into a series (events.k8s.io `series.count` / core `count`, PATCHed at once) and later ones only
  bump the count, which is PATCHed at most once per refresh interval (30 s).
* A per-object token bucket (burst 25, one more every 5 minutes, like the core recorder's spam filter)
  limits how many *new* Events one object can get; excess events are dropped with a log.
* Events go to the regarding object's namespace (`default` for cluster-scoped objects).
* If creating an events.k8s.io Event answers 404 and `/apis/events.k8s.io/v1` itself is missing, the
  recorder switches to core/v1 Events for good.

Reasons used by the controller: RecordReady, RecordDeleted, RecordError (any string is accepted).
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import structlog
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from external_dns.events import NORMAL, RECORD_DELETED, RECORD_ERROR, RECORD_READY, WARNING
from external_dns.informers.api import call_json, format_micro_time

log = structlog.get_logger(__name__)

# The event types and reasons live in events/__init__.py (which does not import the Kubernetes client).
__all__ = [
    "DEFAULT_ACTIONS", "MAX_NOTE_BYTES", "NORMAL", "RECORD_DELETED", "RECORD_ERROR", "RECORD_READY", "SERIES_REFRESH",
    "SERIES_WINDOW", "SPAM_BURST", "SPAM_QPS", "WARNING", "EventRecorder", "object_reference",
]

DEFAULT_ACTIONS = {RECORD_READY: "Updated", RECORD_DELETED: "Deleted", RECORD_ERROR: "FailedSync"}

MAX_NOTE_BYTES = 1024
SERIES_WINDOW = 360.0  # client-go finishTime: 6 minutes
SERIES_REFRESH = 30.0  # client-go refreshTime
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0


def object_reference(obj: Mapping[str, Any]) -> dict[str, str]:
    """An ObjectReference for a raw Kubernetes object (or an ObjectReference-shaped dict)."""
    meta = obj.get("metadata")
    if isinstance(meta, Mapping):
        src: Mapping[str, Any] = {**meta, "kind": obj.get("kind"), "apiVersion": obj.get("apiVersion")}
    else:
        src = obj
    ref = {key: str(src[key]) for key in ("kind", "apiVersion", "namespace", "name", "uid", "resourceVersion")
           if src.get(key)}
    if not ref.get("kind") or not ref.get("name"):
        raise ValueError(f"event: involved object needs kind and metadata.name, got {dict(ref)}")
    return ref


def _truncate_note(note: str) -> str:
    raw = note.encode()
    if len(raw) <= MAX_NOTE_BYTES:
        return note
    return raw[: MAX_NOTE_BYTES - 3].decode(errors="ignore") + "..."


def _rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Pending:
    regarding: dict[str, str]
    related: dict[str, str] | None
    type: str
    reason: str
    action: str
    note: str
    when: datetime

    def key(self) -> tuple[Any, ...]:
        return (tuple(sorted(self.regarding.items())),
                tuple(sorted((self.related or {}).items())), self.type, self.reason, self.action, self.note)


@dataclass
class _Series:
    """What the server has for one isomorphic event group."""

    name: str
    namespace: str
    pending: _Pending
    api: str  # "events.k8s.io" or "core"
    count: int = 1
    sent_count: int = 1
    first_seen: float = 0.0
    last_seen: float = 0.0
    last_wall: datetime = field(default_factory=lambda: datetime.now(UTC))


class _TokenBucket:
    def __init__(self, burst: int, qps: float, now: float) -> None:
        self.tokens = float(burst)
        self.burst = burst
        self.qps = qps
        self.last = now

    def take(self, now: float) -> bool:
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.qps)
        self.last = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class EventRecorder:
    """Background event sender; `start()`, `event(...)`, `flush(timeout)`, `stop(timeout)`."""

    def __init__(self, api_client: ApiClient, *, component: str = "external-dns", instance: str | None = None,
                 queue_size: int = 1000, series_window: float = SERIES_WINDOW,
                 series_refresh: float = SERIES_REFRESH, spam_burst: int = SPAM_BURST, spam_qps: float = SPAM_QPS,
                 request_timeout: float = 10.0, dry_run: bool = False,
                 now: Callable[[], float] = time.monotonic) -> None:
        if queue_size < 1:
            raise ValueError(f"EventRecorder: queue_size must be >= 1, got {queue_size}")
        self.api = api_client
        self.component = component
        self.instance = instance or f"{component}-{socket.gethostname()}"
        self.queue_size = queue_size
        self.series_window = series_window
        self.series_refresh = series_refresh
        self.spam_burst = spam_burst
        self.spam_qps = spam_qps
        self.request_timeout = request_timeout
        self.dry_run = dry_run
        self._now = now
        self.api_group = "events.k8s.io"  # switches to "core" when events.k8s.io/v1 is not served

        self._cond = threading.Condition()
        self._queue: deque[_Pending] = deque()
        self._busy = False
        self._stopping = False
        self._flush_series = False
        self._stop_deadline = float("inf")
        self._thread: threading.Thread | None = None
        self.dropped = 0
        self.sent = 0
        # worker-thread-only state
        self._series: dict[tuple[Any, ...], _Series] = {}
        self._spam: dict[tuple[str, ...], _TokenBucket] = {}

    # -- caller side ---------------------------------------------------------------------------------
    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str, *, action: str | None = None,
              related: Mapping[str, Any] | None = None) -> bool:
        """Queue an event about `obj` (raw object dict). Returns False if it was dropped."""
        if type not in (NORMAL, WARNING):
            raise ValueError(f"event type must be {NORMAL} or {WARNING}, got {type!r}")
        if not reason:
            raise ValueError("event reason must not be empty")
        pending = _Pending(regarding=object_reference(obj),
                           related=object_reference(related) if related is not None else None,
                           type=type, reason=reason, action=action or DEFAULT_ACTIONS.get(reason, reason),
                           note=_truncate_note(note), when=datetime.now(UTC))
        if self.dry_run:
            log.debug("dry run: not recording event", reason=reason, note=pending.note,
                      object=pending.regarding.get("name"))
            return True
        with self._cond:
            if self._stopping:
                return False
            if len(self._queue) >= self.queue_size:
                self.dropped += 1
                full = True
            else:
                self._queue.append(pending)
                self._cond.notify_all()
                full = False
        if full:
            log.warning("event queue full, dropping event", reason=reason, object=pending.regarding.get("name"),
                        queue_size=self.queue_size)
            return False
        return True

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued event was sent and pending series counts were PATCHed."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._flush_series = True
            self._cond.notify_all()
            while self._queue or self._busy or self._flush_series:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._thread is None or not self._thread.is_alive():
                    return False
                self._cond.wait(remaining)
            return True

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("EventRecorder already started")
        self._thread = threading.Thread(target=self._run, name="event-recorder", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop accepting events, send what is queued within `timeout`, and join the thread."""
        with self._cond:
            self._stopping = True
            self._stop_deadline = time.monotonic() + timeout * 0.8
            self._cond.notify_all()
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        if thread.is_alive():
            log.warning("event recorder did not stop in time", timeout=timeout)
            return False
        return True

    # -- worker --------------------------------------------------------------------------------------
    def _run(self) -> None:
        next_refresh = self._now() + self.series_refresh
        dropped = 0
        while True:
            with self._cond:
                while not self._queue and not self._stopping and not self._flush_series:
                    wait = next_refresh - self._now()
                    if wait <= 0:
                        break
                    self._cond.wait(min(wait, self.series_refresh))
                if self._stopping and (not self._queue or time.monotonic() >= self._stop_deadline):
                    dropped += len(self._queue)
                    self._queue.clear()
                    self._cond.notify_all()
                    break
                batch = list(self._queue)
                self._queue.clear()
                flush = self._flush_series
                self._busy = True
            try:
                for index, pending in enumerate(batch):
                    if self._stopping and time.monotonic() >= self._stop_deadline:
                        dropped += len(batch) - index
                        break
                    self._record(pending)
                if flush or self._now() >= next_refresh:
                    self._refresh_series()
                    next_refresh = self._now() + self.series_refresh
            except Exception:  # never let one bad event kill the recorder
                log.exception("event recorder error")
            finally:
                with self._cond:
                    self._busy = False
                    if flush:
                        self._flush_series = False
                    self._cond.notify_all()
        if dropped:
            log.warning("event recorder stopped with unsent events", dropped=dropped)
        with self._cond:
            self._flush_series = False
            self._cond.notify_all()

    def _record(self, pending: _Pending) -> None:
        now = self._now()
        key = pending.key()
        series = self._series.get(key)
        if series is not None and now - series.last_seen <= self.series_window:
            series.count += 1
            series.last_seen = now
            series.last_wall = pending.when
            if series.count == 2:  # becomes a series: PATCH at once, later counts on refresh
                self._send_series(key, series)
            return
        spam_key = (pending.regarding.get("kind", ""), pending.regarding.get("namespace", ""),
                    pending.regarding.get("name", ""), pending.regarding.get("uid", ""))
        bucket = self._spam.get(spam_key)
        if bucket is None:
            bucket = self._spam[spam_key] = _TokenBucket(self.spam_burst, self.spam_qps, now)
        if not bucket.take(now):
            log.warning("too many events for one object, dropping event", reason=pending.reason,
                        object=pending.regarding.get("name"))
            with self._cond:
                self.dropped += 1
            return
        created = self._create(pending)
        if created is not None:
            self._series[key] = _Series(name=created[0], namespace=created[1], pending=pending, api=created[2],
                                        first_seen=now, last_seen=now, last_wall=pending.when)
        self._expire(now)

    def _expire(self, now: float) -> None:
        for key in [k for k, s in self._series.items() if now - s.last_seen > self.series_window]:
            del self._series[key]
        for spam_key in [k for k, b in self._spam.items()
                         if b.tokens >= b.burst - 1 and now - b.last > self.series_window]:
            del self._spam[spam_key]

    def _refresh_series(self) -> None:
        for key, series in list(self._series.items()):
            if series.count > series.sent_count:
                self._send_series(key, series)
        self._expire(self._now())

    # -- API calls -----------------------------------------------------------------------------------
    def _call(self, method: str, path: str, body: Any, content_type: str = "application/json") -> Any:
        return call_json(self.api, method, path, body, timeout=self.request_timeout, content_type=content_type)

    def _events_api_served(self) -> bool:
        try:
            self._call("GET", "/apis/events.k8s.io/v1", None)
            return True
        except ApiException as exc:
            return bool(exc.status != 404)

    def _create(self, pending: _Pending) -> tuple[str, str, str] | None:
        """POST a new Event; returns (name, namespace, api) or None when it could not be sent."""
        namespace = pending.regarding.get("namespace") or "default"
        name = f"{pending.regarding['name']}.{time.time_ns():x}"
        for _ in range(2):
            api = self.api_group
            try:
                if api == "events.k8s.io":
                    self._call("POST", f"/apis/events.k8s.io/v1/namespaces/{namespace}/events",
                               self._events_v1_body(name, namespace, pending))
                else:
                    self._call("POST", f"/api/v1/namespaces/{namespace}/events",
                               self._core_body(name, namespace, pending))
                with self._cond:
                    self.sent += 1
                return name, namespace, api
            except ApiException as exc:
                if exc.status == 404 and api == "events.k8s.io" and not self._events_api_served():
                    log.info("events.k8s.io/v1 not served, falling back to core/v1 events")
                    self.api_group = "core"
                    continue
                log.warning("failed to record event", reason=pending.reason, object=pending.regarding.get("name"),
                            namespace=namespace, status=exc.status, error=exc.reason, body=str(exc.body)[:300])
                return None
            except Exception as exc:
                log.warning("failed to record event", reason=pending.reason, object=pending.regarding.get("name"),
                            namespace=namespace, error=repr(exc))
                return None
        return None

    def _send_series(self, key: tuple[Any, ...], series: _Series) -> None:
        count = series.count
        if series.api == "events.k8s.io":
            path = f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events/{series.name}"
            patch: dict[str, Any] = {"series": {"count": count,
                                                "lastObservedTime": format_micro_time(series.last_wall)}}
        else:
            path = f"/api/v1/namespaces/{series.namespace}/events/{series.name}"
            patch = {"count": count, "lastTimestamp": _rfc3339(series.last_wall)}
        try:
            self._call("PATCH", path, patch, "application/merge-patch+json")
            series.sent_count = count
            with self._cond:
                self.sent += 1
        except ApiException as exc:
            if exc.status == 404:  # the Event expired or was deleted: create it again with the count
                self._recreate(key, series)
                return
            log.warning("failed to update event series", event=series.name, namespace=series.namespace,
                        status=exc.status, error=exc.reason)
        except Exception as exc:
            log.warning("failed to update event series", event=series.name, namespace=series.namespace,
                        error=repr(exc))

    def _recreate(self, key: tuple[Any, ...], series: _Series) -> None:
        name = f"{series.pending.regarding['name']}.{time.time_ns():x}"
        try:
            if series.api == "events.k8s.io":
                body = self._events_v1_body(name, series.namespace, series.pending)
                body["series"] = {"count": series.count, "lastObservedTime": format_micro_time(series.last_wall)}
                self._call("POST", f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events", body)
            else:
                body = self._core_body(name, series.namespace, series.pending)
                body["count"] = series.count
                body["lastTimestamp"] = _rfc3339(series.last_wall)
                self._call("POST", f"/api/v1/namespaces/{series.namespace}/events", body)
            series.name = name
            series.sent_count = series.count
        except Exception as exc:
            log.warning("failed to re-create event series", event=name, error=repr(exc))
            self._series.pop(key, None)

    def _events_v1_body(self, name: str, namespace: str, p: _Pending) -> dict[str, Any]:
        body: dict[str, Any] = {
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "eventTime": format_micro_time(p.when),
            "reportingController": self.component, "reportingInstance": self.instance,
            "action": p.action, "reason": p.reason, "regarding": p.regarding, "note": p.note, "type": p.type,
        }
        if p.related:
            body["related"] = p.related
        return body

    def _core_body(self, name: str, namespace: str, p: _Pending) -> dict[str, Any]:
        stamp = _rfc3339(p.when)
        body: dict[str, Any] = {
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": namespace},
            "involvedObject": p.regarding, "reason": p.reason, "message": p.note, "type": p.type,
            "source": {"component": self.component, "host": socket.gethostname()},
            "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1,
            "reportingComponent": self.component, "reportingInstance": self.instance, "action": p.action,
        }
        if p.related:
            body["related"] = p.related
        return body
