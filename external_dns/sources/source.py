"""The Source interface: where desired endpoints come from.

`endpoints()` returns the endpoints the source's objects ask for right now. `add_event_handler(fn)` lets
the controller hear about changes (informer-backed sources call `fn()` on every add/update/delete; static
sources never do).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Protocol, runtime_checkable

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.problems import Problem


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

    def wrapped(self) -> Sequence[Source]:
        """The sources this one wraps (a wrapper's one, a combination's several), for walking a pipeline of
        wrappers (`pipeline_nodes`). Default: none."""
        return ()


@runtime_checkable
class ReportsProblems(Protocol):
    """A source that lists the objects and fields its last read skipped (`problems`: the informer and
    manifest sources, and the wrappers, which add their children's)."""

    @property
    def problems(self) -> Sequence[Problem]: ...


def problems_of(sources: Sequence[Source]) -> list[Problem]:
    """The `problems` of each of `sources` that reports them, in turn."""
    return [p for s in sources if isinstance(s, ReportsProblems) for p in s.problems]


def pipeline_nodes(source: Source) -> Iterator[Source]:
    """Every source of a pipeline of wrappers, `source` first (each one's `wrapped()` followed), each given
    once (a shared inner source is not visited twice)."""
    stack: list[Source] = [source]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(node.wrapped())
