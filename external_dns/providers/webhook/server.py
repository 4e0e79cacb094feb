"""The webhook server: exposes any of our providers over the external-dns webhook protocol, so a Go
external-dns (`--provider=webhook`) can drive it. Hostile clients cannot hold its bounded threads: every
connection state has a deadline a reaper enforces, and a malformed request gets a 4xx (never a traceback or
a silent close); the rules sit beside `_dispatch`, `_read_body`, `process_request`, `_reap` and `stop`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import structlog
from prometheus_client import REGISTRY, Counter, Histogram

from external_dns.metrics_http import LoggedRequestErrors, metrics_response
from external_dns.plan.admission import admit_changes
from external_dns.providers.provider import Provider
from external_dns.providers.webhook.protocol import (
    MEDIA_TYPE,
    PATH_ADJUST,
    PATH_HEALTHZ,
    PATH_METRICS,
    PATH_RECORDS,
    changes_from_body,
    endpoints_from_body,
    endpoints_to_body,
    is_media_type,
    to_body,
)

log = structlog.get_logger(__name__)

REQUESTS = Counter("external_dns_webhook_server_requests_total",
                   "Requests served by the webhook server, by path, method and status code.",
                   ["path", "method", "code"])
LATENCY = Histogram("external_dns_webhook_server_request_duration_seconds",
                    "Time to serve a webhook request, by path.", ["path"])
DEFAULT_MAX_BODY = 32 * 1024 * 1024
REQUEST_TIMEOUT = 30.0  # seconds a client may take to send a request body after its headers
LISTEN_BACKLOG = 1024  # socketserver's default of 5 reset a third of 100 concurrent connections
DEFAULT_MAX_THREADS = 256  # connection threads per listener
STOP_GRACE = 10.0  # seconds requests being served may take to finish on stop()
SHED_AFTER = 1.0  # with every thread taken, connections idle (or still sending) this long are closed
# Connection states, each with its own deadline (WebhookServer._deadline): waiting for the first request's
# headers, waiting for the next request on a kept-alive connection, reading a body, serving.
_NEW, _KEEPALIVE, _BODY, _SERVING = "new", "keepalive", "body", "serving"
_WAITING = (_NEW, _KEEPALIVE, _BODY)


@dataclass
class _Conn:
    state: str
    since: float


class _PayloadTooLarge(Exception):
    pass


def parse_address(address: str) -> tuple[str, int]:
    """`host:port`, `:port` (all interfaces) or `[v6]:port`."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"invalid listen address {address!r} (want host:port)")
    host = host.strip("[]")
    if not 0 <= int(port) <= 65535:
        raise ValueError(f"invalid listen address {address!r}: port must be 0-65535")
    return (host or "0.0.0.0", int(port))


