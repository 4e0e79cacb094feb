"""`/metrics` answered by prometheus_client's own WSGI app, for the health server and the webhook server:
the text format or OpenMetrics by the `Accept` header, gzip by `Accept-Encoding`, `name[]` filters, as
Prometheus scrapers and the Go client's handler expect. A ground module: http.server handlers call
`metrics_response(...)` and send what it returns."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app

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
    if accept_encoding:
        environ["HTTP_ACCEPT_ENCODING"] = accept_encoding
    status: list[str] = []
    headers: list[tuple[str, str]] = []

    def start_response(line: str, response_headers: list[tuple[str, str]]) -> None:
        status.append(line)
        headers.extend(response_headers)

    body = b"".join(_app(registry if registry is not None else REGISTRY)(environ, start_response))
    return int(status[0].split(" ", 1)[0]), headers, body
