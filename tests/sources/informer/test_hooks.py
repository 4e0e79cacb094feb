"""The process hook of the informer sources (sources/informer/hooks.py): the conflict reporter's Events, the recorder
wired into every informer source."""

from __future__ import annotations

from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.sources.informer.hooks import ConflictReporter, informer_sources
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.wrappers import MultiSource, PostProcessorSource
from tests.helpers import endpoints


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
        self.events.append((obj["metadata"]["name"], type, reason, note))
        return True


def ep(name: str, target: str, resource: str, rtype: str = "A") -> Endpoint:
    e = endpoints.ep(name, rtype, target, resource=resource)
    kind = {"service": "Service", "ingress": "Ingress", "crd": "DNSEndpoint"}[resource.split("/")[0]]
    e.ref_objects.append({"apiVersion": "v1", "kind": kind,
                          "metadata": {"name": resource.split("/")[2], "namespace": "default"}})
    return e


def test_conflict_reporter_reports_the_loser_once() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    winner = ep("x.example.org", "1.1.1.1", "ingress/default/a")
    loser = ep("x.example.org", "2.2.2.2", "crd/default/b")
    same = ep("x.example.org", "1.1.1.1", "service/default/c")  # agrees with the winner: nothing lost
    other = ep("y.example.org", "3.3.3.3", "service/default/d")
    for _ in range(3):  # every sync, changes or not: reported once
        reporter(None, Changes(), [], [winner, loser, same, other])
    assert len(recorder.events) == 1
    name, type_, reason, note = recorder.events[0]
    assert (name, type_, reason) == ("b", "Warning", "RecordConflict")
    assert "ingress/default/a" in note and "2.2.2.2" in note


def test_conflict_reporter_the_holder_keeps_the_name() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    holder = ep("x.example.org", "9.9.9.9", "crd/default/old")  # larger targets, but it holds the record
    newcomer = ep("x.example.org", "1.1.1.1", "service/default/new")
    current = Endpoint(dns_name="x.example.org", record_type="A", targets=["9.9.9.9"])  # type: ignore[arg-type]
    current.labels["resource"] = "crd/default/old"
    reporter(None, Changes(), [current], [holder, newcomer])
    assert [(n, r) for n, _t, r, _note in recorder.events] == [("new", "RecordConflict")]


def test_conflict_reporter_cname_loses_to_a_and_unmanaged_types_are_ignored() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    a = ep("x.example.org", "1.1.1.1", "service/default/a")
    cname = ep("x.example.org", "lb.example.net", "ingress/default/c", rtype="CNAME")
    txt1 = ep("t.example.org", '"a"', "crd/default/t1", rtype="TXT")
    txt2 = ep("t.example.org", '"b"', "crd/default/t2", rtype="TXT")
    reporter(None, Changes(), [], [cname, a, txt1, txt2])
    assert [(n, r) for n, _t, r, _note in recorder.events] == [("c", "RecordConflict")]


def test_conflict_reporter_never_raises() -> None:
    class Broken:
        def event(self, *_: Any) -> bool:
            raise RuntimeError("boom")

    reporter = ConflictReporter(Broken())
    winner = ep("x.example.org", "1.1.1.1", "ingress/default/a")
    reporter(None, Changes(create=[winner]), [], [winner, ep("x.example.org", "2.2.2.2", "crd/default/b")])


def test_attach_events_wires_recorder_into_informer_sources() -> None:
    class Factory:
        api_client = None

        def informer_for(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("not reached")

    class FakeSource(ServiceInformerSource):
        def __init__(self) -> None:  # no informers needed to test the wiring
            self.recorder = None

    src = FakeSource()
    pipeline = PostProcessorSource(MultiSource([src]))
    assert list(informer_sources(pipeline)) == [src]

    from external_dns.controller.controller import Controller
    from external_dns.controller.features import attach_events
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.registry import NoopRegistry

    controller = Controller(pipeline, NoopRegistry(InMemoryProvider()), "sync", managed_record_types=["A", "CNAME"])
    recorder = Recorder()
    attach_events(controller, recorder)
    assert src.recorder is recorder
    assert len(controller.plan_observers) == 1 and isinstance(controller.plan_observers[0], ConflictReporter)
    assert controller.plan_observers[0].managed == {"A", "CNAME"}
