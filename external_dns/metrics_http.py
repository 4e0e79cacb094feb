"""`/metrics` answered by prometheus_client's own WSGI app, for the health server and the webhook server:
the text format or OpenMetrics by the `Accept` header, gzip by `Accept-Encoding`, `name[]` filters, as
Prometheus scrapers and the Go client's handler expect. A ground module: http.server handlers call
`metrics_response(...)` and send what it returns. `LoggedRequestErrors`: both servers' failed requests as
log lines."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app

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
    if accept_encoding:
        environ["HTTP_ACCEPT_ENCODING"] = accept_encoding
    status: list[str] = []
    headers: list[tuple[str, str]] = []

    def start_response(line: str, response_headers: list[tuple[str, str]]) -> None:
        status.append(line)
        headers.extend(response_headers)

    body = b"".join(_app(registry if registry is not None else REGISTRY)(environ, start_response))
    return int(status[0].split(" ", 1)[0]), headers, body


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
