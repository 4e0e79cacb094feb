"""The PowerDNS HTTP API client: one HTTP/1.1 exchange per request (PowerDNS closes every connection), with
deadlines, a response size cap, retries of transient failures and errors mapped to provider errors.

- Deadlines: connecting (`connect_timeout`), each socket read or write (`read_timeout`) and the whole
  exchange (`request_deadline`, checked between reads of the body).
- Size cap: a response over `max_response_bytes` is refused (`ProviderError`) before or while it is read.
- Errors: 401/403 -> `PDNSAuthError` (a configuration error: the API key is wrong; never retried);
  422 -> `PDNSRefused` carrying the server's message, which names the record; 404 -> `PDNSNotFound`;
  5xx, connection errors and timeouts are retried `retries` times with exponential back-off and then end in
  a `SoftError` (the controller retries later); anything else is a `ProviderError`.
- The API key travels only in the `X-API-Key` header: no message, log line or repr carries it.
Metric: `external_dns_pdns_requests_total{method,code}` (code = HTTP status, or "error" when no answer came).
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import structlog
from prometheus_client import Counter

from external_dns.errors import ConfigError
from external_dns.providers.pdns.config import PDNSConfig
from external_dns.providers.provider import ProviderError, SoftError

log = structlog.get_logger(__name__)

REQUESTS = Counter(
    "external_dns_pdns_requests_total",
    "HTTP requests sent to the PowerDNS API, by method and HTTP status (\"error\": no answer).",
    ["method", "code"],
)
_READ_CHUNK = 256 * 1024
# A connection reset on a body at least this large is taken as the server refusing its size.
_LARGE_BODY = 256 * 1024


class PDNSAuthError(ProviderError, ConfigError):
    """PowerDNS refused the API key (HTTP 401/403): fatal, a configuration error."""


class PDNSRefused(ProviderError):
    """PowerDNS refused a request as invalid (HTTP 422); `server_message` is its `error` text."""

    def __init__(self, message: str, server_message: str) -> None:
        super().__init__(message)
        self.server_message = server_message


class PDNSNotFound(ProviderError):
    """HTTP 404: the server id or the zone does not exist."""


class PDNSBodyTooLarge(ProviderError):
    """The server closed the connection while a large request body was being sent or before it answered, or
    answered it with a plain 400: what PowerDNS does with a body over its `webserver-max-bodysize`. Not
    retried as is (the caller splits the request)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"PowerDNS closed the connection on a {size}-byte request (over its "
                         "webserver-max-bodysize?)")
        self.size = size


class _Transient(Exception):
    """A failure worth retrying (5xx, connection error, timeout)."""


Opener = Callable[[float], http.client.HTTPConnection]


