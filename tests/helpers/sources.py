"""A source of fixed desired endpoints, for tests that drive the pipeline without Kubernetes."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.source import Source


class StaticSource(Source):
    """Desired endpoints from a list the test edits (`desired`, or `set` from another thread); every read
    returns copies. `fail` (an exception) makes the reads raise it; `calls` counts the reads."""

    def __init__(self, endpoints: list[Endpoint] | None = None) -> None:
        self.lock = threading.Lock()
        self.desired: list[Endpoint] = endpoints if endpoints is not None else []
        self.fail: BaseException | None = None
        self.calls = 0

    def endpoints(self) -> list[Endpoint]:
        with self.lock:
            self.calls += 1
            if self.fail is not None:
                raise self.fail
            return [e.copy() for e in self.desired]

    def set(self, endpoints: Iterable[Endpoint]) -> None:
        with self.lock:
            self.desired = list(endpoints)
