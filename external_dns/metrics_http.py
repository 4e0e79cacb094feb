"""`/metrics` answered by prometheus_client's own WSGI app, for the health server and the webhook server:
the text format or OpenMetrics by the `Accept` header, gzip by `Accept-Encoding`, `name[]` filters, as
Prometheus scrapers and the Go client's handler expect. A ground module: http.server handlers call
`metrics_response(...)` and send what it returns. `LoggedRequestErrors`: both servers' failed requests as
log lines. Also the metrics that several layers feed: `external_dns_http_request_duration_seconds`
(`observe_request`, external-dns's summary of every HTTP request it sends) and the counters external-dns
names without `_total` (`declare_unsuffixed_counter`)."""

from __future__ import annotations

import gzip
import math
import sys
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import gzip_accepted
from prometheus_client.metrics_core import Metric

log = structlog.get_logger(__name__)

_apps: dict[int, tuple[CollectorRegistry, Callable[..., Iterable[bytes]]]] = {}
_lock = threading.Lock()


def _app(registry: CollectorRegistry) -> Callable[..., Iterable[bytes]]:
    with _lock:
        entry = _apps.get(id(registry))
        if entry is None or entry[0] is not registry:
            entry = (registry, make_wsgi_app(registry))
            _apps[id(registry)] = entry
        return entry[1]


