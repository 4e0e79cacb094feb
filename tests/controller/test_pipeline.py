"""DNSRecords go through the pipeline's steps (controller/pipeline.py) as every other mode: the safety gate
judges each record by its own records (a record being deleted removes them all without "too many
deletes"), the other pre-apply checks (the leader-election fence) refuse writes, and written or refused
records send their record events to the DNSRecord."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.controller.pipeline import Pipeline
from external_dns.controller.process import NotLeaderError
from external_dns.controller.safety_gate import SafetyGate
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.safety import SafetyConfig
from external_dns.providers.provider import ProviderError
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import START, a_record, find, get, ready, record, zonefile
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

HOSTS = [f"h{i}.app.example.com" for i in range(12)]


class EventLog:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
        self.events.append((f"{obj['kind']}/{obj['metadata']['name']}", type, reason, note))
        return True


def unsafe_plans(reason: str) -> float:
    return REGISTRY.get_sample_value("external_dns_controller_unsafe_plans_total",
                                     {"zone": "example.com.", "reason": reason}) or 0.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=START)


def pipeline_with_gate() -> tuple[Pipeline, EventLog]:
    pipeline = Pipeline()
    events = EventLog()
    pipeline.recorder = events
    # the process's gate: judges the zone pipeline's owner; a DNSRecord's plan is judged by its own records
    gate = SafetyGate(SafetyConfig(), owner_id="zone-owner", managed_record_types=["A", "CNAME"],
                      recorder=events)
    pipeline.add_pre_apply_check(gate)
    return pipeline, events


def make(kubeapi: KubeAPIServer, api_client: Any, provider: ZoneFileProvider, clock: FakeClock,
         pipeline: Pipeline) -> Reconciler:
    def cached(key: str) -> dict[str, Any] | None:
        namespace, _, name = key.partition("/")
        return get(kubeapi, name, namespace)

    return Reconciler(provider, RecordAPI(api_client), cached, Options(), clock=clock, rng=random.Random(1),
                      pipeline=pipeline)


def test_records_are_judged_by_their_own_records_and_deleting_them_all_is_no_unsafe_plan(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    provider = zonefile(tmp_path)
    pipeline, events = pipeline_with_gate()
    rec = make(kubeapi, kube_api_client, provider, clock, pipeline)
    kubeapi.create(record("app", "app.example.com", [a_record(h, "192.0.2.1") for h in HOSTS], owner="app-owner"))
    assert rec.reconcile("default/app").action == "applied"
    assert all(find(provider, h) is not None for h in HOSTS)
    assert ("DNSRecord/app", "Normal", "RecordReady", "Record h0.app.example.com A 192.0.2.1 created") in events.events

    # 10 of its 12 records dropped from the spec: over the 30 % delete threshold of its own 12 records
    obj = get(kubeapi, "app")
    assert obj is not None
    obj["spec"]["endpoints"] = [a_record(h, "192.0.2.1") for h in HOSTS[:2]]
    kubeapi.update(obj)
    before = unsafe_plans("too-many-deletes")
    result = rec.reconcile("default/app")
    assert result.action == "error" and "Too many deletes" in result.error
    cond = ready(get(kubeapi, "app"))
    assert cond["reason"] == "ProviderError" and "Too many deletes, 83.33% is over 30.00% (10/12)" in cond["message"]
    assert all(find(provider, h) is not None for h in HOSTS)  # nothing written
    assert unsafe_plans("too-many-deletes") == before + 1
    assert any(e[0] == "DNSRecord/app" and e[2] == "UnsafePlan" for e in events.events)

    # the record is deleted: all 12 go, on purpose (no --force needed)
    kubeapi.delete(API_VERSION, KIND, "default", "app")
    assert rec.reconcile("default/app").action == "deleting"
    assert all(find(provider, h) is None for h in HOSTS)
    assert ("DNSRecord/app", "Normal", "RecordDeleted", "Record h0.app.example.com A 192.0.2.1 deleted") in events.events


def test_a_pre_apply_check_refusing_the_write_refuses_every_record(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    provider = zonefile(tmp_path)
    pipeline = Pipeline()
    leading = [False]

    def fence(*_args: Any) -> None:
        if not leading[0]:
            raise NotLeaderError("not the leader: the write is refused")

    pipeline.add_pre_apply_check(fence)
    rec = make(kubeapi, kube_api_client, provider, clock, pipeline)
    for name in ("a", "b"):
        kubeapi.create(record(name, f"{name}.example.com", [a_record(f"{name}.example.com", "192.0.2.1")]))
    results = rec.reconcile_many(["default/a", "default/b"])
    assert [r.action for r in results.values()] == ["error", "error"]
    assert all("not the leader" in r.error for r in results.values())
    assert find(provider, "a.example.com") is None and find(provider, "b.example.com") is None
    leading[0] = True
    results = rec.reconcile_many(["default/a", "default/b"])
    assert [r.action for r in results.values()] == ["applied", "applied"]


class Refusing(ZoneFileProvider):
    def apply_changes(self, changes: Changes) -> None:
        if any(ep.dns_name == "bad.example.com" for ep in changes.all_endpoints()):
            raise ProviderError("refused bad.example.com")
        super().apply_changes(changes)


def test_a_batch_sends_each_record_the_events_of_its_own_outcome(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    """The batch's write is refused for one record and split: the other records are written and get
    RecordReady, the refused one alone gets RecordError (never every record of the refused first write)."""
    directory = tmp_path / "zones"
    directory.mkdir()
    provider = Refusing(str(directory), create_zones=("example.com",))
    pipeline = Pipeline()
    events = EventLog()
    pipeline.recorder = events
    rec = make(kubeapi, kube_api_client, provider, clock, pipeline)
    for name in ("good", "bad", "fine"):
        kubeapi.create(record(name, f"{name}.example.com", [a_record(f"{name}.example.com", "192.0.2.1")]))
    results = rec.reconcile_many(["default/good", "default/bad", "default/fine"])
    assert {k: r.action for k, r in results.items()} == {"default/good": "applied", "default/bad": "error",
                                                        "default/fine": "applied"}
    by_record = {(e[0], e[2]) for e in events.events}
    assert by_record == {("DNSRecord/good", "RecordReady"), ("DNSRecord/fine", "RecordReady"),
                         ("DNSRecord/bad", "RecordError")}
    errors = [e for e in events.events if e[2] == "RecordError"]
    assert errors and all("refused bad.example.com" in e[3] for e in errors)


def test_events_name_the_dnsrecord_not_the_endpoints_origin() -> None:
    """Unit check of the step: `write` with events off sends nothing; `record_events` sends per record."""
    pipeline = Pipeline()
    events = EventLog()
    pipeline.recorder = events
    ep = Endpoint("x.example.com", "A")
    ep.ref_objects = [{"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "x", "namespace": "d"}}]
    pipeline.write(Changes(create=[ep]), lambda _c: None, events=False)
    assert events.events == []
    pipeline.record_events(Changes(create=[ep]))
    assert events.events == [("DNSRecord/x", "Normal", "RecordReady", "Record x.example.com A created")]
