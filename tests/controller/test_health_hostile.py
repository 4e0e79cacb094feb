"""Health server under hostile clients: a trickling client is cut at the connection deadline, request threads
stay bounded while idle connections pile up and /healthz still answers, a burst of concurrent probes is
answered in full (listen backlog); clients that reset mid-answer (health and webhook server) and failing
requests are log lines, never tracebacks on stderr."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client import CollectorRegistry, Metric
from prometheus_client.registry import Collector
from structlog.testing import capture_logs

from external_dns.controller.health import HealthServer
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.webhook.protocol import MEDIA_TYPE
from external_dns.providers.webhook.server import WebhookServer
from tests.helpers.threads import thread_leak_check


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


def _request_threads() -> int:
    return sum(1 for t in threading.enumerate() if "process_request_thread" in t.name)


def test_trickling_client_is_cut_at_the_deadline() -> None:
    with HealthServer("127.0.0.1:0", deadline=1.5) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            started = time.monotonic()
            closed = False
            while time.monotonic() - started < 8:  # a byte every 0.3 s: each read succeeds within its timeout
                time.sleep(0.3)
                try:
                    sock.sendall(b"X")
                    sock.setblocking(False)
                    try:
                        closed = sock.recv(1) == b""
                    except BlockingIOError:
                        pass
                    finally:
                        sock.setblocking(True)
                except OSError:
                    closed = True
                if closed:
                    break
            assert closed, "the trickling client was never cut"
            assert time.monotonic() - started < 5
        finally:
            sock.close()


def test_threads_are_bounded_and_healthz_still_answers() -> None:
    with HealthServer("127.0.0.1:0", max_threads=4) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(40)]
        try:
            time.sleep(0.5)
            assert _request_threads() <= 4
            started = time.monotonic()
            with urllib.request.urlopen(f"{server.url}/healthz", timeout=10) as resp:
                assert resp.status == 200
            assert time.monotonic() - started < 8
            assert _request_threads() <= 4
        finally:
            for s in idle:
                s.close()


def test_a_burst_of_concurrent_probes_is_answered() -> None:
    def probe(_: int) -> int:
        with urllib.request.urlopen(f"{server.url}/healthz", timeout=10) as resp:
            return int(resp.status)

    with HealthServer("127.0.0.1:0") as server, ThreadPoolExecutor(max_workers=100) as pool:
        assert list(pool.map(probe, range(100))) == [200] * 100


def test_stop_does_not_wait_for_a_trickling_client() -> None:
    server = HealthServer("127.0.0.1:0")
    server.start()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    stop = threading.Event()

    def trickle() -> None:
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            while not stop.wait(0.3):
                sock.sendall(b"X")
        except OSError:
            pass

    t = threading.Thread(target=trickle)
    t.start()
    try:
        time.sleep(0.5)
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 3
    finally:
        stop.set()
        t.join(timeout=5)
        sock.close()


@contextlib.contextmanager
def serving(kind: str) -> Iterator[str]:
    """The health server or the webhook server (they share the request error handling), by its URL."""
    if kind == "health":
        with HealthServer("127.0.0.1:0") as health:
            yield health.url
    else:
        with WebhookServer(InMemoryProvider(["example.org"]), "127.0.0.1:0") as webhook:
            yield webhook.url


@pytest.mark.parametrize("kind, path", [("health", "/metrics"), ("webhook", "/records")])
def test_clients_that_reset_mid_answer_leave_no_traceback_on_stderr(capfd: pytest.CaptureFixture[str],
                                                                    kind: str, path: str) -> None:
    """A client that gives up (RST before the answer is written) is one debug log line, not socketserver's
    traceback printed straight to stderr past the log format; the server keeps answering."""
    with serving(kind) as url, capture_logs() as logs:
        port = int(url.rsplit(":", 1)[1])
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: {MEDIA_TYPE}\r\n\r\n".encode())
            sock.close()
        request = urllib.request.Request(url + path, headers={"Accept": MEDIA_TYPE})
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert resp.status == 200
    assert "Traceback" not in capfd.readouterr().err
    assert not [e for e in logs if e["log_level"] == "error"]


class Broken(Collector):
    def collect(self) -> Iterator[Metric]:
        raise ValueError("collector is broken")


def test_a_failing_request_is_one_error_line(capfd: pytest.CaptureFixture[str]) -> None:
    registry = CollectorRegistry()
    registry.register(Broken())
    with (HealthServer("127.0.0.1:0", registry=registry) as server, capture_logs() as logs,
          pytest.raises(OSError)):  # the connection closes without an answer
        urllib.request.urlopen(f"{server.url}/metrics", timeout=5)
    assert "Exception occurred" not in capfd.readouterr().err
    assert [e["event"] for e in logs if e["log_level"] == "error"] == [
        "health/metrics request failed: collector is broken"]
