"""Fault injection state of the test API server: queued failures (500/429 + Retry-After), malformed watch
lines. Thread-safe; the HTTP handler consults it on every request and the watch streams on every event.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from tests.kubeapi.errors import ApiError, make_error


@dataclass
class _FailRule:
    remaining: int
    status: int
    retry_after: int | None
    path_contains: str | None


class Faults:
    """Pending faults; `reset()` clears them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[_FailRule] = []
        self._malformed = 0

    def reset(self) -> None:
        with self._lock:
            self._rules.clear()
            self._malformed = 0

    def fail_next(self, n: int, status: int = 500, retry_after: int | None = None,
                  path_contains: str | None = None) -> None:
        if n < 1:
            raise ValueError(f"fail_next: n must be >= 1, got {n}")
        with self._lock:
            self._rules.append(_FailRule(n, status, retry_after, path_contains))

    def take_failure(self, path: str) -> ApiError | None:
        """The error to answer this request with, consuming one count of the first matching rule."""
        with self._lock:
            for rule in self._rules:
                if rule.path_contains is not None and rule.path_contains not in path:
                    continue
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._rules.remove(rule)
                return _error_for(rule.status, rule.retry_after)
        return None

    def inject_malformed_line(self, count: int = 1) -> None:
        with self._lock:
            self._malformed += count

    def take_malformed(self) -> bool:
        with self._lock:
            if self._malformed > 0:
                self._malformed -= 1
                return True
            return False


def _error_for(status: int, retry_after: int | None) -> ApiError:
    if status == 429:
        details = {"retryAfterSeconds": retry_after} if retry_after is not None else None
        return make_error(429, "TooManyRequests", "Too many requests, please try again later.", details,
                          retry_after=retry_after)
    if status == 500:
        return make_error(500, "InternalError", "Internal error occurred: injected fault", None, retry_after)
    if status == 503:
        return make_error(503, "ServiceUnavailable", "The server is currently unable to handle the request",
                          None, retry_after)
    if status == 504:
        return make_error(504, "Timeout", "The server was unable to return a response in the time allotted",
                          None, retry_after)
    return make_error(status, "Unknown", f"injected fault {status}", None, retry_after)
