"""/metrics through prometheus_client's own handler on the health server and the webhook server: the text
format by default, OpenMetrics when the scraper asks for it, gzip when accepted, name[] filters, HEAD."""

from __future__ import annotations

import gzip
import http.client
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Counter

from external_dns.controller.health import HealthServer
from external_dns.metrics_http import metrics_response
from tests.helpers.threads import thread_leak_check


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


def get(port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET"
        ) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.fixture
def server() -> Iterator[HealthServer]:
    registry = CollectorRegistry()
    Counter("external_dns_test_things", "things", registry=registry).inc(3)
    Counter("external_dns_other", "other", registry=registry).inc()
    with HealthServer("127.0.0.1:0", registry=registry) as srv:
        yield srv


def test_text_format_by_default(server: HealthServer) -> None:
    code, headers, body = get(server.port, "/metrics")
    assert code == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    assert b"external_dns_test_things_total 3.0" in body and int(headers["content-length"]) == len(body)


def test_openmetrics_when_asked(server: HealthServer) -> None:
    code, headers, body = get(server.port, "/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
    assert code == 200 and headers["content-type"].startswith("application/openmetrics-text; version=1.0.0")
    assert body.endswith(b"# EOF\n") and b"external_dns_test_things_total 3.0" in body


def test_gzip_when_accepted(server: HealthServer) -> None:
    code, headers, body = get(server.port, "/metrics", {"Accept-Encoding": "gzip"})
    assert code == 200 and headers["content-encoding"] == "gzip"
    assert b"external_dns_test_things_total 3.0" in gzip.decompress(body)


def test_name_filter_and_head(server: HealthServer) -> None:
    _, _, body = get(server.port, "/metrics?name[]=external_dns_other_total")
    assert b"external_dns_other_total" in body and b"external_dns_test_things" not in body
    code, headers, body = get(server.port, "/metrics", method="HEAD")
    assert code == 200 and body == b"" and int(headers["content-length"]) > 0


def test_the_webhook_server_uses_the_same_handler() -> None:
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.providers.webhook.server import WebhookServer

    srv = WebhookServer(InMemoryProvider(), "127.0.0.1:0", health_address="127.0.0.1:0")
    srv.start()
    try:
        for port in (srv.port, srv.health_port):
            code, headers, body = get(port, "/metrics", {"Accept": "application/openmetrics-text",
                                                         "Accept-Encoding": "gzip"})
            assert code == 200 and headers["content-type"].startswith("application/openmetrics-text")
            assert gzip.decompress(body).endswith(b"# EOF\n")
    finally:
        srv.stop()


def test_metrics_response_without_a_server() -> None:
    registry = CollectorRegistry()
    code, headers, _ = metrics_response("POST", registry=registry)
    assert code == 405 and ("Allow", "OPTIONS,GET") in headers
