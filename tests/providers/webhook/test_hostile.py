"""The webhook server and client under hostile peers: trickling clients, bad framing, deep JSON, bad
endpoints, many concurrent connections, a trickling server."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from external_dns.providers.provider import SoftError
from external_dns.providers.webhook.client import WebhookClientConfig, WebhookProvider
from external_dns.providers.webhook.protocol import MEDIA_TYPE
from external_dns.providers.webhook.server import WebhookServer
from tests.helpers.threads import thread_leak_check
from tests.providers.webhook.conftest import DictProvider


@pytest.fixture
def no_leak() -> Iterator[None]:
    yield from thread_leak_check()


@pytest.fixture
def server(no_leak: None) -> Iterator[WebhookServer]:
    srv = WebhookServer(DictProvider(include=["example.com"]), "127.0.0.1:0", request_timeout=2.0).start()
    try:
        yield srv
    finally:
        srv.stop()


def _raw(port: int, data: bytes, timeout: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


@pytest.mark.parametrize("headers", [
    b"Content-Length: banana\r\n",
    b"Content-Length: -5\r\n",
    b"Transfer-Encoding: chunked\r\n",
])
def test_bad_framing_is_answered_400(server: WebhookServer, headers: bytes,
                                     capfd: pytest.CaptureFixture[str]) -> None:
    answer = _raw(server.port, b"POST /records HTTP/1.1\r\nHost: x\r\nContent-Type: " + MEDIA_TYPE.encode()
                  + b"\r\n" + headers + b"\r\n5\r\nhello\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
    assert "Traceback" not in capfd.readouterr().err


def test_deeply_nested_json_is_answered_400(server: WebhookServer, capfd: pytest.CaptureFixture[str]) -> None:
    body = b"[" * 200_000
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/records", body=body, headers={"Content-Type": MEDIA_TYPE})
    resp = conn.getresponse()
    assert resp.status == 400 and b"nested too deeply" in resp.read()
    conn.close()
    assert "Traceback" not in capfd.readouterr().err


def test_bad_endpoint_is_skipped_and_the_rest_applied(server: WebhookServer) -> None:
    body = json.dumps({"create": [
        {"dnsName": "a.example.com", "recordType": "A", "targets": ["192.0.2.1"], "recordTTL": 99999999999999},
        {"dnsName": "b.example.com", "recordType": "A", "targets": ["192.0.2.2"]},
        {"dnsName": "\U0001f600.example.com", "recordType": "A", "targets": ["192.0.2.3"]},
    ]})
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/records", body=body, headers={"Content-Type": MEDIA_TYPE})
    assert conn.getresponse().status == 204
    conn.close()
    provider = server.provider
    assert isinstance(provider, DictProvider)
    assert sorted(k[0] for k in provider.store) == ["b.example.com"]


def test_stop_does_not_wait_for_a_trickling_client(no_leak: None) -> None:
    srv = WebhookServer(DictProvider(include=["example.com"]), "127.0.0.1:0").start()  # 30 s request timeout
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    s.sendall(b"POST /records HTTP/1.1\r\nHost: x\r\nContent-Type: " + MEDIA_TYPE.encode()
              + b"\r\nContent-Length: 1000\r\n\r\n{")
    time.sleep(0.3)  # the handler is now reading the body
    started = time.monotonic()
    srv.stop()
    assert time.monotonic() - started < 3
    s.close()


def test_reaper_cuts_a_trickling_client(server: WebhookServer) -> None:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.sendall(b"POST /records HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
    started = time.monotonic()
    closed = False
    while time.monotonic() - started < 8:
        try:
            s.sendall(b" ")
        except OSError:
            closed = True
            break
        time.sleep(0.2)
    s.close()
    assert closed and time.monotonic() - started < 6


def test_one_hundred_concurrent_requests_all_answered(server: WebhookServer) -> None:
    errors: list[str] = []
    barrier = threading.Barrier(100)

    def get() -> None:
        try:
            barrier.wait(timeout=10)
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
            conn.request("GET", "/healthz")
            if conn.getresponse().status != 200:
                errors.append("status")
            conn.close()
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=get) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []


def test_thread_count_is_bounded(no_leak: None) -> None:
    before = threading.active_count()
    srv = WebhookServer(DictProvider(), "127.0.0.1:0", max_threads=4, request_timeout=2.0).start()
    socks = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(20)]
    time.sleep(0.5)
    assert threading.active_count() - before <= 4 + 2  # 4 connection threads + accept loop + reaper
    for s in socks:
        s.close()
    srv.stop()


class _Trickle(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path == "/":  # negotiation answers at once
            body = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", MEDIA_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", MEDIA_TYPE)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_client_total_deadline_against_a_trickling_server() -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    httpd.daemon_threads = True
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        cfg = WebhookClientConfig(url=f"http://127.0.0.1:{httpd.server_address[1]}", read_timeout=1.0,
                                  write_timeout=1.0, negotiate_attempts=1)
        provider = WebhookProvider(cfg)
        started = time.monotonic()
        with pytest.raises(SoftError, match="within 2s"):
            provider.records()
        assert time.monotonic() - started < 4
    finally:
        httpd.shutdown()
        httpd.server_close()
        t.join(timeout=5)


def test_idle_connections_do_not_starve_healthz(no_leak: None) -> None:
    srv = WebhookServer(DictProvider(), "127.0.0.1:0", max_threads=8, request_timeout=30.0).start()
    try:
        idle = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(40)]
        time.sleep(1.5)  # every thread is now held by an idle connection
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()
        assert time.monotonic() - started < 15  # shed idle connections instead of waiting out their 30 s timeout
        for s in idle:
            s.close()
    finally:
        srv.stop()
