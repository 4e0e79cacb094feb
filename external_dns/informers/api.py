"""Raw LIST and WATCH requests with a `kubernetes.client.ApiClient`'s configuration, credentials and pool.

Requests are built as `call_api(..., _preload_content=False)` builds them (host, default headers,
BearerToken auth, `(connect, read)` timeout) but sent with urllib3 retries off. Responses are parsed
with the standard library's JSON scanner (a LIST body while it arrives: listbody.py), never into the
client's model classes. Non-2xx answers become
`ApiStatusError` (with the Kubernetes `Status` reason and any Retry-After); connection failures, timeouts
and broken streams become `TransportError`. A watch is a `WatchStream` that yields decoded event dicts
line by line and can be closed from another thread (which unblocks a reader at once).

`call_json` is the one helper for the controller's other raw requests (Lease, Event and status writes):
through `call_api` (so `ApiException` on a non-2xx answer, as callers expect), answer parsed as raw JSON.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import urllib3

from external_dns.informers.gcpause import gc_paused
from external_dns.informers.listbody import ListBody

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
    def from_response(cls, http_status: int, reason: str, body: bytes,
                      retry_after_header: str | None) -> ApiStatusError:
        """From a non-2xx HTTP answer (normally a `Status` body)."""
        status: Any = {}
        try:
            status = json.loads(body) if body else {}
        except ValueError:
            status = {}
        if not isinstance(status, dict) or status.get("kind") != "Status":
            status = {"message": body.decode("utf-8", "replace")[:300] or reason, "reason": reason}
        return cls.from_status(status, http_status=http_status, retry_after_header=retry_after_header)


class TransportError(Exception):
    """The request never got an HTTP answer (connection refused, timeout, broken stream)."""


class WatchDecodeError(Exception):
    """A watch line that is not a JSON event."""


MAX_WATCH_LINE = 64 * 1024 * 1024  # an object is at most ~1.5 MiB in etcd: a longer line is no event


def _request(api_client: Any, path: str, params: Params, timeout: Timeout) -> urllib3.HTTPResponse:
    """GET `path` with the client's configuration and credentials, on its connection pool, with urllib3's own
    retries off: a 429/503 Retry-After or a refused connection must reach the reflector's backoff (which
    shutdown can interrupt) instead of sleeping inside urllib3."""
    headers = {**api_client.default_headers, **_HEADERS}
    query = list(params)
    try:
        api_client.update_params_for_auth(headers, query, _AUTH)
    except Exception as exc:  # e.g. a failing token refresh hook
        raise TransportError(f"credentials: {exc}") from None
    url = str(api_client.configuration.host).rstrip("/") + path
    try:
        resp = api_client.rest_client.pool_manager.request(
            "GET", url, fields=query, headers=headers, preload_content=False, retries=False,
            timeout=urllib3.Timeout(connect=timeout[0], read=timeout[1]))
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise TransportError(f"{type(exc).__name__}: {exc}") from None
    if not 200 <= resp.status <= 299:
        try:
            body = resp.data
        except (urllib3.exceptions.HTTPError, OSError):
            body = b""
        finally:
            resp.release_conn()
        raise ApiStatusError.from_response(resp.status, str(resp.reason or ""), body,
                                           resp.headers.get("Retry-After"))
    return resp  # type: ignore[no-any-return]


_LIST_PIECE = 1 << 20  # bytes of a LIST body read (and parsed) at a time; 64 KiB pieces took longer to read


def list_page(api_client: Any, path: str, params: Params, timeout: Timeout,
              in_flight: Callable[[urllib3.HTTPResponse | None], None] | None = None,
              prepare: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """One LIST request, parsed as a raw JSON dict (`kind`, `metadata`, `items`). The body is parsed while it
    arrives (listbody.ListBody), each item passed through `prepare` (when given) as soon as it is decoded, so
    our work overlaps the server's encoding and sending; `items` holds what `prepare` returned. `in_flight`
    is told the response while its body is being read (so another thread can `shutdown()` it), then None."""
    resp = _request(api_client, path, params, timeout)
    if in_flight is not None:
        in_flight(resp)
    items: list[Any] = []
    body = ListBody(items.append if prepare is None else lambda raw: items.append(prepare(raw)))
    try:
        with gc_paused():  # tens of thousands of acyclic allocations: no collector passes over the heap
            while True:
                try:
                    piece = resp.read(_LIST_PIECE)
                except (urllib3.exceptions.HTTPError, OSError, ValueError, AttributeError) as exc:
                    raise TransportError(f"{type(exc).__name__}: {exc}") from None
                if not piece:
                    break
                body.feed(piece)
            head = body.finish()
    except ValueError as exc:
        raise TransportError(f"LIST {path}: response is not JSON: {exc}") from None
    finally:
        if in_flight is not None:
            in_flight(None)
        resp.release_conn()
    if "items" in head:  # an `items` array went to `items`; anything else there is no list
        raise TransportError(f"LIST {path}: response is not a list object")
    head["items"] = items
    return head


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
                    if len(buf) > MAX_WATCH_LINE:  # a stream without line ends must not grow without bound
                        raise WatchDecodeError(f"watch line longer than {MAX_WATCH_LINE} bytes: {buf[:120]!r}")
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


def call_json(api_client: Any, method: str, path: str, body: Any = None, *, timeout: float | Timeout,
              content_type: str = "application/json") -> Any:
    """One request through `api_client.call_api` with `_preload_content=False`; the answer parsed as raw
    JSON (None for an empty body). A non-2xx answer raises the client's `ApiException`."""
    headers = dict(_HEADERS)
    if body is not None:
        headers["Content-Type"] = content_type
    resp = api_client.call_api(path, method, header_params=headers, body=body, auth_settings=_AUTH,
                               _preload_content=False, _request_timeout=timeout)
    try:
        data = resp.data
    finally:
        resp.release_conn()
    return json.loads(data) if data else None


def format_micro_time(when: datetime) -> str:
    """Kubernetes MicroTime: `2026-01-02T03:04:05.000000Z` (always 6 fraction digits, UTC, `Z`)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