class _Handler(BaseHTTPRequestHandler):
    server_version = "external-dns-py-webhook"
    protocol_version = "HTTP/1.1"
    timeout = REQUEST_TIMEOUT
    app: WebhookServer  # set on the per-server subclass
    health_only = False

    # -- plumbing -------------------------------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self.app._track(self.connection, _NEW)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.app._untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("webhook request", client=self.client_address[0], line=format % args)

    def _send(self, code: int, body: bytes = b"", content_type: str = "text/plain; charset=utf-8") -> None:
        self.send_response(code)
        if body or code not in (HTTPStatus.NO_CONTENT, HTTPStatus.NOT_MODIFIED):
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
        REQUESTS.labels(self._route(), self.command, str(code)).inc()

    def _metrics(self) -> None:
        # prometheus_client's own handler: OpenMetrics by Accept, gzip by Accept-Encoding
        code, headers, body = metrics_response(self.command, self.path.partition("?")[2], self.headers.get("Accept"),
                                               self.headers.get("Accept-Encoding"), REGISTRY)
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        REQUESTS.labels(self._route(), self.command, str(code)).inc()

    def _error(self, code: int, message: str) -> None:
        self._send(code, (message + "\n").encode())

    def _route(self) -> str:
        path = self.path.split("?", 1)[0]
        known = ("/", PATH_RECORDS, PATH_ADJUST, PATH_HEALTHZ, PATH_METRICS)
        return path if path in known else "other"

    def _read_body(self) -> bytes:
        cap = self.app.max_body_size
        length_text = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.close_connection = True
            raise ValueError("chunked request bodies are not supported; send Content-Length")
        try:
            length = int(length_text) if length_text else 0
        except ValueError:
            self.close_connection = True
            raise ValueError(f"invalid Content-Length {str(length_text)[:40]!r}") from None
        if length < 0:
            self.close_connection = True
            raise ValueError(f"invalid Content-Length {length_text!r}")
        if cap and length > cap:
            self.close_connection = True  # the unread body would be parsed as the next request
            raise _PayloadTooLarge(f"request body of {length} bytes exceeds the limit of {cap} bytes")
        self.app._track(self.connection, _BODY, restart=False)  # timed from the end of the headers
        try:
            data = self.rfile.read(length) if length else b""
        finally:
            self.app._track(self.connection, _SERVING)
        if len(data) != length:
            self.close_connection = True
            raise ConnectionResetError("request body cut short")
        return data

    # -- dispatch -------------------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """`/` negotiation (any method) answers the provider's domain filter; `GET /records` -> 200 +
        endpoints; `POST /records` -> 204 after applying the changes (400 bad JSON, 413 over the body cap,
        415 wrong content type); `POST /adjustendpoints` -> 200 + endpoints; other methods on these paths
        -> 400, as external-dns; a provider error -> 500. `/healthz` and `/metrics` on every listener."""
        start = time.perf_counter()
        route = self._route()
        self.app._track(self.connection, _SERVING)
        try:
            if route == PATH_HEALTHZ:
                self._send(HTTPStatus.OK, b"ok\n")
            elif route == PATH_METRICS:
                self._metrics()
            elif self.health_only:
                self._error(HTTPStatus.NOT_FOUND, f"no such path {self.path}")
            elif route == "/":
                self._negotiate()
            elif route == PATH_RECORDS:
                self._records()
            elif route == PATH_ADJUST:
                self._adjust()
            else:
                self._error(HTTPStatus.NOT_FOUND, f"no such path {self.path}")
        except _PayloadTooLarge as exc:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, str(exc))
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            self.close_connection = True  # the client went away or was cut off by the reaper
        except ValueError as exc:  # a malformed request (Content-Length, chunked body)
            self._try_error(HTTPStatus.BAD_REQUEST, str(exc))
        except Exception as exc:  # never a traceback on stderr for a request
            log.error("webhook: request failed", path=route, error=f"{type(exc).__name__}: {exc}")
            self._try_error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(exc).__name__}")
        finally:
            LATENCY.labels(route).observe(time.perf_counter() - start)
            if self.app.stopping.is_set():
                self.close_connection = True  # shutting down: no further requests on this connection
            self.app._track(self.connection, _KEEPALIVE)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _dispatch

    def _try_error(self, code: int, message: str) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self._error(code, message)

    def _negotiate(self) -> None:
        try:
            body = to_body(self.app.provider.get_domain_filter().to_json())
        except Exception as exc:
            log.error("webhook: domain filter failed", error=str(exc))
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"domain filter: {exc}")
            return
        self._send(HTTPStatus.OK, body, MEDIA_TYPE)

    def _check_content_type(self) -> bool:
        ctype = self.headers.get("Content-Type")
        if not is_media_type(ctype, allow_json=True):
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                        f"unsupported Content-Type {ctype!r}: send {MEDIA_TYPE}")
            return False
        return True

    def _records(self) -> None:
        if self.command == "GET":
            try:
                records = self.app.provider.records()
            except Exception as exc:
                log.error("webhook: records failed", error=str(exc))
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"records: {exc}")
                return
            self._send(HTTPStatus.OK, endpoints_to_body(records), MEDIA_TYPE)
            return
        if self.command != "POST":
            self._error(HTTPStatus.BAD_REQUEST, f"method {self.command} not allowed on {PATH_RECORDS}")
            return
        body = self._read_body()
        if not self._check_content_type():
            return
        try:
            changes = changes_from_body(body)
        except ValueError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        changes, refused = admit_changes(changes)
        for reason in refused:  # skipped, never blocking the rest of the batch
            log.warning(f"webhook: skipping endpoint: {reason}")
        try:
            self.app.provider.apply_changes(changes)
        except Exception as exc:
            log.error("webhook: apply changes failed", error=str(exc))
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"apply changes: {exc}")
            return
        self._send(HTTPStatus.NO_CONTENT)

    def _adjust(self) -> None:
        if self.command != "POST":
            self._error(HTTPStatus.BAD_REQUEST, f"method {self.command} not allowed on {PATH_ADJUST}")
            return
        body = self._read_body()
        if not self._check_content_type():
            return
        try:
            endpoints = endpoints_from_body(body)
        except ValueError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        try:
            adjusted = self.app.provider.adjust_endpoints(endpoints)
        except Exception as exc:
            log.error("webhook: adjust endpoints failed", error=str(exc))
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"adjust endpoints: {exc}")
            return
        self._send(HTTPStatus.OK, endpoints_to_body(adjusted), MEDIA_TYPE)


class _Server(LoggedRequestErrors, ThreadingHTTPServer):
    # Request threads are joined on close; `WebhookServer.stop` first shuts down idle keep-alive
    # connections so that no thread waits out its read timeout. A failed request is a log line.
    request_errors_name = "webhook"
    daemon_threads = False
    block_on_close = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[_Handler], max_threads: int,
                 stopping: threading.Event, shed: Callable[[], int] | None = None) -> None:
        self._slots = threading.BoundedSemaphore(max_threads)
        self._stopping = stopping
        self._shed = shed
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # At most `max_threads` connection threads: the accept loop waits for a free slot, so further
        # connections queue in the kernel's listen backlog instead of each costing a thread.
        while not self._slots.acquire(timeout=0.1):
            if self._stopping.is_set():
                self.shutdown_request(request)
                return
            if self._shed is not None:
                # Every slot taken: free some from connections idling or trickling a request (thousands of
                # idle keep-alive clients must not starve /healthz or a real request).
                self._shed()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class WebhookServer:
    """Serves `provider` on `address` (`host:port`, port 0 = any free port); optionally /healthz and
    /metrics alone on `health_address`. `start()` returns once listening; `stop()` shuts down."""

    def __init__(self, provider: Provider, address: str = "127.0.0.1:8888", health_address: str = "",
                 max_body_size: int = DEFAULT_MAX_BODY, request_timeout: float = REQUEST_TIMEOUT,
                 read_header_timeout: float = 0.0, idle_timeout: float = 0.0,
                 max_threads: int = DEFAULT_MAX_THREADS, grace: float = STOP_GRACE) -> None:
        self.provider = provider
        self.max_body_size = max_body_size
        self.request_timeout = request_timeout
        # 0 = the request timeout, as Go's http.Server falls back for unset timeouts.
        self.read_header_timeout = read_header_timeout or request_timeout
        self.idle_timeout = idle_timeout or request_timeout
        self.max_threads = max_threads
        self.grace = grace
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []
        self._conn_lock = threading.Condition()
        self._connections: dict[socket.socket, _Conn] = {}  # open connection -> what it is doing, since when
        self.stopping = threading.Event()
        self._addresses = [(address, False)] + ([(health_address, True)] if health_address else [])

    def start(self) -> WebhookServer:
        try:
            for address, health_only in self._addresses:
                handler = type("Handler", (_Handler,), {"app": self, "health_only": health_only,
                                                        "timeout": max(self.request_timeout,
                                                                       self.read_header_timeout,
                                                                       self.idle_timeout)})
                srv = _Server(parse_address(address), handler, self.max_threads, self.stopping,
                              shed=lambda: self._close(_WAITING, older_than=SHED_AFTER))
                t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1},
                                     name=f"webhook-server-{srv.server_address[1]}", daemon=True)
                try:
                    t.start()
                except BaseException:
                    srv.server_close()
                    raise
                self._servers.append(srv)
                self._threads.append(t)
            reaper = threading.Thread(target=self._reap, name="webhook-server-reaper", daemon=True)
            reaper.start()
            self._threads.append(reaper)
        except BaseException:
            self.stop()
            raise
        log.info("webhook server listening", url=self.url,
                 health=[f"{s.server_address[0]!s}:{s.server_address[1]}" for s in self._servers[1:]])
        return self

    @property
    def port(self) -> int:
        return int(self._servers[0].server_address[1])

    @property
    def health_port(self) -> int:
        return int(self._servers[-1].server_address[1])

    @property
    def url(self) -> str:
        host = str(self._servers[0].server_address[0])
        host = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{host}:{self.port}"

    def _track(self, conn: socket.socket, state: str, restart: bool = True) -> None:
        with self._conn_lock:
            old = self._connections.get(conn)
            since = old.since if old is not None and not restart else time.monotonic()
            self._connections[conn] = _Conn(state, since)
            self._conn_lock.notify_all()

    def _untrack(self, conn: socket.socket) -> None:
        with self._conn_lock:
            self._connections.pop(conn, None)
            self._conn_lock.notify_all()

    def _close(self, states: tuple[str, ...], older_than: float = 0.0) -> int:
        """Shut down connections in `states` whose state began `older_than` seconds ago or earlier."""
        now = time.monotonic()
        with self._conn_lock:
            doomed = [conn for conn, c in self._connections.items()
                      if c.state in states and now - c.since >= older_than]
        for conn in doomed:  # wakes the handler thread blocked reading from it
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        return len(doomed)

    def _reap(self) -> None:
        """Close connections past their state's deadline: no headers within `read_header_timeout` (new) or
        `idle_timeout` (kept alive), no body within `request_timeout`."""
        shortest = min(self.request_timeout, self.read_header_timeout, self.idle_timeout)
        while not self.stopping.wait(min(1.0, shortest / 4)):
            closed = (self._close((_NEW,), older_than=self.read_header_timeout)
                      + self._close((_KEEPALIVE,), older_than=self.idle_timeout)
                      + self._close((_BODY,), older_than=self.request_timeout))
            if closed:
                log.debug("webhook: closed slow or idle connections", count=closed)

    def stop(self) -> None:
        """Stop accepting; close idle connections and those still sending a request; give requests being
        served `grace` seconds; close what is left; join every thread."""
        self.stopping.set()
        for srv in self._servers:
            srv.shutdown()  # no new connections
        self._close(_WAITING)  # keep-alive connections and clients still sending (trickling) a request
        deadline = time.monotonic() + self.grace
        with self._conn_lock:
            self._conn_lock.wait_for(lambda: not self._connections, timeout=max(0.0, deadline - time.monotonic()))
        self._close((*_WAITING, _SERVING))
        for srv in self._servers:
            srv.server_close()  # joins the request threads
        for t in self._threads:
            t.join(timeout=10)
        self._servers.clear()
        self._threads.clear()

    def __enter__(self) -> WebhookServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
