"""The webhook server: exposes any of our providers over the external-dns webhook protocol, so a Go
external-dns (`--provider=webhook`) can drive it.

Routes (reference 6.6): `/` negotiation (any method) answers the provider's domain filter; `GET /records`
-> 200 + endpoints (500 on provider error); `POST /records` -> 204 after applying the changes (400 bad JSON,
413 over the body cap, 415 wrong content type, 500 on provider error); `POST /adjustendpoints` -> 200 +
endpoints; other methods on these paths -> 400, as external-dns. `/healthz` and `/metrics` (Prometheus) are
served too, optionally also on a separate health listener. One thread per request (ThreadingHTTPServer);
`stop()` stops accepting, lets requests in progress finish, closes idle keep-alive connections and joins
every thread.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import structlog
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Histogram, generate_latest

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
REQUEST_TIMEOUT = 30.0  # seconds a client may take to send a request


class _PayloadTooLarge(Exception):
    pass


def parse_address(address: str) -> tuple[str, int]:
    """`host:port`, `:port` (all interfaces) or `[v6]:port`."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"invalid listen address {address!r} (want host:port)")
    host = host.strip("[]")
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
        self.app._track(self.connection, busy=False)

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
            raise ValueError(f"invalid Content-Length {length_text!r}") from None
        if length < 0:
            raise ValueError(f"invalid Content-Length {length_text!r}")
        if cap and length > cap:
            self.close_connection = True  # the unread body would be parsed as the next request
            raise _PayloadTooLarge(f"request body of {length} bytes exceeds the limit of {cap} bytes")
        return self.rfile.read(length) if length else b""

    # -- dispatch -------------------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        start = time.perf_counter()
        route = self._route()
        self.app._track(self.connection, busy=True)
        try:
            if route == PATH_HEALTHZ:
                self._send(HTTPStatus.OK, b"ok\n")
            elif route == PATH_METRICS:
                self._send(HTTPStatus.OK, generate_latest(REGISTRY), CONTENT_TYPE_LATEST)
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
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            LATENCY.labels(route).observe(time.perf_counter() - start)
            if self.app.stopping.is_set():
                self.close_connection = True  # shutting down: no further requests on this connection
            self.app._track(self.connection, busy=False)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _dispatch

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


class _Server(ThreadingHTTPServer):
    # Request threads are joined on close; `WebhookServer.stop` first shuts down idle keep-alive
    # connections so that no thread waits out its read timeout.
    daemon_threads = False
    block_on_close = True


class WebhookServer:
    """Serves `provider` on `address` (`host:port`, port 0 = any free port); optionally /healthz and
    /metrics alone on `health_address`. `start()` returns once listening; `stop()` shuts down."""

    def __init__(self, provider: Provider, address: str = "127.0.0.1:8888", health_address: str = "",
                 max_body_size: int = DEFAULT_MAX_BODY) -> None:
        self.provider = provider
        self.max_body_size = max_body_size
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []
        self._conn_lock = threading.Lock()
        self._connections: dict[socket.socket, bool] = {}  # open connection -> serving a request now
        self.stopping = threading.Event()
        self._addresses = [(address, False)] + ([(health_address, True)] if health_address else [])

    def start(self) -> WebhookServer:
        try:
            for address, health_only in self._addresses:
                handler = type("Handler", (_Handler,), {"app": self, "health_only": health_only})
                srv = _Server(parse_address(address), handler)
                t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1},
                                     name=f"webhook-server-{srv.server_address[1]}", daemon=True)
                try:
                    t.start()
                except BaseException:
                    srv.server_close()
                    raise
                self._servers.append(srv)
                self._threads.append(t)
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

    def _track(self, conn: socket.socket, busy: bool) -> None:
        with self._conn_lock:
            self._connections[conn] = busy

    def _untrack(self, conn: socket.socket) -> None:
        with self._conn_lock:
            self._connections.pop(conn, None)

    def stop(self) -> None:
        """Stop accepting, let requests in progress finish, close idle keep-alive connections, join."""
        self.stopping.set()
        for srv in self._servers:
            srv.shutdown()  # no new connections
        with self._conn_lock:
            idle = [conn for conn, busy in self._connections.items() if not busy]
        for conn in idle:  # wake handlers waiting for a next request on a keep-alive connection
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
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
