"""The Source interface: where desired endpoints come from.

`endpoints()` returns the endpoints the source's objects ask for right now. `add_event_handler(fn)` lets
the controller hear about changes (informer-backed sources call `fn()` on every add/update/delete; static
sources never do).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from external_dns.endpoint.endpoint import Endpoint


class Source(ABC):
    @abstractmethod
    def endpoints(self) -> list[Endpoint]:
        """The desired endpoints."""

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        """Register a callback run on every change of the source's objects (default: no events)."""
        del handler
