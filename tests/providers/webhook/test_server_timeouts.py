"""--webhook-provider-read-header-timeout and --webhook-provider-idle-timeout on the webhook server: a new
connection that sends no request headers is closed after the header timeout, a kept-alive connection left idle
after the idle timeout; within its idle timeout a kept-alive connection serves the next request."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from external_dns.cmd.webhook_server import webhook_server_main
from external_dns.providers.webhook.server import WebhookServer
from tests.providers.webhook.conftest import DictProvider

LONG = 30.0  # the timeouts a test does not exercise
REQUEST = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[WebhookServer]:
    header, idle = request.param
    srv = WebhookServer(DictProvider(), "127.0.0.1:0", request_timeout=LONG, read_header_timeout=header,
                        idle_timeout=idle).start()
    try:
        yield srv
    finally:
        srv.stop()


def _closed_after(sock: socket.socket) -> float:
    """Seconds until the server closes `sock` (reads and drops whatever it sends first)."""
    start = time.monotonic()
    sock.settimeout(LONG / 2)
    while sock.recv(4096):
        pass
    return time.monotonic() - start


def _response(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    data = b""
    while b"ok\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, data
        data += chunk
    return data


@pytest.mark.parametrize("server", [(0.5, LONG)], indirect=True)
def test_no_headers_within_the_header_timeout_closes(server: WebhookServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /healthz HTT")  # a request line that never ends
        assert _closed_after(sock) < LONG / 4


@pytest.mark.parametrize("server", [(LONG, 0.5)], indirect=True)
def test_idle_kept_alive_connection_closes_after_the_idle_timeout(server: WebhookServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(REQUEST)
        assert b"200" in _response(sock).split(b"\r\n", 1)[0]
        assert _closed_after(sock) < LONG / 4


@pytest.mark.parametrize("server", [(LONG, LONG)], indirect=True)
def test_kept_alive_connection_serves_the_next_request(server: WebhookServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        for _ in range(2):
            sock.sendall(REQUEST)
            assert b"200" in _response(sock).split(b"\r\n", 1)[0]


def test_the_sub_command_applies_the_flags() -> None:
    """`external-dns webhook-server --webhook-provider-idle-timeout=500ms`: an idle kept-alive connection closes."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    stop = threading.Event()
    codes: list[int] = []
    argv = ["--provider=inmemory", "--inmemory-zone=example.org", f"--webhook-server-address=127.0.0.1:{port}",
            "--webhook-provider-idle-timeout=500ms", f"--webhook-provider-read-header-timeout={LONG}s"]
    thread = threading.Thread(target=lambda: codes.append(webhook_server_main(argv, stop)), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline, "webhook-server did not start"
                time.sleep(0.05)
        with sock:
            sock.sendall(REQUEST)
            assert b"200" in _response(sock).split(b"\r\n", 1)[0]
            assert _closed_after(sock) < LONG / 4
    finally:
        stop.set()
        thread.join(timeout=15)
    assert codes == [0]
