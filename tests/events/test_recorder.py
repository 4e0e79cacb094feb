"""Event recorder against the test Kubernetes API server: events.k8s.io Events, series dedupe, core/v1
fallback, bounded queue, per-object spam limit, clean stop."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import kubernetes.client
import pytest

from external_dns.events.recorder import (
    NORMAL,
    RECORD_DELETED,
    RECORD_ERROR,
    RECORD_READY,
    WARNING,
    EventRecorder,
    object_reference,
)
from external_dns.workqueue import FakeClock
from tests.helpers.threads import thread_leak_check
from tests.kubeapi.server import KubeAPIServer

MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")

SERVICE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "namespace": "team-a", "uid": "1111-2222", "resourceVersion": "42"},
    "spec": {"ports": [{"port": 80}]},
}
NODE: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "uid": "n-1"}}


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check(ignore_prefix="kubeapi-")


@pytest.fixture
def recorders(kube_api_client: kubernetes.client.ApiClient) -> Iterator[list[EventRecorder]]:
    made: list[EventRecorder] = []
    yield made
    for r in made:
        assert r.stop(5)


def new_recorder(made: list[EventRecorder], api: kubernetes.client.ApiClient, start: bool = True,
                 **kwargs: Any) -> EventRecorder:
    rec = EventRecorder(api, instance="external-dns-test", **kwargs)
    made.append(rec)
    if start:
        rec.start()
    return rec


def events_v1(kubeapi: KubeAPIServer, namespace: str) -> list[dict[str, Any]]:
    return kubeapi.list("events.k8s.io/v1", "Event", namespace)


def test_object_reference_and_argument_errors() -> None:
    assert object_reference(SERVICE) == {"kind": "Service", "apiVersion": "v1", "namespace": "team-a",
                                         "name": "web", "uid": "1111-2222", "resourceVersion": "42"}
    with pytest.raises(ValueError, match=r"metadata\.name"):
        object_reference({"kind": "Service", "metadata": {}})
    api = kubernetes.client.ApiClient(kubernetes.client.Configuration())
    rec = EventRecorder(api)
    with pytest.raises(ValueError, match="Normal or Warning"):
        rec.event(SERVICE, "Info", RECORD_READY, "x")
    with pytest.raises(ValueError, match="reason"):
        rec.event(SERVICE, NORMAL, "", "x")
    api.close()


@pytest.mark.integration
def test_creates_an_events_k8s_io_event(kubeapi: KubeAPIServer, kube_api_client: Any,
                                        recorders: list[EventRecorder]) -> None:
    kubeapi.ensure_namespace("team-a")
    rec = new_recorder(recorders, kube_api_client)
    assert rec.event(SERVICE, NORMAL, RECORD_READY, "Record web.example.com A created")
    assert rec.flush(5)
    [ev] = events_v1(kubeapi, "team-a")
    assert ev["reason"] == "RecordReady"
    assert ev["type"] == "Normal"
    assert ev["note"] == "Record web.example.com A created"
    assert ev["action"] == "Updated"
    assert ev["reportingController"] == "external-dns"
    assert ev["reportingInstance"] == "external-dns-test"
    assert ev["regarding"]["name"] == "web" and ev["regarding"]["uid"] == "1111-2222"
    assert MICRO_TIME.match(ev["eventTime"])
    assert ev["metadata"]["name"].startswith("web.")
    assert not ev.get("series")


@pytest.mark.integration
def test_identical_events_become_one_series(kubeapi: KubeAPIServer, kube_api_client: Any,
                                            recorders: list[EventRecorder]) -> None:
    kubeapi.ensure_namespace("team-a")
    rec = new_recorder(recorders, kube_api_client)
    for _ in range(5):
        rec.event(SERVICE, WARNING, RECORD_ERROR, "provider refused the change")
    rec.event(SERVICE, NORMAL, RECORD_DELETED, "Record web.example.com A deleted")
    assert rec.flush(5)
    found = sorted(events_v1(kubeapi, "team-a"), key=lambda e: e["reason"])
    assert [e["reason"] for e in found] == ["RecordDeleted", "RecordError"]
    deleted, error = found
    assert deleted["action"] == "Deleted" and not deleted.get("series")
    assert error["type"] == "Warning"
    assert error["series"]["count"] == 5
    assert MICRO_TIME.match(error["series"]["lastObservedTime"])
    patches = [r for r in kubeapi.requests if r[0] == "PATCH"]
    assert 1 <= len(patches) <= 2, "count 2 is sent at once, later counts are batched"


@pytest.mark.integration
def test_cluster_scoped_objects_get_events_in_default(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                      recorders: list[EventRecorder]) -> None:
    rec = new_recorder(recorders, kube_api_client)
    rec.event(NODE, NORMAL, "Anything", "free-form reason")
    assert rec.flush(5)
    [ev] = events_v1(kubeapi, "default")
    assert ev["regarding"]["kind"] == "Node" and ev["reason"] == "Anything" and ev["action"] == "Anything"


@pytest.mark.integration
def test_series_window_expiry_starts_a_new_event(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                 recorders: list[EventRecorder]) -> None:
    clock = FakeClock(1000.0)
    rec = new_recorder(recorders, kube_api_client, now=clock.now, series_window=60.0)
    rec.event(NODE, NORMAL, RECORD_READY, "same")
    assert rec.flush(5)
    clock.step(61)
    rec.event(NODE, NORMAL, RECORD_READY, "same")
    assert rec.flush(5)
    assert len(events_v1(kubeapi, "default")) == 2


@pytest.mark.integration
def test_series_event_deleted_on_the_server_is_recreated(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                         recorders: list[EventRecorder]) -> None:
    rec = new_recorder(recorders, kube_api_client)
    rec.event(NODE, NORMAL, RECORD_READY, "again")
    assert rec.flush(5)
    [first] = events_v1(kubeapi, "default")
    kubeapi.delete("events.k8s.io/v1", "Event", "default", first["metadata"]["name"])
    rec.event(NODE, NORMAL, RECORD_READY, "again")
    assert rec.flush(5)
    [again] = events_v1(kubeapi, "default")
    assert again["series"]["count"] == 2
    assert again["metadata"]["name"] != first["metadata"]["name"]


@pytest.mark.integration
def test_falls_back_to_core_v1_when_events_k8s_io_is_missing(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                             recorders: list[EventRecorder]) -> None:
    kubeapi.ensure_namespace("team-a")
    # the POST and the discovery probe of /apis/events.k8s.io/v1 both answer 404
    kubeapi.fail_next(2, 404, path_contains="/apis/events.k8s.io/v1")
    rec = new_recorder(recorders, kube_api_client)
    for _ in range(3):
        rec.event(SERVICE, WARNING, RECORD_ERROR, "zone not found")
    assert rec.flush(5)
    assert rec.api_group == "core"
    [ev] = kubeapi.list("v1", "Event", "team-a")
    assert ev["involvedObject"]["name"] == "web"
    assert ev["reason"] == "RecordError" and ev["type"] == "Warning" and ev["message"] == "zone not found"
    assert ev["source"]["component"] == "external-dns"
    assert ev["count"] == 3


@pytest.mark.integration
def test_per_object_spam_limit(kubeapi: KubeAPIServer, kube_api_client: Any,
                               recorders: list[EventRecorder]) -> None:
    rec = new_recorder(recorders, kube_api_client, spam_burst=3)
    for i in range(5):
        rec.event(NODE, NORMAL, RECORD_READY, f"record {i}")
    rec.event({**NODE, "metadata": {"name": "node-2"}}, NORMAL, RECORD_READY, "other object")
    assert rec.flush(5)
    notes = sorted(e["note"] for e in events_v1(kubeapi, "default"))
    assert notes == ["other object", "record 0", "record 1", "record 2"]
    assert rec.dropped == 2


@pytest.mark.integration
def test_bounded_queue_drops_instead_of_blocking(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                 recorders: list[EventRecorder]) -> None:
    rec = new_recorder(recorders, kube_api_client, start=False, queue_size=2)
    assert rec.event(NODE, NORMAL, RECORD_READY, "one")
    assert rec.event(NODE, NORMAL, RECORD_READY, "two")
    assert not rec.event(NODE, NORMAL, RECORD_READY, "three")
    assert rec.dropped == 1
    rec.start()
    assert rec.flush(5)
    assert sorted(e["note"] for e in events_v1(kubeapi, "default")) == ["one", "two"]


def test_unreachable_api_never_blocks_callers_and_stop_is_bounded() -> None:
    api = kubernetes.client.ApiClient(kubernetes.client.Configuration(host="http://127.0.0.1:9"))
    rec = EventRecorder(api, request_timeout=0.5)
    rec.start()
    try:
        started = time.monotonic()
        for i in range(50):
            rec.event(NODE, NORMAL, RECORD_READY, f"n{i}")
        assert time.monotonic() - started < 0.5
    finally:
        t0 = time.monotonic()
        assert rec.stop(3)
        assert time.monotonic() - t0 < 3.5
        api.close()
    assert not rec.event(NODE, NORMAL, RECORD_READY, "after stop")


@pytest.mark.integration
def test_dry_run_records_nothing(kubeapi: KubeAPIServer, kube_api_client: Any,
                                 recorders: list[EventRecorder]) -> None:
    rec = new_recorder(recorders, kube_api_client, dry_run=True)
    assert rec.event(NODE, NORMAL, RECORD_READY, "dry")
    assert rec.flush(5)
    assert events_v1(kubeapi, "default") == []


@pytest.mark.integration
def test_stop_sends_what_is_queued(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    rec = EventRecorder(kube_api_client)
    rec.start()
    for i in range(10):
        rec.event(NODE, NORMAL, RECORD_READY, f"queued {i}")
    assert rec.stop(5)
    assert len(events_v1(kubeapi, "default")) == 10
    assert rec.sent == 10 and rec.dropped == 0
