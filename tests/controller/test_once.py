"""controller/once.py: `--once` runs the same pipeline as the long-running controller, so it sends the same
Events (RecordConflict from the plan observer, RecordReady from the write) and updates the same metrics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import REGISTRY

from external_dns.controller.controller import Controller
from external_dns.controller.features import attach_events
from external_dns.controller.once import EXIT_FAILED, EXIT_OK, OnceOptions, apply_plan, run_once
from external_dns.controller.pipeline import Pipeline
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan import Changes, planfile
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import ProviderError
from external_dns.registry import TXTRegistry
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.wrappers import MultiSource


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool:
        self.events.append((obj["metadata"]["name"], type, reason))
        return True


class InClusterSource(ServiceInformerSource):
    """An in-cluster source without informers: fixed endpoints."""

    def __init__(self, endpoints: list[Endpoint]) -> None:  # no informers needed for the pipeline
        self.recorder = None
        self._fixed = endpoints

    def endpoints(self) -> list[Endpoint]:
        return list(self._fixed)


def service_ep(name: str, target: str, service: str) -> Endpoint:
    ep = Endpoint(dns_name=name, record_type="A", targets=Targets([target]))
    ep.labels["resource"] = f"service/default/{service}"
    ep.ref_objects.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": service, "namespace": "default"}})
    return ep


def test_once_sends_conflict_and_record_events_and_updates_source_metrics() -> None:
    source = InClusterSource([service_ep("www.example.org", "192.0.2.1", "a"),
                              service_ep("www.example.org", "192.0.2.2", "b")])
    controller = Controller(MultiSource([source]), TXTRegistry(InMemoryProvider(["example.org"]), owner_id="once"),
                            "sync")
    recorder = Recorder()
    attach_events(controller, recorder)
    assert source.recorder is recorder
    assert run_once(controller, OnceOptions(progress="none")) == EXIT_OK
    assert ("b", "Warning", "RecordConflict") in recorder.events  # the smaller target wins: a keeps it
    assert ("a", "Normal", "RecordReady") in recorder.events
    assert REGISTRY.get_sample_value("external_dns_source_endpoints_total") == 2.0


class RefusingProvider(InMemoryProvider):
    def apply_changes(self, changes: Changes) -> None:
        raise ProviderError("refused by the provider")


def _planned(provider: InMemoryProvider, change: Endpoint) -> planfile.PlanFile:
    plan = planfile.PlanFile(owner_id="me", provider="inmemory", registry="txt")
    plan.zones["example.org"] = planfile.PlannedZone(changes=Changes(create=[change]), existing=0,
                                                     state_checksum=planfile.state_checksum(provider.records()))
    return plan


def test_apply_writes_through_the_pipelines_write_step(tmp_path: Any) -> None:
    """`apply` goes through the same write step as `--once` and the long-running controller: record events
    about the objects behind the changes, the registry error metric and the step's error when it fails."""
    provider = InMemoryProvider(["example.org"])
    pipeline = Pipeline()
    recorder = Recorder()
    pipeline.recorder = recorder
    plan = _planned(provider, service_ep("www.example.org", "192.0.2.1", "web"))
    assert apply_plan(plan, "plan.json", TXTRegistry(provider, owner_id="me"), OnceOptions(), pipeline) == EXIT_OK
    assert [e.dns_name for e in provider.records()] == ["www.example.org", "a-www.example.org"]
    assert recorder.events == [("web", "Normal", "RecordReady")]

    refusing = RefusingProvider(["example.org"])
    plan = _planned(refusing, service_ep("www.example.org", "192.0.2.1", "web"))
    errors = REGISTRY.get_sample_value("external_dns_registry_errors_total") or 0.0
    assert apply_plan(plan, "plan.json", TXTRegistry(refusing, owner_id="me"), OnceOptions(),
                      pipeline) == EXIT_FAILED
    assert REGISTRY.get_sample_value("external_dns_registry_errors_total") == errors + 1
    assert recorder.events[-1] == ("web", "Warning", "RecordError")
