"""A tiny raw HTTP client for pinning the test API server's wire behaviour (conformance tests), with no
`kubernetes` client in between: `RawClient(url).request(...)` and `RawClient(url).watch(...)`.
"""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class RawClient:
    """One keep-alive HTTP/1.1 connection to the server at `url` (https with `ssl_context`: the real server)."""

    def __init__(self, url: str, timeout: float = 10.0, token: str | None = None,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout = timeout
        self.token = token
        self.ssl_context = ssl_context
        self.conn = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        if self.ssl_context is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.ssl_context)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _headers(self, content_type: str | None) -> dict[str, str]:
        h = {"Accept": "application/json"}
        if content_type:
            h["Content-Type"] = content_type
        if self.token is not None:
            h["Authorization"] = f"Bearer {self.token}"
        return h

    def request(self, method: str, path: str, body: Any = None,
                content_type: str = "application/json") -> Response:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.conn.request(method, path, body=data, headers=self._headers(content_type if data else None))
        resp = self.conn.getresponse()
        payload = resp.read()
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload)

    def get(self, path: str) -> Response:
        return self.request("GET", path)

    def watch(self, path: str) -> WatchStream:
        """Start a watch on `path` (which must carry watch=true) on a fresh connection."""
        conn = self._connect()
        conn.request("GET", path, headers=self._headers(None))
        return WatchStream(conn, conn.getresponse())


class WatchStream:
    """The lines of one watch response; `events()` yields parsed events until the stream ends."""

    def __init__(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse) -> None:
        self.conn = conn
        self.resp = resp
        self.status = resp.status
        self.headers = {k.lower(): v for k, v in resp.getheaders()}
        self._buf = b""

    def next_line(self) -> bytes:
        """The next raw line; b"" at a clean end of stream (terminating chunk seen); `IncompleteRead` when the
        connection ended without it (http.client itself reports both as b"")."""
        while b"\n" not in self._buf:
            data = self.resp.read1(65536)  # raises IncompleteRead on an abrupt end, b"" on a clean one
            if not data:
                if self._buf:
                    raise http.client.IncompleteRead(self._buf)
                return b""
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return line + b"\n"

    def next_event(self) -> dict[str, Any] | None:
        line = self.next_line()
        if not line:
            return None
        event: dict[str, Any] = json.loads(line)
        return event

    def events(self) -> Iterator[dict[str, Any]]:
        while True:
            ev = self.next_event()
            if ev is None:
                return
            yield ev

    def close(self) -> None:
        self.resp.close()
        self.conn.close()

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
