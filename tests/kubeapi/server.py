"""`KubeAPIServer`: the test Kubernetes API server's lifecycle (start/stop/restart on one port), direct
object access for tests, fault injection, authorization setup, the request log and client configuration.

See the package docstring (`tests/kubeapi/__init__.py`) for the full helper API.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import socket
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

import kubernetes.client
import structlog
import yaml

from tests.kubeapi.auth import Authorizer
from tests.kubeapi.errors import ApiConflict, ApiError, ApiNotFound
from tests.kubeapi.faults import Faults
from tests.kubeapi.handler import Handler
from tests.kubeapi.resources import ResourceType, lookup_kind
from tests.kubeapi.store import Store
from tests.kubeapi.watchers import Filter, Watcher

__all__ = ["ApiConflict", "ApiError", "ApiNotFound", "KubeAPIServer"]

log = structlog.get_logger(__name__)

_JOIN_SECONDS = 2.0


class _HTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that tracks its connections and handler threads so stop() can end them."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], api: KubeAPIServer) -> None:
        self.api = api
        self._conn_threads: set[threading.Thread] = set()
        self._conns: set[socket.socket] = set()
        self._track = threading.Condition()
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        t = threading.Thread(target=self._run, args=(request, client_address), daemon=True,
                             name=f"kubeapi-conn-{client_address[1]}")
        with self._track:
            self._conn_threads.add(t)
            self._conns.add(request)
        t.start()

    def _run(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # a broken client connection must not kill the server
            log.debug("kubeapi.connection_error", client=client_address, exc_info=True)
        finally:
            self.shutdown_request(request)
            with self._track:
                self._conns.discard(request)
                self._conn_threads.discard(threading.current_thread())
                self._track.notify_all()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("kubeapi.handler_error", client=client_address, exc_info=True)

    def close_all(self) -> list[threading.Thread]:
        """Shut every open connection down (unblocking its thread) and return the threads to join."""
        with self._track:
            conns = list(self._conns)
            threads = list(self._conn_threads)
        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
        return threads


class KubeAPIServer:
    """A strict, in-process Kubernetes API server for tests (see the package docstring)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, history_size: int = 1000) -> None:
        self.host = host
        self.port = port
        self.store = Store(history_size)
        self.faults = Faults()
        self.authorizer = Authorizer()
        # Watch timing knobs (seconds): periodic BOOKMARK interval, default watch length without timeoutSeconds.
        self.bookmark_interval = 60.0
        self.min_request_timeout = 1800.0
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None
        self._log_lock = threading.Lock()
        self._requests: list[tuple[str, str, dict[str, str], int]] = []
        self._streams: dict[Watcher, socket.socket] = {}
        self._streams_lock = threading.Lock()
        self._streams_changed = threading.Condition(self._streams_lock)

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> KubeAPIServer:
        if self._httpd is not None:
            raise RuntimeError("KubeAPIServer already started")
        self._stopping.clear()
        httpd = _HTTPServer((self.host, self.port), self)
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._serve_thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                              name=f"kubeapi-serve-{self.port}", daemon=True)
        self._serve_thread.start()
        log.debug("kubeapi.started", url=self.url)
        return self

    def stop(self) -> None:
        """Stop serving: end every watch and connection, close the socket, join all threads."""
        httpd, serve_thread = self._httpd, self._serve_thread
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        for w in self.store.open_watchers():
            w.wake()
        threads = httpd.close_all()
        for t in threads:
            t.join(_JOIN_SECONDS)
        if serve_thread is not None:
            serve_thread.join(_JOIN_SECONDS)
        alive = [t.name for t in threads if t.is_alive()]
        if alive:
            log.warning("kubeapi.threads_still_alive", threads=alive)
        self._httpd = None
        self._serve_thread = None
        log.debug("kubeapi.stopped", url=self.url)

    def restart(self) -> None:
        """Stop and start again on the same port; objects, history and the rv counter are kept."""
        self.stop()
        self.start()

    def reset(self) -> None:
        """Drop all objects, history, faults, tokens and the request log; open watches are cut. The port and
        the increasing resourceVersion counter are kept."""
        self.cut_watches()
        self.store.clear()
        self.faults.reset()
        self.authorizer.reset()
        self.clear_requests()
        self.bookmark_interval = 60.0
        self.min_request_timeout = 1800.0
        for w in self.store.open_watchers():
            self.store.close_watch(w)

    def __enter__(self) -> KubeAPIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ client configuration
    def configuration(self, token: str | None = None) -> kubernetes.client.Configuration:
        cfg = kubernetes.client.Configuration()
        cfg.host = self.url
        if token is not None:
            # The full header value under the "authorization" alias works for every client version.
            cfg.api_key = {"authorization": f"Bearer {token}"}
        return cfg

    def write_kubeconfig(self, path: str | os.PathLike[str], token: str | None = None) -> str:
        user: dict[str, Any] = {"token": token} if token is not None else {}
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "kubeapi-test", "cluster": {"server": self.url}}],
            "users": [{"name": "kubeapi-test", "user": user}],
            "contexts": [{"name": "kubeapi-test",
                          "context": {"cluster": "kubeapi-test", "user": "kubeapi-test", "namespace": "default"}}],
            "current-context": "kubeapi-test",
        }
        with open(path, "w", encoding="utf-8") as fh:
            yaml.safe_dump(doc, fh)
        return os.fspath(path)

    # ------------------------------------------------------------------ direct object access
    @staticmethod
    def _rt_of(obj: dict[str, Any]) -> ResourceType:
        if not isinstance(obj, dict):
            raise TypeError(f"object must be a dict, got {type(obj).__name__}")
        try:
            return lookup_kind(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        except KeyError as exc:
            raise ValueError(str(exc)) from None

    @staticmethod
    def _rt(api_version: str, kind: str) -> ResourceType:
        try:
            return lookup_kind(api_version, kind)
        except KeyError as exc:
            raise ValueError(str(exc)) from None

    @staticmethod
    def _ns_name(rt: ResourceType, obj: dict[str, Any]) -> tuple[str, str]:
        meta = obj.get("metadata") or {}
        ns = meta.get("namespace") or ("default" if rt.namespaced else "")
        return ns, str(meta.get("name") or "")

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        rt = self._rt_of(obj)
        ns, _ = self._ns_name(rt, obj)
        return self.store.create(rt, ns, obj).copy()

    def update(self, obj: dict[str, Any]) -> dict[str, Any]:
        """PUT semantics: a stale metadata.resourceVersion raises ApiConflict; status is ignored when the
        kind has a status subresource."""
        rt = self._rt_of(obj)
        ns, name = self._ns_name(rt, obj)
        return self.store.update(rt, ns, name, obj).copy()

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        rt = self._rt_of(obj)
        if not rt.status_subresource:
            raise ValueError(f"{rt.kind} ({rt.api_version}) has no status subresource")
        ns, name = self._ns_name(rt, obj)
        return self.store.update(rt, ns, name, obj, subresource="status").copy()

    def patch(self, api_version: str, kind: str, namespace: str, name: str,
              merge_patch: dict[str, Any], subresource: str = "") -> dict[str, Any]:
        rt = self._rt(api_version, kind)
        return self.store.patch(rt, namespace, name, "application/merge-patch+json", merge_patch,
                                subresource=subresource).copy()

    def delete(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        """Delete (or, with finalizers, start deleting); returns the object's last state."""
        rt = self._rt(api_version, kind)
        so, _ = self.store.delete(rt, namespace, name)
        return so.copy()

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        rt = self._rt(api_version, kind)
        try:
            return self.store.get(rt, namespace, name).copy()
        except ApiNotFound:
            return None

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> builtins.list[dict[str, Any]]:
        rt = self._rt(api_version, kind)
        flt = Filter(namespace if namespace and rt.namespaced else None)
        return [so.copy() for so in self.store.list_objects(rt, flt)]

    def ensure_namespace(self, name: str) -> dict[str, Any]:
        """Create Namespace `name` unless it exists; returns it."""
        existing = self.get("v1", "Namespace", "", name)
        if existing is not None:
            return existing
        return self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})

    @property
    def resource_version(self) -> int:
        """The current global resourceVersion."""
        return self.store.rv

    # ------------------------------------------------------------------ faults
    def cut_watches(self) -> int:
        """Abort every open watch connection mid-stream (no terminating chunk); returns how many."""
        with self._streams_lock:
            streams = list(self._streams.items())
        for w, sock in streams:
            with w.cond:
                w.cut = True
                w.cond.notify_all()
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        return len(streams)

    def silence_watches(self, seconds: float) -> int:
        """Open watches send nothing (no events, bookmarks or end) for `seconds`, connections stay open;
        events are held back, not lost. Watches opened later are not affected. Returns how many."""
        until = time.monotonic() + seconds
        with self._streams_lock:
            watchers = list(self._streams)
        for w in watchers:
            with w.cond:
                w.silence_until = until
                w.cond.notify_all()
        return len(watchers)

    def fail_next(self, n: int, status: int = 500, retry_after: int | None = None,
                  path_contains: str | None = None) -> None:
        """Answer the next `n` requests (whose path contains `path_contains`, if given) with `status` and a
        Status body; 429 carries Retry-After and details.retryAfterSeconds when `retry_after` is given."""
        self.faults.fail_next(n, status, retry_after, path_contains)

    def compact(self) -> None:
        """Drop the history: the next watch from an older rv and the next continue token get 410 Expired."""
        self.store.compact()

    def delete_silently(self, api_version: str, kind: str, namespace: str, name: str) -> None:
        """The object vanishes with no DELETED event (the lost-delete case)."""
        self.store.delete_silently(self._rt(api_version, kind), namespace, name)

    def inject_malformed_line(self, count: int = 1) -> None:
        """The next `count` watch event lines (on any watch) are sent truncated, i.e. not JSON."""
        self.faults.inject_malformed_line(count)

    def send_bookmarks(self) -> int:
        """Every open watch that allowed bookmarks sends a BOOKMARK now; returns how many watches were asked."""
        with self._streams_lock:
            watchers = list(self._streams)
        for w in watchers:
            with w.cond:
                w.bookmark_requested = True
                w.cond.notify_all()
        return len(watchers)

    @property
    def open_watch_count(self) -> int:
        with self._streams_lock:
            return len(self._streams)

    @property
    def connection_count(self) -> int:
        """Open client connections (keep-alive and streaming)."""
        httpd = self._httpd
        if httpd is None:
            return 0
        with httpd._track:
            return len(httpd._conns)

    def wait_for_connections(self, count: int, timeout: float = 5.0) -> bool:
        """Block until at most `count` client connections are open; False on timeout."""
        httpd = self._httpd
        if httpd is None:
            return count >= 0
        with httpd._track:
            return httpd._track.wait_for(lambda: len(httpd._conns) <= count, timeout)

    def wait_for_watches(self, count: int, timeout: float = 5.0, path_contains: str | None = None) -> bool:
        """Block until exactly `count` watches are streaming (optionally only those whose request path
        contains `path_contains`); False on timeout. Use it before cutting/silencing to avoid races."""
        def current() -> int:
            if path_contains is None:
                return len(self._streams)
            return sum(1 for w in self._streams if path_contains in w.path)

        with self._streams_changed:
            return self._streams_changed.wait_for(lambda: current() == count, timeout)

    # ------------------------------------------------------------------ authorization
    def add_token(self, token: str, rules: builtins.list[dict[str, Any]], user: str | None = None) -> None:
        """Bind `token` to ClusterRole-style `rules`; once any token exists, requests need a valid one."""
        self.authorizer.add_token(token, rules, user)

    # ------------------------------------------------------------------ request log
    @property
    def requests(self) -> builtins.list[tuple[str, str, dict[str, str], int]]:
        with self._log_lock:
            return list(self._requests)

    def request_count(self, method: str | None = None, path_contains: str | None = None,
                      status: int | None = None, **query: str) -> int:
        """How many logged requests match: method, a path substring, status and exact query values
        (e.g. `request_count("GET", "/services", watch="True")`; booleans are as the client spelled them)."""
        n = 0
        for m, p, q, st in self.requests:
            if method is not None and m != method:
                continue
            if path_contains is not None and path_contains not in p:
                continue
            if status is not None and st != status:
                continue
            if any(q.get(k) != v for k, v in query.items()):
                continue
            n += 1
        return n

    def clear_requests(self) -> None:
        with self._log_lock:
            self._requests.clear()

    def _log_request(self, method: str, path: str, query: dict[str, str], status: int) -> None:
        with self._log_lock:
            self._requests.append((method, path, query, status))

    def _watch_opened(self, w: Watcher, sock: socket.socket) -> None:
        with self._streams_changed:
            self._streams[w] = sock
            self._streams_changed.notify_all()

    def _watch_closed(self, w: Watcher) -> None:
        with self._streams_changed:
            self._streams.pop(w, None)
            self._streams_changed.notify_all()

