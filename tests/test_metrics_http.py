"""/metrics through prometheus_client's own handler on the health server and the webhook server: the text
format by default, OpenMetrics when the scraper asks for it, gzip when accepted, name[] filters, HEAD."""

from __future__ import annotations

import gzip
import http.client
import math
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Counter

from external_dns.controller.health import HealthServer
from external_dns.metrics_http import RequestDurations, declare_unsuffixed_counter, metrics_response
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


def test_request_durations_rank_the_recent_observations() -> None:
    """The summary's quantiles come from the observations of the last `max_age` seconds (count and sum from
    all of them); label sets past `max_series` are counted under path "other"."""
    now = [0.0]
    durations = RequestDurations(clock=lambda: now[0], max_age=600.0, window=100, max_series=2)
    for i in range(1, 101):
        durations.observe("https", "api:6443", "services", "GET", "200", i / 100)
    now[0] = 300.0
    durations.observe("https", "api:6443", "services", "GET", "200", 5.0)  # 101 observed, the window keeps 100

    def samples() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        return {(s.name, tuple(sorted(s.labels.items()))): s.value for m in durations.collect() for s in m.samples}

    labels = {"handler": "instrumented_http", "scheme": "https", "host": "api:6443", "path": "services",
              "method": "GET", "status": "200"}

    def q(value: str) -> float:
        return samples()[(RequestDurations.NAME, tuple(sorted({**labels, "quantile": value}.items())))]

    assert (q("0.5"), q("0.9"), q("0.99")) == (0.51, 0.91, 1.0)  # ranks over 0.02 .. 1.00 and 5.0
    assert samples()[(RequestDurations.NAME + "_count", tuple(sorted(labels.items())))] == 101
    assert samples()[(RequestDurations.NAME + "_sum", tuple(sorted(labels.items())))] == pytest.approx(55.5)
    now[0] = 900.0  # the first hundred are older than 10 minutes
    assert (q("0.5"), q("0.99")) == (5.0, 5.0)
    now[0] = 1000.0
    assert math.isnan(q("0.5"))  # nothing recent: NaN, as a Go summary
    durations.observe("https", "api:6443", "leases", "PUT", "200", 0.1)
    durations.observe("https", "api:6443", "my-record", "PATCH", "200", 0.1)  # a third label set
    assert samples()[(RequestDurations.NAME + "_count", tuple(sorted(
        {**labels, "path": "other", "method": "PATCH"}.items())))] == 1


def test_unsuffixed_counters_are_typed_counter_in_the_text_format() -> None:
    """external-dns's counters named without `_total` (the provider cache's): `counter` in the text format its
    own handler serves, `unknown` under OpenMetrics (which would need `_total`), same sample names in both."""
    from prometheus_client.metrics_core import Metric

    class Calls:
        def collect(self) -> Iterator[Metric]:
            family = Metric("external_dns_test_calls", "calls", "unknown")
            family.add_sample("external_dns_test_calls", {}, 2.0)
            yield family

    registry = CollectorRegistry()
    registry.register(Calls())
    declare_unsuffixed_counter("external_dns_test_calls")
    _, _, text = metrics_response("GET", registry=registry)
    assert b"# TYPE external_dns_test_calls counter\nexternal_dns_test_calls 2.0\n" in text
    _, headers, body = metrics_response("GET", registry=registry, accept_encoding="gzip")
    assert ("Content-Encoding", "gzip") in headers and gzip.decompress(body) == text
    _, _, om = metrics_response("GET", registry=registry, accept="application/openmetrics-text; version=1.0.0")
    assert b"# TYPE external_dns_test_calls unknown\nexternal_dns_test_calls 2.0\n" in om


def test_provider_cache_calls_are_typed_counters() -> None:
    import external_dns.providers.provider  # noqa: F401  (registers the provider-cache counters)

    _, _, text = metrics_response("GET")
    assert b"# TYPE external_dns_provider_cache_records_calls counter\n" in text
    assert b"# TYPE external_dns_provider_cache_apply_changes_calls counter\n" in text
