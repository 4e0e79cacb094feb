"""The Source interface (sources/source.py): what a source that declares nothing more answers (no events, no reads
by name, no dirty names, nothing wrapped), the problems of the sources that report them, and every node of a
pipeline of wrappers visited once."""

from __future__ import annotations

from collections.abc import Sequence

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.problems import Problem
from external_dns.sources.source import ReportsProblems, Source, pipeline_nodes, problems_of
from tests.helpers.endpoints import ep
from tests.helpers.sources import StaticSource


class Wrapper(Source):
    def __init__(self, name: str, *inner: Source, problems: Sequence[Problem] = ()) -> None:
        self.name, self.inner, self._problems = name, inner, list(problems)

    def endpoints(self) -> list[Endpoint]:
        return [e for s in self.inner for e in s.endpoints()]

    def wrapped(self) -> Sequence[Source]:
        return self.inner

    @property
    def problems(self) -> Sequence[Problem]:
        return self._problems


def test_a_plain_source_declares_no_extras() -> None:
    src = StaticSource([ep("www.example.org", "A", "10.0.0.1")])
    calls: list[int] = []
    src.add_event_handler(lambda: calls.append(1))  # accepted, never called: a static source has no events
    assert [e.dns_name for e in src.endpoints()] == ["www.example.org"] and calls == []
    assert src.endpoints_for_names({"www.example.org"}) is None  # cannot read by name: read everything
    assert src.take_dirty_names() is None  # cannot tell: compare the endpoints
    assert src.wrapped() == ()
    assert not isinstance(src, ReportsProblems)


def test_problems_of_the_sources_that_report_them_in_order() -> None:
    p1, p2, p3 = (Problem(f"service/default/s{i}", "", "", "bad") for i in range(3))
    sources: list[Source] = [Wrapper("a", problems=[p1, p2]), StaticSource(), Wrapper("b", problems=[p3])]
    assert problems_of(sources) == [p1, p2, p3]


def test_pipeline_nodes_visits_each_source_once_outermost_first() -> None:
    shared = StaticSource([ep("www.example.org", "A", "10.0.0.1")])
    left, right = Wrapper("left", shared), Wrapper("right", shared)
    top = Wrapper("top", left, right)
    nodes = list(pipeline_nodes(top))
    assert nodes[0] is top
    assert len(nodes) == 4 and {id(n) for n in nodes} == {id(top), id(left), id(right), id(shared)}
    assert list(pipeline_nodes(shared)) == [shared]
