"""The Source interface: where desired endpoints come from.

`endpoints()` returns the endpoints the source's objects ask for right now. `add_event_handler(fn)` lets
the controller hear about changes (informer-backed sources call `fn()` on every add/update/delete; static
sources never do).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator
from typing import Any

from external_dns.endpoint.endpoint import Endpoint


class Source(ABC):
    @abstractmethod
    def endpoints(self) -> list[Endpoint]:
        """The desired endpoints."""

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        """Register a callback run on every change of the source's objects (default: no events)."""
        del handler

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        """Exactly the endpoints of `endpoints()` whose DNS name (lower case, without the trailing dot) is in
        `names`, found without computing the others; None when this source cannot (the caller then reads
        `endpoints()`). Default: None."""
        del names
        return None

    def take_dirty_names(self) -> set[str] | None:
        """The DNS names (lower case, no trailing dot) whose endpoints may have changed since the previous
        call: every name an added, changed or deleted object claimed before or claims now. None when this
        source cannot tell (the caller compares `endpoints()` instead). Default: None."""
        return None


def pipeline_nodes(source: Source) -> Iterator[Any]:
    """Every object of a pipeline of wrappers, `source` first: each one's `source` and `sources` attributes
    are followed, each object given once (a shared inner source is not visited twice)."""
    stack: list[Any] = [source]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.append(getattr(node, "source", None))
        stack.extend(getattr(node, "sources", None) or [])
