"""Reflector: keeps a sink (the informer) in step with the API server by paged LIST then WATCH.

Behaviour (client-go `tools/cache/reflector.go` + `tools/pager`, without watch-list streaming):
- LIST: first `resourceVersion=0&limit=<page>`; after a 410 `resourceVersion` unset with a limit; after
  other failures the last synced RV without a limit (never an RV other than "0" together with a limit).
  Continuations carry `continue` and the limit but no resourceVersion; an expired continuation falls back
  to one unpaginated list at the original RV. A 410 on the list itself retries at once with RV unset.
- WATCH from the last RV with `allowWatchBookmarks=true`, `timeoutSeconds` random in [300, 600] and a
  client `(connect, read)` timeout, so a silent connection is noticed. A clean close, a read timeout or a
  broken stream re-watches from exactly the last event's or BOOKMARK's RV without relisting.
- A 410 (HTTP or ERROR event) relists with RV unset; 429 and connection failures re-watch; 5xx and other
  ERROR events relist. Every failed request waits one `Backoff` step (0.8 s doubling to 30 s, jitter,
  reset after 2 quiet minutes; Retry-After honoured).
- Label and field selectors go to the server on every list and watch; namespaced informers use the
  namespaced path.
"""

from __future__ import annotations

import collections
import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from external_dns.informers import metrics
from external_dns.informers.api import (
    ApiStatusError,
    Params,
    Timeout,
    TransportError,
    WatchDecodeError,
    WatchStream,
    list_page,
)
from external_dns.informers.backoff import MAX_RETRY_AFTER, Backoff
from external_dns.informers.gcpause import gc_paused
from external_dns.informers.keys import Obj
from external_dns.informers.resource import Resource

log = structlog.get_logger(__name__)

WATCH_EVENT_TYPES = ("ADDED", "MODIFIED", "DELETED")


class Watch(Protocol):
    """An open watch: iterate for event dicts; `close()` from any thread ends the iteration."""

    def __iter__(self) -> Iterator[dict[str, Any]]: ...

    def close(self) -> None: ...

    def release(self) -> None: ...


class Closable(Protocol):
    def shutdown(self) -> None: ...


class ListerWatcher(Protocol):
    """Where a reflector lists and watches (client-go's `cache.ListerWatcher`). `list` returns one page as
    a raw List dict whose `items` are what `prepare` made of each listed object (the objects themselves
    without it), and tells `in_flight` the response being read (so `stop()` can cut it), then None; both
    raise ApiStatusError / TransportError."""

    def list(self, params: Params, timeout: Timeout,
             in_flight: Callable[[Closable | None], None] | None = None,
             prepare: Callable[[Any], Any] | None = None) -> dict[str, Any]: ...

    def watch(self, params: Params, timeout: Timeout) -> Watch: ...


