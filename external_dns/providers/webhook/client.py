"""The webhook provider client (`--provider=webhook`): drives an external-dns webhook provider over HTTP.

Start-up negotiation (`GET <url>` with our media type) is tried up to 5 times with exponential backoff on
connection errors and 5xx; 3xx/4xx or a wrong `Content-Type` fail at once. At run time nothing is retried:
a 500-510 answer or a connection failure is a `SoftError` (the controller retries with backoff), 401/403 a
`WebhookAuthError` (a configuration error: the long-running process exits 1), any other unexpected status a
`ProviderError`. Timeouts: `--webhook-provider-write-timeout` to connect and send,
`--webhook-provider-read-timeout` for the answer; the whole request has a total deadline of both together (a
server trickling a byte every 2 s never times out per read: a timer closes the socket at the deadline);
answers are capped at `--webhook-provider-max-body-size`.
Reference objects survive `adjust_endpoints` (matched back by endpoint key), as in external-dns.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import socket
import threading
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

import structlog
from prometheus_client import Counter, Gauge

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.errors import ConfigError
from external_dns.metrics_http import observe_request
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, ProviderError, SoftError
from external_dns.providers.webhook.protocol import (
    MEDIA_TYPE,
    PATH_ADJUST,
    PATH_RECORDS,
    decode_json,
    endpoints_from_body,
    endpoints_to_body,
    to_body,
)
from external_dns.redact import redact_urls

log = structlog.get_logger(__name__)

CLIENT_REQUESTS = Counter("external_dns_webhook_provider_requests_total",
                          "Requests sent to the webhook provider, by call and outcome.", ["call", "outcome"])


class _CallGauges:
    """external-dns's per-call metrics of its webhook client, under its names and types (gauges named
    `..._total`, sic: provider/webhook/webhook.go): `external_dns_webhook_provider_<call>_requests_total`, one
    more at each call, and `..._errors_total`, one more when the call fails (no answer, an unexpected status,
    an answer that does not decode)."""

    def __init__(self, call: str, method: str) -> None:
        self.requests = Gauge(f"external_dns_webhook_provider_{call}_requests_total", f"Requests with {method} method")
        self.errors = Gauge(f"external_dns_webhook_provider_{call}_errors_total", f"Errors with {method} method")


CALL_GAUGES = {"records": _CallGauges("records", "Records"),
               "apply_changes": _CallGauges("applychanges", "ApplyChanges"),
               "adjust_endpoints": _CallGauges("adjustendpoints", "AdjustEndpoints")}
NEGOTIATE_ATTEMPTS = 5


@dataclass(frozen=True)
class WebhookClientConfig:
    url: str = "http://localhost:8888"
    read_timeout: float = 5.0
    write_timeout: float = 10.0
    max_body_size: int = 32 * 1024 * 1024
    negotiate_attempts: int = NEGOTIATE_ATTEMPTS
    negotiate_backoff: float = 0.5  # first retry delay; doubles each time


class WebhookAuthError(ProviderError, ConfigError):
    """The webhook answered 401/403: our credentials are refused; retrying cannot fix it."""


class _Transient(Exception):
    """A connection failure or 5xx during negotiation (retried)."""


@dataclass
class _Response:
    status: int
    content_type: str
    body: bytes


class WebhookProvider(Provider):
    """A provider whose records live behind an external-dns webhook."""

    def __init__(self, config: WebhookClientConfig, stop: threading.Event | None = None) -> None:
        self.config = config
        parsed = urllib.parse.urlsplit(config.url)
        self._display_url = redact_urls(config.url)  # never log the password of `http://user:pass@host`
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ProviderError(f"--webhook-provider-url must be an http(s) URL, got {self._display_url!r}")
        self._auth: dict[str, str] = {}
        if parsed.username is not None:  # credentials in the URL: HTTP Basic, as Go's http client does
            creds = f"{urllib.parse.unquote(parsed.username)}:{urllib.parse.unquote(parsed.password or '')}"
            self._auth = {"Authorization": "Basic " + base64.b64encode(creds.encode()).decode("ascii")}
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port or (443 if parsed.scheme == "https" else 80)
        self._base_path = parsed.path.rstrip("/")
        # scheme://host[:port] as the URL gives it, without credentials (the HTTP metric's labels)
        self._metrics_origin = f"{parsed.scheme}://{parsed.netloc.rpartition('@')[2]}"
        self._stop = stop or threading.Event()
        self._domain_filter = self._negotiate()

    # -- HTTP -----------------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: bytes | None = None,
                 headers: dict[str, str] | None = None) -> _Response:
        total = self.config.write_timeout + self.config.read_timeout
        started = time.monotonic()
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self.config.write_timeout)
        cut = threading.Event()

        def cut_off() -> None:  # the total deadline: wake whatever read or write is blocked
            cut.set()
            if conn.sock is not None:
                with contextlib.suppress(OSError):
                    conn.sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(total, cut_off)
        timer.daemon = True
        timer.start()
        status: int | None = None
        try:
            resp = self._exchange(conn, method, path, body, headers)
            if cut.is_set():  # cut off mid-answer: what was read may be partial
                raise OSError("connection closed at the deadline")
            status = resp.status
            return resp
        except (OSError, http.client.HTTPException) as exc:
            if cut.is_set():
                raise TimeoutError(f"no complete answer within {total:g}s "
                                   f"(after {time.monotonic() - started:.1f}s)") from exc
            raise
        finally:
            timer.cancel()
            timer.join()
            conn.close()
            observe_request(f"{self._metrics_origin}{(self._base_path + path) or '/'}", method, status,
                            time.monotonic() - started)

    def _exchange(self, conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None,
                  headers: dict[str, str] | None) -> _Response:
        conn.request(method, (self._base_path + path) or "/", body=body, headers={**(headers or {}), **self._auth})
        if conn.sock is not None:
            conn.sock.settimeout(self.config.read_timeout)
        resp = conn.getresponse()
        cap = self.config.max_body_size
        data = resp.read(cap + 1) if cap else resp.read()
        if cap and len(data) > cap:
            raise ProviderError(f"webhook {method} {path or '/'}: response body exceeds "
                                f"--webhook-provider-max-body-size ({cap} bytes)")
        return _Response(resp.status, resp.getheader("Content-Type") or "", data)

    def _call(self, call: str, method: str, path: str, ok: int, failure: str, body: bytes | None = None,
              headers: dict[str, str] | None = None) -> _Response:
        CALL_GAUGES[call].requests.inc()
        try:
            resp = self._request(method, path, body, headers)
        except (TimeoutError, OSError, http.client.HTTPException) as exc:
            CLIENT_REQUESTS.labels(call, "connection_error").inc()
            CALL_GAUGES[call].errors.inc()
            raise SoftError(f"failed to connect to webhook: {type(exc).__name__}: {exc}") from None
        if resp.status == ok:
            CLIENT_REQUESTS.labels(call, "ok").inc()
            return resp
        CALL_GAUGES[call].errors.inc()
        detail = resp.body[:200].decode("utf-8", errors="replace").strip()
        message = f"{failure} with code {resp.status}" + (f": {detail}" if detail else "")
        if 500 <= resp.status <= 510:
            CLIENT_REQUESTS.labels(call, "soft_error").inc()
            raise SoftError(message)
        CLIENT_REQUESTS.labels(call, "error").inc()
        if resp.status in (401, 403):
            raise WebhookAuthError(message)
        raise ProviderError(message)

    # -- negotiation ----------------------------------------------------------------------------------------
    def _negotiate_once(self) -> DomainFilter:
        try:
            resp = self._request("GET", "", headers={"Accept": MEDIA_TYPE})
        except (OSError, http.client.HTTPException) as exc:
            raise _Transient(f"failed to connect to webhook: {type(exc).__name__}: {exc}") from None
        if resp.status >= 500:
            raise _Transient(f"webhook negotiation failed with code {resp.status}")
        if not 200 <= resp.status < 300:
            raise ProviderError(f"webhook negotiation at {self._display_url} failed with code {resp.status}")
        if resp.content_type.strip() != MEDIA_TYPE:
            raise ProviderError(f"wrong content type returned from server: {resp.content_type!r} "
                                f"(want {MEDIA_TYPE})")
        try:
            data = decode_json(resp.body) if resp.body.strip() else {}
            return DomainFilter.from_json(data)
        except ValueError as exc:
            raise ProviderError(f"webhook negotiation: bad domain filter: {exc}") from None

    def _negotiate(self) -> DomainFilter:
        delay = self.config.negotiate_backoff
        for attempt in range(1, self.config.negotiate_attempts + 1):
            try:
                flt = self._negotiate_once()
                CLIENT_REQUESTS.labels("negotiate", "ok").inc()
                log.info("webhook provider negotiated", url=self._display_url, domain_filter=flt.to_json())
                return flt
            except _Transient as exc:
                CLIENT_REQUESTS.labels("negotiate", "retry").inc()
                if attempt == self.config.negotiate_attempts:
                    raise ProviderError(f"{exc} (gave up after {attempt} attempts at {self._display_url})") from None
                log.warning("webhook negotiation failed, retrying", attempt=attempt, error=str(exc),
                            retry_in=delay)
                if self._stop.wait(delay):
                    raise ProviderError("webhook negotiation interrupted by shutdown") from None
                delay *= 2
        raise AssertionError("unreachable")

    # -- Provider -------------------------------------------------------------------------------------------
    def get_domain_filter(self) -> DomainFilter:
        return self._domain_filter

    def zones(self) -> Sequence[str]:
        return ("",)

    def records(self) -> list[Endpoint]:
        resp = self._call("records", "GET", PATH_RECORDS, 200, "failed to get records",
                          headers={"Accept": MEDIA_TYPE})
        try:
            return endpoints_from_body(resp.body)
        except ValueError as exc:
            CALL_GAUGES["records"].errors.inc()
            raise ProviderError(f"webhook records: bad response: {exc}") from None

    def apply_changes(self, changes: Changes) -> None:
        body = to_body(changes.to_json())
        self._call("apply_changes", "POST", PATH_RECORDS, 204, "failed to apply changes", body,
                   {"Content-Type": MEDIA_TYPE})

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        resp = self._call("adjust_endpoints", "POST", PATH_ADJUST, 200, "failed to AdjustEndpoints",
                          endpoints_to_body(endpoints), {"Content-Type": MEDIA_TYPE, "Accept": MEDIA_TYPE})
        try:
            adjusted = endpoints_from_body(resp.body)
        except ValueError as exc:
            CALL_GAUGES["adjust_endpoints"].errors.inc()
            raise ProviderError(f"webhook adjustendpoints: bad response: {exc}") from None
        refs = {e.key(): e.ref_objects for e in endpoints if e.ref_objects}
        for e in adjusted:
            if e.key() in refs:
                e.ref_objects = list(refs[e.key()])
        return adjusted
