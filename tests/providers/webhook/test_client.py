"""The webhook client against our own server over real HTTP, and against scripted misbehaving peers."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from external_dns.cmd.build_providers import build_webhook as build
from external_dns.cmd.config import parse_config
from external_dns.controller.outcomes import is_fatal_error
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.provider import ProviderError, SoftError
from external_dns.providers.webhook.client import WebhookAuthError, WebhookClientConfig, WebhookProvider
from external_dns.providers.webhook.protocol import MEDIA_TYPE
from external_dns.providers.webhook.server import WebhookServer
from tests.providers.webhook.conftest import DictProvider, ScriptedServer


def E(name: str, rtype: str, targets: list[str], ttl: int = 0, **kw: Any) -> Endpoint:
    return Endpoint(name, rtype, Targets(targets), ttl, **kw)


def client(url: str, **kw: object) -> WebhookProvider:
    cfg = {"url": url, "read_timeout": 2.0, "write_timeout": 2.0, "negotiate_backoff": 0.01, **kw}
    return WebhookProvider(WebhookClientConfig(**cfg))  # type: ignore[arg-type]


def test_round_trip_against_our_server(webhook_server: WebhookServer, dict_provider: DictProvider) -> None:
    c = client(webhook_server.url)
    assert c.get_domain_filter().match("a.example.com")
    assert not c.get_domain_filter().match("a.example.org")

    ref = {"kind": "Service", "metadata": {"name": "web", "namespace": "default"}}
    desired = [E("web.example.com", "A", ["10.0.0.1"], labels={"resource": "service/default/web"},
                        ref_objects=[ref])]
    adjusted = c.adjust_endpoints(desired)
    assert adjusted[0].record_ttl == 300
    assert adjusted[0].ref_objects == [ref]  # kept client-side across the call

    c.apply_changes(Changes(create=adjusted))
    got = c.records()
    assert [(e.dns_name, list(e.targets), e.record_ttl) for e in got] == [("web.example.com", ["10.0.0.1"], 300)]
    assert got[0].labels == {"resource": "service/default/web"}

    c.apply_changes(Changes(update_old=got, update_new=[E("web.example.com", "A", ["10.0.0.2"], 300)]))
    assert dict_provider.store[("web.example.com", "A", "")].targets == ["10.0.0.2"]
    c.apply_changes(Changes(delete=c.records()))
    assert c.records() == []


def test_runtime_5xx_is_soft_and_other_errors_hard(webhook_server: WebhookServer,
                                                   dict_provider: DictProvider) -> None:
    c = client(webhook_server.url)
    dict_provider.fail = True
    with pytest.raises(SoftError, match="failed to get records with code 500"):
        c.records()
    with pytest.raises(SoftError, match="failed to apply changes with code 500"):
        c.apply_changes(Changes(create=[E("a.example.com", "A", ["1.1.1.1"])]))
    dict_provider.fail = False
    # over the server's 4096-byte cap -> 413 -> a hard error
    big = Changes(create=[E(f"n{i}.example.com", "A", ["1.1.1.1"]) for i in range(200)])
    with pytest.raises(ProviderError, match="failed to apply changes with code 413") as info:
        c.apply_changes(big)
    assert not isinstance(info.value, SoftError)


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_are_a_configuration_error(scripted: list[ScriptedServer], status: int) -> None:
    srv = ScriptedServer([(200, MEDIA_TYPE, b"{}"), (status, "text/plain", b"bad token")])
    scripted.append(srv)
    with pytest.raises(WebhookAuthError, match=f"failed to get records with code {status}: bad token") as info:
        client(srv.url).records()
    assert is_fatal_error(info.value)  # the long-running process exits 1 instead of retrying


def test_negotiation_needs_the_exact_media_type(scripted: list[ScriptedServer]) -> None:
    srv = ScriptedServer([(200, "application/json", b"{}")])
    scripted.append(srv)
    with pytest.raises(ProviderError, match="wrong content type returned from server"):
        client(srv.url)
    assert srv.requests[0][2]["Accept"] == MEDIA_TYPE


def test_negotiation_retries_5xx_then_succeeds(scripted: list[ScriptedServer]) -> None:
    srv = ScriptedServer([(503, "text/plain", b"starting"), (502, "", b""),
                          (200, MEDIA_TYPE, b'{"regexInclude":"\\\\.example\\\\.net$"}')])
    scripted.append(srv)
    c = client(srv.url)
    assert len(srv.requests) == 3
    assert c.get_domain_filter().match("a.example.net") and not c.get_domain_filter().match("example.net")


def test_negotiation_4xx_is_permanent(scripted: list[ScriptedServer]) -> None:
    srv = ScriptedServer([(404, "text/plain", b"no")])
    scripted.append(srv)
    with pytest.raises(ProviderError, match="code 404"):
        client(srv.url)
    assert len(srv.requests) == 1


def test_negotiation_gives_up_after_five_attempts(scripted: list[ScriptedServer]) -> None:
    srv = ScriptedServer([(500, "text/plain", b"down")])
    scripted.append(srv)
    with pytest.raises(ProviderError, match="gave up after 5 attempts"):
        client(srv.url)
    assert len(srv.requests) == 5


def test_unreachable_server_at_start_and_at_run_time(webhook_server: WebhookServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"  # bound but not listening: refused
        with pytest.raises(ProviderError, match="failed to connect to webhook"):
            client(dead, negotiate_attempts=2)
    c = client(webhook_server.url)
    webhook_server.stop()
    with pytest.raises(SoftError, match="failed to connect to webhook"):
        c.records()


def test_response_body_cap(scripted: list[ScriptedServer]) -> None:
    big = b"[" + b",".join([b'{"dnsName":"a.example.com","recordType":"A","targets":["1.1.1.1"]}'] * 100) + b"]"
    srv = ScriptedServer([(200, MEDIA_TYPE, b"{}"), (200, MEDIA_TYPE, big)])
    scripted.append(srv)
    c = client(srv.url, max_body_size=1000)
    with pytest.raises(ProviderError, match="max-body-size"):
        c.records()


def test_bad_records_answer_names_the_field(scripted: list[ScriptedServer]) -> None:
    srv = ScriptedServer([(200, MEDIA_TYPE, b"{}"), (200, MEDIA_TYPE, b'[{"dnsName": 5}]')])
    scripted.append(srv)
    with pytest.raises(ProviderError, match="dnsName"):
        client(srv.url).records()


def test_build_from_flags(webhook_server: WebhookServer) -> None:
    cfg = parse_config(["--provider=webhook", f"--webhook-provider-url={webhook_server.url}",
                        "--webhook-provider-read-timeout=3s", "--webhook-provider-max-body-size=1234"], {})
    p = build(cfg)
    assert p.config.read_timeout == 3.0 and p.config.write_timeout == 10.0 and p.config.max_body_size == 1234
    assert p.records() == []


def test_upstreams_call_metrics_and_request_durations(webhook_server: WebhookServer, dict_provider: DictProvider,
                                                      scripted: list[ScriptedServer]) -> None:
    """external-dns's six `external_dns_webhook_provider_<call>_{requests,errors}_total` (gauges, as Go's) count
    calls and failed calls; every request lands in `external_dns_http_request_duration_seconds` with Go's
    labels (the path's last segment, the status code)."""
    from prometheus_client import REGISTRY, generate_latest

    def value(name: str, labels: dict[str, str] | None = None) -> float:
        return REGISTRY.get_sample_value(name, labels or {}) or 0.0

    gauges = [f"external_dns_webhook_provider_{call}_{kind}_total"
              for call in ("records", "applychanges", "adjustendpoints") for kind in ("requests", "errors")]
    host = webhook_server.url.split("://", 1)[1].rstrip("/")
    count = "external_dns_http_request_duration_seconds_count"
    records_ok = {"handler": "instrumented_http", "scheme": "http", "host": host, "path": "records",
                  "method": "GET", "status": "200"}
    before = {name: value(name) for name in gauges} | {"durations": value(count, records_ok)}

    c = client(webhook_server.url)
    c.adjust_endpoints([E("a.example.com", "A", ["10.0.0.1"])])
    c.apply_changes(Changes(create=[E("a.example.com", "A", ["10.0.0.1"])]))
    c.records()
    c.records()
    dict_provider.fail = True
    with pytest.raises(SoftError):
        c.records()
    dict_provider.fail = False
    srv = ScriptedServer([(200, MEDIA_TYPE, b"{}"), (200, MEDIA_TYPE, b"not json")])
    scripted.append(srv)
    with pytest.raises(ProviderError):
        client(srv.url).adjust_endpoints([E("a.example.com", "A", ["10.0.0.1"])])

    delta = {name: value(name) - before[name] for name in gauges}
    assert delta == {
        "external_dns_webhook_provider_records_requests_total": 3,
        "external_dns_webhook_provider_records_errors_total": 1,
        "external_dns_webhook_provider_applychanges_requests_total": 1,
        "external_dns_webhook_provider_applychanges_errors_total": 0,
        "external_dns_webhook_provider_adjustendpoints_requests_total": 2,
        "external_dns_webhook_provider_adjustendpoints_errors_total": 1,
    }
    assert value(count, records_ok) - before["durations"] == 2
    assert value(count, {**records_ok, "status": "500"}) >= 1
    text = generate_latest(REGISTRY).decode()
    assert "# TYPE external_dns_webhook_provider_records_requests_total gauge" in text
    assert "# TYPE external_dns_http_request_duration_seconds summary" in text
    quantiles = {line.split('quantile="')[1].split('"')[0] for line in text.splitlines()
                 if line.startswith("external_dns_http_request_duration_seconds{") and 'path="records"' in line}
    assert quantiles == {"0.5", "0.9", "0.99"}
