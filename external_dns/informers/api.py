"""Raw LIST and WATCH requests through `kubernetes.client.ApiClient.call_api` (`_preload_content=False`).

Responses are parsed with `json.loads`, never into the client's model classes. Non-2xx answers become
`ApiStatusError` (with the Kubernetes `Status` reason and any Retry-After); connection failures, timeouts
and broken streams become `TransportError`. A watch is a `WatchStream` that yields decoded event dicts
line by line and can be closed from another thread (which unblocks a reader at once).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import urllib3
from kubernetes.client.exceptions import ApiException

Params = list[tuple[str, str]]
Timeout = tuple[float, float]

_HEADERS = {"Accept": "application/json"}
_AUTH = ["BearerToken"]


class ApiStatusError(Exception):
    """The API server answered with an error status (HTTP or an in-band watch ERROR event)."""

    def __init__(self, status: int, reason: str, message: str, retry_after: float | None = None,
                 causes: tuple[str, ...] = ()) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status, self.reason, self.message, self.retry_after, self.causes = (
            status, reason, message, retry_after, causes)

    @property
    def is_expired(self) -> bool:
        """410 Gone / Expired: the resourceVersion or continue token is too old."""
        return self.status == 410 or self.reason in ("Expired", "Gone")

    @property
    def is_too_large_resource_version(self) -> bool:
        return "ResourceVersionTooLarge" in self.causes or "Too large resource version" in self.message

    @property
    def retriable_watch(self) -> bool:
        """Errors after which client-go re-watches without relisting (429 too many requests)."""
        return self.status == 429

    @classmethod
    def from_status(cls, status: dict[str, Any], http_status: int = 0,
                    retry_after_header: str | None = None) -> ApiStatusError:
        """From a `Status` object (an HTTP error body or a watch ERROR event's object)."""
        details = status.get("details") if isinstance(status.get("details"), dict) else {}
        assert isinstance(details, dict)
        causes = tuple(str(c.get("reason", "")) for c in details.get("causes") or () if isinstance(c, dict))
        retry_after: float | None = None
        for candidate in (retry_after_header, details.get("retryAfterSeconds")):
            try:
                if candidate is not None and float(candidate) >= 0:
                    retry_after = float(candidate)
                    break
            except (TypeError, ValueError):
                continue
        code = status.get("code")
        return cls(int(code) if isinstance(code, int) and code else http_status, str(status.get("reason") or ""),
                   str(status.get("message") or ""), retry_after, causes)

    @classmethod
    def from_api_exception(cls, exc: ApiException) -> ApiStatusError:
        body: Any = exc.body
        if isinstance(body, bytes):
            body = body.decode("utf-8", "replace")
        status: Any = {}
        try:
            status = json.loads(body) if body else {}
        except ValueError:
            status = {}
        if not isinstance(status, dict) or status.get("kind") != "Status":
            status = {"message": (body or str(exc.reason or ""))[:300], "reason": str(exc.reason or "")}
        headers = exc.headers or {}
        retry_after = headers.get("Retry-After") if hasattr(headers, "get") else None
        return cls.from_status(status, http_status=int(exc.status or 0), retry_after_header=retry_after)


class TransportError(Exception):
    """The request never got an HTTP answer (connection refused, timeout, broken stream)."""


class WatchDecodeError(Exception):
    """A watch line that is not a JSON event."""


def _request(api_client: Any, path: str, params: Params, timeout: Timeout) -> urllib3.HTTPResponse:
    try:
        resp = api_client.call_api(path, "GET", {}, list(params), dict(_HEADERS), auth_settings=_AUTH,
                                   _return_http_data_only=True, _preload_content=False,
                                   _request_timeout=timeout)
    except ApiException as exc:
        if exc.status == 0:  # SSL and other transport errors wrapped by the REST layer
            raise TransportError(str(exc.reason)) from None
        raise ApiStatusError.from_api_exception(exc) from None
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise TransportError(f"{type(exc).__name__}: {exc}") from None
    return resp  # type: ignore[no-any-return]


def list_page(api_client: Any, path: str, params: Params, timeout: Timeout) -> dict[str, Any]:
    """One LIST request, parsed as a raw JSON dict (`kind`, `metadata`, `items`)."""
    resp = _request(api_client, path, params, timeout)
    try:
        data = resp.data
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise TransportError(f"{type(exc).__name__}: {exc}") from None
    finally:
        resp.release_conn()
    try:
        body = json.loads(data)
    except ValueError as exc:
        raise TransportError(f"LIST {path}: response is not JSON: {exc}") from None
    if not isinstance(body, dict) or not isinstance(body.get("items", []), list):
        raise TransportError(f"LIST {path}: response is not a list object")
    return body


class WatchStream:
    """An open WATCH response; iterate for event dicts. `close()` may be called from any thread."""

    def __init__(self, api_client: Any, path: str, params: Params, timeout: Timeout) -> None:
        self.path = path
        self._resp = _request(api_client, path, params, timeout)
        self._closed = threading.Event()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        buf = b""
        resp = self._resp
        while not self._closed.is_set():
            try:
                chunk = resp.read1(65536)
            except (urllib3.exceptions.HTTPError, OSError, ValueError, AttributeError) as exc:
                if self._closed.is_set():
                    return
                raise TransportError(f"{type(exc).__name__}: {exc}") from None
            if not chunk:
                return  # clean end of stream (server timeoutSeconds)
            buf += chunk
            while True:
                nl = buf.find(b"\n")
                if nl < 0:
                    break
                line, buf = buf[:nl], buf[nl + 1:]
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except ValueError as exc:
                    raise WatchDecodeError(f"malformed watch line ({exc}): {line[:120]!r}") from None
                if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                    raise WatchDecodeError(f"watch line is not an event: {line[:120]!r}")
                yield event

    def close(self) -> None:
        """Stop the stream from any thread; a reader blocked in a socket read returns at once."""
        if self._closed.is_set():
            return
        self._closed.set()
        with contextlib.suppress(Exception):  # already closed, or no socket left
            self._resp.shutdown()

    def release(self) -> None:
        """Close the connection (called by the reading thread when it is done with the stream)."""
        self._closed.set()
        try:
            self._resp.close()
            self._resp.release_conn()
        except Exception:
            pass