def metrics_response(method: str, query: str = "", accept: str | None = None,
                     accept_encoding: str | None = None, registry: CollectorRegistry | None = None,
                     ) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status code, headers (Content-Type, Content-Encoding, ...) and body for a `/metrics` request.
    HEAD is answered as GET without the body (the caller drops it); other methods as prometheus_client does."""
    environ: dict[str, Any] = {"REQUEST_METHOD": "GET" if method == "HEAD" else method, "PATH_INFO": "/metrics",
                               "QUERY_STRING": query}
    if accept:
        environ["HTTP_ACCEPT"] = accept
    # gzip is applied below, after the text format's counter types are set (`_typed_text`)
    status: list[str] = []
    headers: list[tuple[str, str]] = []

    def start_response(line: str, response_headers: list[tuple[str, str]]) -> None:
        status.append(line)
        headers.extend(response_headers)

    body = b"".join(_app(registry if registry is not None else REGISTRY)(environ, start_response))
    body = _typed_text(headers, body)
    if accept_encoding and gzip_accepted(accept_encoding) and int(status[0].split(" ", 1)[0]) == 200:
        body = gzip.compress(body)
        headers.append(("Content-Encoding", "gzip"))
    return int(status[0].split(" ", 1)[0]), headers, body


# -- counters named without `_total` ---------------------------------------------------------------------------
# external-dns (Go) names some counters without `_total`. prometheus_client would add the suffix to a counter
# (a Counter's samples are `<name>_total`), and OpenMetrics requires it, so such a counter is collected as
# `unknown` under its exact name (series names then match external-dns's in both formats), and the text format
# (what external-dns's own handler serves) types it `counter`, as external-dns does.
_UNSUFFIXED_COUNTERS: set[str] = set()


def declare_unsuffixed_counter(name: str) -> None:
    """`name` is collected as `unknown` (samples named `name`) and served typed `counter` in the text format."""
    _UNSUFFIXED_COUNTERS.add(name)


def _typed_text(headers: list[tuple[str, str]], body: bytes) -> bytes:
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    if not content_type.startswith("text/plain") or not _UNSUFFIXED_COUNTERS:
        return body
    body = b"\n" + body  # every TYPE line then follows a newline, the first one too
    for name in _UNSUFFIXED_COUNTERS:
        body = body.replace(f"\n# TYPE {name} untyped\n".encode(), f"\n# TYPE {name} counter\n".encode())
    return body[1:]


# -- external_dns_http_request_duration_seconds ----------------------------------------------------------------
class RequestDurations:
    """external-dns's `external_dns_http_request_duration_seconds` summary (pkg/http: const label
    handler="instrumented_http"; labels scheme, host, path (the URL path's last segment), method, status (""
    when no answer came); quantiles 0.5, 0.9, 0.99 over the last 10 minutes, as Go's summary defaults).
    prometheus_client's Summary has no quantiles, so this collector keeps each label set's latest
    observations (at most `window`, none older than `max_age`) and ranks them when scraped; at most
    `max_series` label sets (later ones are counted under path "other")."""

    NAME = "external_dns_http_request_duration_seconds"
    OBJECTIVES = (0.5, 0.9, 0.99)
    LABELS = ("scheme", "host", "path", "method", "status")

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, max_age: float = 600.0, window: int = 500,
                 max_series: int = 1000) -> None:
        self._clock = clock
        self._max_age = max_age
        self._window = window
        self._max_series = max_series
        self._lock = threading.Lock()
        # label values -> [count, sum, recent (time, seconds)]
        self._series: dict[tuple[str, ...], tuple[list[float], deque[tuple[float, float]]]] = {}

    def observe(self, scheme: str, host: str, path: str, method: str, status: str, seconds: float) -> None:
        key = (scheme, host, path, method, status)
        now = self._clock()
        with self._lock:
            series = self._series.get(key)
            if series is None:
                if len(self._series) >= self._max_series:
                    key = (scheme, host, "other", method, status)
                    series = self._series.get(key)
                if series is None:
                    series = self._series[key] = ([0.0, 0.0], deque(maxlen=self._window))
            totals, recent = series
            totals[0] += 1
            totals[1] += seconds
            recent.append((now, seconds))

    def collect(self) -> Iterator[Metric]:
        family = Metric(self.NAME, "The HTTP request latencies in seconds.", "summary")
        oldest = self._clock() - self._max_age
        with self._lock:
            snapshot = [(key, totals[0], totals[1], sorted(v for t, v in recent if t >= oldest))
                        for key, (totals, recent) in sorted(self._series.items())]
        for key, count, total, values in snapshot:
            labels = {"handler": "instrumented_http", **dict(zip(self.LABELS, key, strict=True))}
            for q in self.OBJECTIVES:
                value = values[max(0, math.ceil(q * len(values)) - 1)] if values else math.nan
                family.add_sample(self.NAME, {**labels, "quantile": str(q)}, value)
            family.add_sample(self.NAME + "_sum", labels, total)
            family.add_sample(self.NAME + "_count", labels, count)
        yield family


REQUEST_DURATIONS = RequestDurations()
REGISTRY.register(REQUEST_DURATIONS)


def observe_request(url: str, method: str, status: int | None, seconds: float) -> None:
    """One HTTP request sent (to the Kubernetes API, a webhook provider, ...): `status` None when no answer
    came. Labels as external-dns's instrumented transport: scheme, host (with a port when the URL names one),
    the path's last segment, the method, the status code."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]  # never a password of `http://user:pass@host`
    REQUEST_DURATIONS.observe(parts.scheme, host, parts.path.rsplit("/", 1)[-1], method,
                              "" if status is None else str(status), seconds)


class LoggedRequestErrors:
    """Mixin for a socketserver server (before the server class): a failed request is one log line, not
    socketserver's traceback written straight to stderr past the log format. A client gone mid-answer (a
    probe that timed out, a reset, a connection the server cut) is routine: a debug line."""

    request_errors_name = "http"  # the server, as the lines name it

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        client = ":".join(str(part) for part in client_address[:2]) if isinstance(client_address, tuple) else ""
        name, text = self.request_errors_name, (str(exc) or type(exc).__name__) if exc is not None else ""
        if exc is None or isinstance(exc, ConnectionError | TimeoutError):
            log.debug(f"{name} client went away", client=client, error=text)
        else:
            log.error(f"{name} request failed: {text}", client=client, exc_info=exc)
