"""Fixtures for the webhook tests: a small dictionary-backed provider served by a real `WebhookServer` on a
free loopback port, and a scriptable HTTP server for misbehaving-peer cases."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Generator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, ProviderError
from external_dns.providers.webhook.server import WebhookServer


class DictProvider(Provider):
    """Records in a dict keyed by (name, type, set identifier); `fail` makes every call raise."""

    def __init__(self, include: list[str] | None = None) -> None:
        self.store: dict[tuple[str, str, str], Endpoint] = {}
        self.include = include or []
        self.fail = False
        self.applied: list[Changes] = []

    def records(self) -> list[Endpoint]:
        if self.fail:
            raise ProviderError("backend down")
        return [e.copy() for e in self.store.values()]

    def apply_changes(self, changes: Changes) -> None:
        if self.fail:
            raise ProviderError("backend refused the change")
        self.applied.append(changes)
        for e in changes.delete + changes.update_old:
            self.store.pop(e.key(), None)
        for e in changes.create + changes.update_new:
            self.store[e.key()] = e.copy()

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        out = []
        for e in endpoints:
            c = e.copy()
            if c.record_ttl == 0:
                c.record_ttl = 300
            out.append(c)
        return out

    def get_domain_filter(self) -> DomainFilter:
        return DomainFilter(include=self.include)


@pytest.fixture
def dict_provider() -> DictProvider:
    return DictProvider(include=["example.com"])


@pytest.fixture
def webhook_server(dict_provider: DictProvider) -> Generator[WebhookServer, None, None]:
    srv = WebhookServer(dict_provider, "127.0.0.1:0", health_address="127.0.0.1:0", max_body_size=4096)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def raw(port: int, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    """One raw HTTP request: (status, content type, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type") or "", resp.read()
    finally:
        conn.close()


class ScriptedServer:
    """A real HTTP server answering from a script: a list of (status, content type, body) per request,
    the last one repeated. `requests` records (method, path, headers) of each request."""

    def __init__(self, script: list[tuple[int, str, bytes]]) -> None:
        self.script = list(script)
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with outer._lock:
                    outer.requests.append((self.command, self.path, dict(self.headers)))
                    status, ctype, body = outer.script[0] if len(outer.script) == 1 else outer.script.pop(0)
                self.send_response(status)
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def scripted() -> Generator[list[ScriptedServer], None, None]:
    """Append ScriptedServer instances to the yielded list; they are closed after the test."""
    servers: list[ScriptedServer] = []
    yield servers
    for s in servers:
        s.close()