class PDNSClient:
    """The HTTP side of the provider. `opener(timeout)` returns an unconnected HTTP(S)Connection (tests inject
    one); `clock` gives the request deadlines; `close()` interrupts a back-off wait."""

    def __init__(self, config: PDNSConfig, opener: Opener | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._base = config.base_path
        self._opener = opener or self._default_opener()
        self._clock = clock
        self._stop = threading.Event()

    def __repr__(self) -> str:
        return f"PDNSClient(server={self.config.shown_server!r}, server_id={self.config.server_id!r})"

    def close(self) -> None:
        self._stop.set()

    def _default_opener(self) -> Opener:
        url = urllib.parse.urlsplit(self.config.server)
        host = url.hostname or ""
        ctx = self.config.ssl_context()
        if ctx is not None:
            port = url.port or 443
            return lambda timeout: http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
        port = url.port or 80
        return lambda timeout: http.client.HTTPConnection(host, port, timeout=timeout)

    # -- API calls ------------------------------------------------------------------------------------------
    def list_zones(self) -> list[dict[str, Any]]:
        # dnssec=false: no per-zone DNSSEC lookup for fields we never read (`dnssec`, `edited_serial`), which
        # PowerDNS otherwise does for every zone listed; a server that does not know the parameter ignores it.
        data = self.call("GET", "/zones?dnssec=false", what="listing zones")
        if not isinstance(data, list):
            raise ProviderError(f"PowerDNS at {self.config.shown_server}: the zone list is not a JSON list")
        return [z for z in data if isinstance(z, dict)]

    def get_zone(self, zone_id: str) -> dict[str, Any]:
        data = self.call("GET", f"/zones/{_quote(zone_id)}", what=f"reading zone {zone_id}")
        if not isinstance(data, dict):
            raise ProviderError(f"PowerDNS at {self.config.shown_server}: zone {zone_id} is not a JSON object")
        return data

    def export_zone(self, zone_id: str) -> bytes:
        """The zone as PowerDNS exports it: one `name<TAB>ttl<TAB>IN<TAB>type<TAB>content` line per enabled
        record (the body as received; asked for as text/plain)."""
        data = self.call("GET", f"/zones/{_quote(zone_id)}/export", what=f"exporting zone {zone_id}", raw=True)
        return bytes(data or b"")

    def patch_zone(self, zone_id: str, body: bytes) -> None:
        """One PATCH of rrsets (`body` is the JSON `{"rrsets": [...]}`); 204 on success."""
        self.call("PATCH", f"/zones/{_quote(zone_id)}", body=body, what=f"changing zone {zone_id}")

    # -- one call, with retries -----------------------------------------------------------------------------
    def call(self, method: str, path: str, body: bytes | None = None, what: str = "", raw: bool = False) -> Any:
        """The decoded JSON answer (None for an empty body), or with `raw` the answer's bytes as they came
        (asked for as text/plain). Raises the errors of the module docstring."""
        what = what or f"{method} {path}"
        attempt = 0
        while True:
            try:
                status, data = self._exchange(method, self._base + path, body, raw)
            except _Transient as exc:
                if attempt >= self.config.retries or self._stop.is_set():
                    raise SoftError(f"PowerDNS at {self.config.shown_server}: {what} failed: {exc}") from None
                delay = self.config.retry_base * (2 ** attempt)
                attempt += 1
                log.debug(f"PowerDNS: {what} failed ({exc}), retry {attempt} in {delay:.2f}s")
                if self._stop.wait(delay):
                    raise SoftError(f"PowerDNS at {self.config.shown_server}: {what} interrupted") from None
                continue
            if status == 400 and body is not None and len(body) >= _LARGE_BODY and not _is_json_error(data):
                # PowerDNS answers a plain "Bad Request" (no JSON error) to a body over its size limit when it
                # is not busy resetting the connection instead.
                raise PDNSBodyTooLarge(len(body))
            return self._result(status, data, what, raw)

    def _result(self, status: int, data: bytes | bytearray, what: str, raw: bool = False) -> Any:
        if 200 <= status < 300:
            if raw:
                return data
            if not data:
                return None
            try:
                return json.loads(data)
            except ValueError:
                raise ProviderError(f"PowerDNS at {self.config.shown_server}: {what}: the answer is not JSON") from None
        text = _error_text(data)
        if status in (401, 403):
            raise PDNSAuthError(f"PowerDNS at {self.config.shown_server} refused the API key (HTTP {status} {text}) "
                                "while " + what + ": check --pdns-api-key")
        if status == 404:
            raise PDNSNotFound(f"PowerDNS at {self.config.shown_server}: {what}: not found (HTTP 404); check "
                               f"--pdns-server-id ({self.config.server_id!r}) and that the zone exists")
        if status == 422:
            raise PDNSRefused(f"PowerDNS refused {what} (HTTP 422): {text}", text)
        raise ProviderError(f"PowerDNS at {self.config.shown_server}: {what}: HTTP {status}: {text}")

    def _exchange(self, method: str, path: str, body: bytes | None,
                  raw: bool = False) -> tuple[int, bytes | bytearray]:
        """Send one request and read the whole answer within the deadlines."""
        cfg = self.config
        deadline = self._clock() + cfg.request_deadline
        conn = self._opener(cfg.connect_timeout)
        resp: http.client.HTTPResponse | None = None
        try:
            conn.connect()
            sock = conn.sock
            # Every read of the answer (status line and headers included) waits at most until the deadline.
            conn.sock = _DeadlineSocket(sock, cfg.read_timeout, deadline, self._clock)
            _set_timeout(sock, cfg.read_timeout, deadline - self._clock())
            conn.request(method, path, body=body, headers=self._headers(body is not None, raw))
            _set_timeout(sock, cfg.read_timeout, deadline - self._clock())
            resp = conn.getresponse()
            status = resp.status
            data = self._read_body(resp, sock, deadline)
        except ssl.SSLCertVerificationError as exc:
            REQUESTS.labels(method, "error").inc()
            # A certificate we do not trust will not become trusted by retrying: a configuration error.
            raise ProviderError(f"PowerDNS at {cfg.shown_server}: TLS certificate not trusted ({exc.verify_message}): "
                                "check --tls-ca, or --pdns-skip-tls-verify") from None
        except (OSError, http.client.HTTPException) as exc:
            REQUESTS.labels(method, "error").inc()
            if body is not None and len(body) >= _LARGE_BODY and isinstance(
                    exc, (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
                raise PDNSBodyTooLarge(len(body)) from None
            raise _Transient(_describe(exc)) from None
        finally:
            if resp is not None:
                resp.close()  # the answer's file holds the socket open
            conn.close()
        REQUESTS.labels(method, str(status)).inc()
        if status >= 500:
            raise _Transient(f"HTTP {status}: {_error_text(data)}")
        return status, data

    def _headers(self, with_body: bool, text: bool = False) -> dict[str, str]:
        # Built at the call, never kept in a local of ours: no traceback with locals can show the key.
        headers = {"X-API-Key": self.config.api_key, "Accept": "text/plain" if text else "application/json",
                   "Connection": "close"}
        if with_body:
            headers["Content-Type"] = "application/json"
        if "@" in self.config.server:  # user:password@ in the URL: basic auth for a proxy, as Go's client
            headers["Authorization"] = self.config.basic_auth() or ""
        return headers

    def _read_body(self, resp: http.client.HTTPResponse, sock: socket.socket | None, deadline: float) -> bytes | bytearray:
        cap = self.config.max_response_bytes
        length = resp.getheader("Content-Length")
        if length and length.isdigit() and int(length) > cap:
            raise ProviderError(f"PowerDNS at {self.config.shown_server}: answer of {length} bytes is over the "
                                f"{cap}-byte limit")
        data = bytearray()  # grown in place: a large zone is held once, not once more by a join
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise TimeoutError(f"no complete answer within {self.config.request_deadline:g}s")
            _set_timeout(sock, self.config.read_timeout, remaining)
            chunk = resp.read1(_READ_CHUNK)
            if not chunk:
                return data
            if len(data) + len(chunk) > cap:
                raise ProviderError(f"PowerDNS at {self.config.shown_server}: answer over the {cap}-byte limit")
            data += chunk


class _DeadlineReader(io.RawIOBase):
    """The answer's byte stream: each socket read times out after `read_timeout` or at the request deadline,
    whichever comes first (a server dripping header lines cannot hold a request past its deadline). Reads go
    through the socket's own unbuffered file, so the socket closes when both it and this file are closed."""

    def __init__(self, sock: socket.socket, read_timeout: float, deadline: float, clock: Callable[[], float]) -> None:
        super().__init__()
        self._sock, self._raw = sock, sock.makefile("rb", buffering=0)
        self._read_timeout, self._deadline, self._clock = read_timeout, deadline, clock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        _set_timeout(self._sock, self._read_timeout, self._deadline - self._clock())
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose `makefile()` (what http.client reads the answer from) is a `_DeadlineReader`;
    everything else goes to the socket."""

    def __init__(self, sock: socket.socket, read_timeout: float, deadline: float, clock: Callable[[], float]) -> None:
        self._sock = sock
        self._reader = (read_timeout, deadline, clock)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, *self._reader))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _set_timeout(sock: socket.socket | None, read_timeout: float, remaining: float) -> None:
    if remaining <= 0:
        raise TimeoutError("request deadline passed")
    if sock is not None:
        # After the headers the socket belongs to the response reader and may be closed on our side.
        with contextlib.suppress(OSError):
            sock.settimeout(min(read_timeout, remaining))


def _quote(zone_id: str) -> str:
    # Zone ids are names with a trailing dot; PowerDNS escapes '/' itself as "=2F".
    return urllib.parse.quote(zone_id, safe="=.")


def _error_text(data: bytes | bytearray) -> str:
    """The `error` field of a PowerDNS error answer, else the body's start (one line, at most 500 chars)."""
    text = data[:4096].decode("utf-8", errors="replace")
    try:
        parsed = json.loads(data)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
            text = parsed["error"]
    except ValueError:
        pass
    return " ".join(text.split())[:500]


def _is_json_error(data: bytes | bytearray) -> bool:
    try:
        parsed = json.loads(data)
    except ValueError:
        return False
    return isinstance(parsed, dict) and "error" in parsed


def _describe(exc: BaseException) -> str:
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return f"timed out ({exc})" if str(exc) else "timed out"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
