"""The health and metrics HTTP server on `--metrics-address`, and the worker watchdog behind `/healthz`.

* `/healthz`: 200 `OK` while every liveness check passes and no worker has been on one item longer than the
  watchdog's bound; else 500 with one line per failure.
* `/readyz`: 200 `OK` when every readiness check passes (e.g. informer caches synced; with leader election,
  leading or standing by); else 503 with the failing check names.
* `/metrics`: the registry (default: the global registry) through prometheus_client's own handler: text
  format or OpenMetrics by `Accept`, gzip by `Accept-Encoding`.

Checks are injected as named callables returning bool (an exception counts as a failure). The server runs
in its own thread (`start()`), `stop(timeout)` shuts it down and joins it.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import structlog
from prometheus_client import REGISTRY, CollectorRegistry

from external_dns.metrics_http import LoggedRequestErrors, metrics_response

log = structlog.get_logger(__name__)

Check = Callable[[], bool]

MAX_THREADS = 32  # request threads; further connections wait in the listen backlog
LISTEN_BACKLOG = 128  # socketserver's default of 5 resets connections under a burst of scrapes and probes
CONNECTION_DEADLINE = 10.0  # seconds a connection may take in all (a per-read timeout never ends a trickle)
SHED_AFTER = 0.25  # with every thread taken, connections still sending a request this long are closed


class WorkerWatchdog:
    """Tracks what each worker is doing; a worker stuck on one item longer than `max_stuck` seconds makes
    the process unhealthy. Workers call `tick(name)` when they pick up an item and `clear(name)` when done
    (or use `with watchdog.working(name):`)."""

    def __init__(self, max_stuck: float = 600.0, *, now: Callable[[], float] = time.monotonic) -> None:
        if max_stuck <= 0:
            raise ValueError(f"WorkerWatchdog: max_stuck must be positive, got {max_stuck}")
        self.max_stuck = max_stuck
        self._now = now
        self._lock = threading.Lock()
        self._busy_since: dict[str, float] = {}

    def tick(self, worker: str) -> None:
        with self._lock:
            self._busy_since[worker] = self._now()

    def clear(self, worker: str) -> None:
        with self._lock:
            self._busy_since.pop(worker, None)

    def working(self, worker: str) -> _Working:
        return _Working(self, worker)

    def stuck(self) -> dict[str, float]:
        """Workers busy for longer than `max_stuck`, with their busy seconds."""
        now = self._now()
        with self._lock:
            return {w: now - since for w, since in self._busy_since.items() if now - since > self.max_stuck}

    def healthy(self) -> bool:
        return not self.stuck()


class _Working:
    def __init__(self, watchdog: WorkerWatchdog, worker: str) -> None:
        self._watchdog = watchdog
        self._worker = worker

    def __enter__(self) -> None:
        self._watchdog.tick(self._worker)

    def __exit__(self, *exc: object) -> None:
        self._watchdog.clear(self._worker)


def parse_address(address: str) -> tuple[str, int]:
    """`:7979` -> ("", 7979); `127.0.0.1:0`; `[::1]:7979`. Raises ValueError naming the address."""
    host, sep, port_text = address.rpartition(":")
    if not sep:
        raise ValueError(f"--metrics-address {address!r}: expected host:port or :port")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--metrics-address {address!r}: invalid port {port_text!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"--metrics-address {address!r}: port out of range")
    return host, port


def _failures(checks: Mapping[str, Check]) -> list[str]:
    failed = []
    for name, check in checks.items():
        try:
            ok = bool(check())
        except Exception as exc:  # a broken check is a failed check, not a crashed server
            log.warning("health check raised", check=name, error=str(exc))
            ok = False
        if not ok:
            failed.append(name)
    return failed


class HealthServer:
    """`/healthz`, `/readyz` and `/metrics` on a ThreadingHTTPServer."""

    def __init__(self, address: str = ":7979", *, registry: CollectorRegistry | None = None,
                 watchdog: WorkerWatchdog | None = None, live_checks: Mapping[str, Check] | None = None,
                 ready_checks: Mapping[str, Check] | None = None, max_threads: int = MAX_THREADS,
                 deadline: float = CONNECTION_DEADLINE) -> None:
        self.address = address
        self.max_threads = max_threads
        self.deadline = deadline
        self.registry = registry if registry is not None else REGISTRY
        self.watchdog = watchdog
        self.live_checks: dict[str, Check] = dict(live_checks or {})
        self.ready_checks: dict[str, Check] = dict(ready_checks or {})
        self._server: _BoundedServer | None = None
        self._thread: threading.Thread | None = None

    # -- checks --------------------------------------------------------------------------------------
    def add_ready_check(self, name: str, check: Check) -> None:
        self.ready_checks[name] = check

    def add_live_check(self, name: str, check: Check) -> None:
        self.live_checks[name] = check

    def liveness(self) -> tuple[bool, str]:
        lines = [f"check {name} failed" for name in _failures(self.live_checks)]
        if self.watchdog is not None:
            lines += [f"worker {w} stuck for {secs:.0f}s" for w, secs in sorted(self.watchdog.stuck().items())]
        return (not lines, "\n".join(lines) or "OK")

    def readiness(self) -> tuple[bool, str]:
        failed = _failures(self.ready_checks)
        return (not failed, "\n".join(f"check {name} failed" for name in failed) or "OK")

    # -- server --------------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("HealthServer is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        raw = self._server.server_address[0] if self._server is not None else ""
        host = raw.decode() if isinstance(raw, bytes) else str(raw)
        host = "127.0.0.1" if host in ("", "0.0.0.0") else host
        host = "[::1]" if host == "::" else (f"[{host}]" if ":" in host else host)
        return f"http://{host}:{self.port}"

    def start(self) -> None:
        """Bind and serve in a background thread; raises OSError (naming the address) if it cannot bind."""
        if self._server is not None:
            return
        host, port = parse_address(self.address)
        handler = _handler_for(self)
        try:
            server_cls = _BoundedServerV6 if ":" in host else _BoundedServer
            server = server_cls((host, port), handler, self.max_threads, self.deadline)
        except OSError as exc:
            raise OSError(exc.errno, f"--metrics-address {self.address}: {exc.strerror}") from exc
        self._server = server
        self._thread = threading.Thread(target=server.serve, name="health-server", daemon=True)
        self._thread.start()
        log.debug("serving health and metrics", address=self.address, port=self.port)  # the process logs the URL

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, close the socket and join the server thread."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.stop_serving(timeout)
        server.cut(0.0)  # a client still sending its request would hold server_close()'s join up to the deadline
        server.server_close()
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("health server thread did not stop", timeout=timeout)
        self._server = None
        self._thread = None

    def __enter__(self) -> HealthServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _BoundedServer(LoggedRequestErrors, ThreadingHTTPServer):
    """At most `max_threads` request threads, each connection closed `deadline` seconds after it was
    accepted whatever the client sends; failed requests are log lines. The accept loop (`serve`) sleeps until a
    connection arrives, the oldest open connection's deadline falls due, or `stop_serving` wakes it: an idle
    process is not woken twice a second as by socketserver's polling `serve_forever`."""

    request_errors_name = "health/metrics"

    daemon_threads = False  # server_close() joins the request threads
    block_on_close = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], max_threads: int,
                 deadline: float) -> None:
        self._slots = threading.BoundedSemaphore(max_threads)
        self._deadline = deadline
        self._open: dict[Any, tuple[float, bool]] = {}  # connection -> (accepted at, request read)
        self._open_lock = threading.Lock()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        super().__init__(address, handler)

    def serve(self) -> None:
        """Accept connections until `stop_serving`."""
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self._wake_r, selectors.EVENT_READ)
                while not self._stopping.is_set():
                    ready = selector.select(self._until_deadline())
                    if self._stopping.is_set():
                        break
                    if any(key.fileobj is self for key, _ in ready):
                        self.handle_request()  # readable: accepts without waiting
                    self.service_actions()
        finally:
            self._stopped.set()

    def _until_deadline(self) -> float | None:
        """Seconds until the oldest open connection is due to be cut (None: no connection open)."""
        with self._open_lock:
            oldest = min((since for since, _ in self._open.values()), default=None)
        return None if oldest is None else max(0.0, oldest + self._deadline - time.monotonic())

    def stop_serving(self, timeout: float) -> None:
        """End `serve` (wakes it) and wait up to `timeout` seconds for it to return."""
        self._stopping.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._stopped.wait(timeout)

    def server_close(self) -> None:
        super().server_close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def process_request(self, request: Any, client_address: Any) -> None:
        while not self._slots.acquire(timeout=0.1):
            self.cut(SHED_AFTER, serving_too=False)  # every thread taken: make room for probes
        with self._open_lock:
            self._open[request] = (time.monotonic(), False)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(request)

    def _release(self, request: Any) -> None:
        with self._open_lock:
            self._open.pop(request, None)
        self._slots.release()

    def serving(self, request: Any) -> None:
        """The request on this connection has been read: shedding leaves it alone (the deadline does not)."""
        with self._open_lock:
            if request in self._open:
                self._open[request] = (self._open[request][0], True)

    def service_actions(self) -> None:
        self.cut(self._deadline)

    def cut(self, older_than: float, serving_too: bool = True) -> None:
        """Shut down connections open `older_than` seconds or more (wakes their blocked handler thread)."""
        now = time.monotonic()
        with self._open_lock:
            doomed = [conn for conn, (since, serving) in self._open.items()
                      if now - since >= older_than and (serving_too or not serving)]
        for conn in doomed:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class _BoundedServerV6(_BoundedServer):
    address_family = socket.AF_INET6


def _handler_for(owner: HealthServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "external-dns-py"
        timeout = 5  # per-connection socket timeout (bounds how long stop() can wait for a client)

        def do_GET(self) -> None:
            if isinstance(self.server, _BoundedServer):
                self.server.serving(self.request)
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                ok, text = owner.liveness()
                self._reply(200 if ok else 500, b"OK" if ok else text.encode() + b"\n")
            elif path == "/readyz":
                ok, text = owner.readiness()
                self._reply(200 if ok else 503, b"OK" if ok else text.encode() + b"\n")
            elif path == "/metrics":
                _, _, query = self.path.partition("?")
                code, headers, body = metrics_response(self.command, query, self.headers.get("Accept"),
                                                       self.headers.get("Accept-Encoding"), owner.registry)
                self._reply(code, body, headers=headers)
            else:
                self._reply(404, b"404 page not found\n")

        do_HEAD = do_GET

        def _reply(self, code: int, body: bytes, content_type: str = "text/plain; charset=utf-8",
                   headers: list[tuple[str, str]] | None = None) -> None:
            self.send_response(code)
            for name, value in headers if headers is not None else [("Content-Type", content_type)]:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("http request", request=format % args)

    return Handler