class ApiListerWatcher:
    """The API server at `path`, through a `kubernetes.client.ApiClient`'s configuration and pool."""

    def __init__(self, api_client: Any, path: str) -> None:
        self.api_client = api_client
        self.path = path

    def list(self, params: Params, timeout: Timeout,
             in_flight: Callable[[Closable | None], None] | None = None,
             prepare: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        return list_page(self.api_client, self.path, params, timeout, in_flight, prepare)

    def watch(self, params: Params, timeout: Timeout) -> Watch:
        return WatchStream(self.api_client, self.path, params, timeout)


class ReflectorSink(Protocol):
    """The informer. A list goes in as `list_item` of each object, as soon as it is read (while the rest of
    the answer is still coming), then `replace_listed` of their results once the list is whole."""

    def list_item(self, item: Any) -> Any: ...

    def replace_listed(self, entries: list[Any], resource_version: str) -> None: ...

    def apply(self, event_type: str, obj: Obj) -> None: ...


@dataclass
class ReflectorOptions:
    """Tunables; the defaults are client-go's (page 500, watch 300-600 s) plus a 90 s read timeout
    (bookmarks arrive about every 60 s)."""

    page_size: int = 500
    min_watch_timeout: int = 300
    max_watch_timeout: int = 600
    connect_timeout: float = 5.0
    watch_read_timeout: float = 90.0
    list_read_timeout: float = 60.0
    very_short_watch: float = 1.0
    backoff_factory: Callable[[], Backoff] = field(default=Backoff)


class Reflector:
    """LIST+WATCH loop for one (resource, namespace, selectors); `run()` blocks until `stop()`."""

    def __init__(self, api_client: Any, resource: Resource, sink: ReflectorSink, *, namespace: str | None = None,
                 label_selector: str | None = None, field_selector: str | None = None,
                 options: ReflectorOptions | None = None, name: str | None = None,
                 lister_watcher: ListerWatcher | None = None) -> None:
        self.api_client = api_client
        self.resource = resource
        self.sink = sink
        self.namespace = namespace if resource.namespaced else None
        self.label_selector = label_selector or None
        self.field_selector = field_selector or None
        self.options = options or ReflectorOptions()
        self.name = name or resource.name
        self.path = resource.path(self.namespace)
        # The API server by default; tests pass a scripted ListerWatcher.
        self.lister_watcher: ListerWatcher = lister_watcher or ApiListerWatcher(api_client, self.path)
        self.last_sync_resource_version = ""
        self._rv_unavailable = False
        self._backoff = self.options.backoff_factory()
        self.delays: collections.deque[float] = collections.deque(maxlen=256)  # recent backoff delays
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._stream: Watch | None = None
        self._listing: Closable | None = None
        self._log = log.bind(informer=self.name)

    # -- control ---------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask `run()` to return; closes an open watch so a blocked read ends at once."""
        self._stop.set()
        with self._lock:
            stream, listing = self._stream, self._listing
        if stream is not None:
            stream.close()
        if listing is not None:
            with contextlib.suppress(Exception):
                listing.shutdown()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        need_list = True
        while not self._stop.is_set():
            try:
                if need_list:
                    try:
                        self._list()
                        need_list = False
                    except (ApiStatusError, TransportError) as exc:
                        if self._stop.is_set():
                            break
                        self._fail("list failed", exc)
                        continue
                need_list = self._watch()
            except Exception as exc:  # a bug must not end the informer silently: log, back off, relist
                self._log.error("reflector error", error=repr(exc), exc_info=True)
                need_list = True
                self._fail("reflector error", exc)

    def _set_listing(self, resp: Closable | None) -> None:
        with self._lock:
            self._listing = resp
        if resp is not None and self._stop.is_set():
            with contextlib.suppress(Exception):
                resp.shutdown()

    # -- helpers -----------------------------------------------------------------------------------------------
    def _selectors(self) -> Params:
        params: Params = []
        if self.label_selector:
            params.append(("labelSelector", self.label_selector))
        if self.field_selector:
            params.append(("fieldSelector", self.field_selector))
        return params

    def _fail(self, what: str, exc: BaseException, retry_after: float | None = None) -> None:
        """Log a failed request and wait one backoff step (interrupted by stop)."""
        if self._stop.is_set():
            return
        if retry_after is None and isinstance(exc, ApiStatusError):
            retry_after = exc.retry_after
        delay = self._backoff.step()
        if retry_after is not None and retry_after > delay:
            delay = min(retry_after, MAX_RETRY_AFTER)
        metrics.BACKOFFS.labels(self.name).inc()
        self._log.warning("backing off", reason=what, error=str(exc), delay=round(delay, 3),
                          retry_after=retry_after)
        self.delays.append(delay)
        self._stop.wait(delay)

    # -- LIST ----------------------------------------------------------------------------------------------------
    def _list(self) -> None:
        while True:
            rv = None if self._rv_unavailable else (self.last_sync_resource_version or "0")
            try:
                items, list_rv = self._paged_list(rv)
                break
            except ApiStatusError as exc:
                if rv and rv != "0" and (exc.is_expired or exc.is_too_large_resource_version):
                    self._log.info("relist: resourceVersion unavailable, listing the latest state",
                                   resource_version=rv, error=str(exc))
                    self._rv_unavailable = True
                    metrics.RELISTS_410.labels(self.name).inc()
                    continue
                raise
        self._rv_unavailable = False
        self.last_sync_resource_version = list_rv
        self._log.debug("listed", count=len(items), resource_version=list_rv)
        with gc_paused():  # tens of thousands of acyclic allocations: no collector passes over the heap
            self.sink.replace_listed(items, list_rv)
        metrics.LAST_RESYNC.labels(self.name).set(time.time())

    def _list_item(self, item: Any) -> Any:
        """One listed object, as it is read: the kind a List leaves out put back, then the informer's part."""
        if isinstance(item, dict):
            item.setdefault("kind", self.resource.kind)
            item.setdefault("apiVersion", self.resource.api_version)
        return self.sink.list_item(item)

    def _paged_list(self, rv: str | None) -> tuple[list[Any], str]:
        timeout = (self.options.connect_timeout, self.options.list_read_timeout)
        base = self._selectors()
        limit = self.options.page_size if rv in (None, "0") and self.options.page_size > 0 else 0
        first = list(base)
        if rv is not None:
            first.append(("resourceVersion", rv))
        if limit:
            first.append(("limit", str(limit)))
        page = self._get_page(first, timeout)
        list_rv = str((page.get("metadata") or {}).get("resourceVersion") or "")
        items: list[Any] = list(page.get("items") or [])
        token = str((page.get("metadata") or {}).get("continue") or "")
        while token:
            if self._stop.is_set():
                raise TransportError("stopped during a paged list")
            params = [*base, ("limit", str(limit or self.options.page_size)), ("continue", token)]
            try:
                page = self._get_page(params, timeout)
            except ApiStatusError as exc:
                if not exc.is_expired:
                    raise
                self._log.info("relist: continue token expired, falling back to a full list", error=str(exc))
                full = list(base)
                if rv is not None:
                    full.append(("resourceVersion", rv))
                page = self._get_page(full, timeout)
                list_rv = str((page.get("metadata") or {}).get("resourceVersion") or "")
                return list(page.get("items") or []), list_rv
            items.extend(page.get("items") or [])
            token = str((page.get("metadata") or {}).get("continue") or "")
        return items, list_rv

    def _get_page(self, params: Params, timeout: tuple[float, float]) -> dict[str, Any]:
        metrics.LISTS.labels(self.name).inc()
        return self.lister_watcher.list(params, timeout, self._set_listing, self._list_item)

    # -- WATCH ---------------------------------------------------------------------------------------------------
    def _watch(self) -> bool:
        """One watch request; returns True when a relist is needed."""
        timeout_seconds = random.randint(self.options.min_watch_timeout, self.options.max_watch_timeout)
        params: Params = [*self._selectors(), ("watch", "true"), ("allowWatchBookmarks", "true"),
                          ("resourceVersion", self.last_sync_resource_version),
                          ("timeoutSeconds", str(timeout_seconds))]
        timeout = (self.options.connect_timeout, self.options.watch_read_timeout)
        metrics.WATCHES.labels(self.name).inc()
        try:
            stream = self.lister_watcher.watch(params, timeout)
        except ApiStatusError as exc:
            if self._stop.is_set():
                return False
            if exc.is_expired:
                return self._expired(exc)
            self._restart("error")
            self._fail("watch request failed", exc)
            return not exc.retriable_watch  # 429: re-watch; 5xx and the rest: relist
        except TransportError as exc:
            if not self._stop.is_set():
                self._restart("connect")
                self._fail("watch request failed", exc)
            return False
        with self._lock:
            self._stream = stream
        if self._stop.is_set():
            stream.close()
        started = time.monotonic()
        events = 0
        try:
            for event in stream:
                events += 1
                self._handle_event(event)
        except ApiStatusError as exc:  # an ERROR event
            if self._stop.is_set():
                return False
            if exc.is_expired:
                return self._expired(exc)
            self._restart("error")
            self._fail("watch ended with an error event", exc)
            return not exc.retriable_watch
        except WatchDecodeError as exc:
            if not self._stop.is_set():
                self._restart("decode")
                self._fail("watch stream undecodable", exc)
            return False
        except TransportError as exc:
            if not self._stop.is_set():
                reason = "timeout" if "timed out" in str(exc).lower() or "Timeout" in str(exc) else "broken"
                self._restart(reason)
                self._log.info("watch connection lost; re-watching from the last resourceVersion", error=str(exc),
                               resource_version=self.last_sync_resource_version)
            return False
        finally:
            with self._lock:
                self._stream = None
            stream.release()
        if self._stop.is_set():
            return False
        self._restart("closed")
        if events == 0 and time.monotonic() - started < self.options.very_short_watch:
            self._fail("very short watch", TransportError("watch closed in under a second with no events"))
        return False

    def _expired(self, exc: ApiStatusError) -> bool:
        self._log.info("watch expired (410); relisting", error=str(exc),
                       resource_version=self.last_sync_resource_version)
        self._rv_unavailable = True
        metrics.RELISTS_410.labels(self.name).inc()
        self._restart("expired")
        self._fail("watch expired", exc)
        return True

    def _restart(self, reason: str) -> None:
        metrics.WATCH_RESTARTS.labels(self.name, reason).inc()

    def _handle_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        obj = event.get("object")
        if kind == "ERROR":
            raise ApiStatusError.from_status(obj if isinstance(obj, dict) else {"message": repr(obj)})
        if not isinstance(obj, dict):
            self._log.error("watch event without an object; skipped", type=kind)
            return
        meta = obj.get("metadata")
        rv = str(meta.get("resourceVersion") or "") if isinstance(meta, dict) else ""
        if kind == "BOOKMARK":
            if rv:
                self.last_sync_resource_version = rv
            return
        if kind not in WATCH_EVENT_TYPES:
            self._log.warning("unknown watch event type; skipped", type=kind)
            return
        obj_kind = obj.get("kind")
        if obj_kind is not None and obj_kind != self.resource.kind:
            self._log.error("watch event for an unexpected kind; skipped", type=kind, kind=obj_kind,
                            expected=self.resource.kind)
        else:
            try:
                self.sink.apply(kind, obj)
            except Exception as exc:  # a bad object must not stop the stream for the others
                name = meta.get("name") if isinstance(meta, dict) else None
                ns = meta.get("namespace") if isinstance(meta, dict) else None
                self._log.error("watch event rejected", type=kind, namespace=ns, name=name, error=str(exc))
        if rv:
            self.last_sync_resource_version = rv
