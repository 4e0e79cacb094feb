"""controller/features.py: Kubernetes Events wired into one pipeline, the same way for the long-running
process and `--once` (the gate's and the sources' share are also tested in test_safety_gate.py and
tests/sources/informer/test_hooks.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from external_dns.controller.controller import Controller
from external_dns.controller.features import attach_events, once_event_recorder
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import NoopRegistry
from external_dns.sources.informer.hooks import ConflictReporter
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.source import Source
from external_dns.sources.wrappers import MultiSource


class Recorder:
    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool:
        return True


class NoSource(Source):
    def endpoints(self) -> list[Any]:
        return []


class Factory:
    api_client = None


class InClusterSource(ServiceInformerSource):
    def __init__(self) -> None:  # the wiring needs no informers
        self.recorder = None
        self.factory = Factory()  # type: ignore[assignment]


def _controller(source: Source) -> Controller:
    return Controller(source, NoopRegistry(InMemoryProvider()), "sync")


def test_without_in_cluster_sources_only_written_records_get_events() -> None:
    controller = _controller(MultiSource([NoSource()]))
    recorder = Recorder()
    attach_events(controller, recorder)
    assert controller.recorder is recorder
    assert controller.plan_observers == []  # name conflicts are reported on objects: none here
    assert once_event_recorder(controller, dry_run=False) is None  # --once: nothing to attach Events to


def test_no_recorder_means_no_conflict_reporter_but_sources_are_told() -> None:
    source = InClusterSource()
    controller = _controller(MultiSource([source]))
    attach_events(controller, None)
    assert source.recorder is None and controller.recorder is None
    assert not any(isinstance(o, ConflictReporter) for o in controller.plan_observers)


def test_once_in_dry_run_sends_no_events() -> None:
    controller = _controller(MultiSource([InClusterSource()]))
    assert once_event_recorder(controller, dry_run=True) is None
