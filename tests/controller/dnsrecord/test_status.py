"""Status writes through the status subresource with optimistic concurrency: a 409 re-reads and retries when
only metadata/spec moved on, and never overwrites a newer status."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.controller.dnsrecord.status import RecordAPI, StatusWriter, set_condition
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from tests.controller.dnsrecord.helpers import START, a_record, get, record
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def _created(kubeapi: KubeAPIServer) -> dict[str, Any]:
    return kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "1.2.3.4")]))


def test_conflict_after_a_metadata_change_is_retried_on_the_fresh_object(kubeapi: KubeAPIServer,
                                                                        kube_api_client: Any) -> None:
    stale = _created(kubeapi)
    fresh = dict(stale)
    fresh["metadata"] = {**stale["metadata"], "labels": {"team": "dns"}}
    kubeapi.update(fresh)
    writer = StatusWriter(RecordAPI(kube_api_client))
    written = writer.write(stale, {"writeCounter": 2})
    assert written is not None and written["status"] == {"writeCounter": 2}
    assert writer.conflicts == 1 and writer.writes == 1
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"] == {"writeCounter": 2}
    assert obj["metadata"]["labels"] == {"team": "dns"}  # the newer metadata is kept


def test_conflict_with_a_newer_status_never_overwrites_it(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    stale = _created(kubeapi)
    newer = dict(stale)
    newer["status"] = {"writeCounter": 7}
    kubeapi.update_status(newer)
    writer = StatusWriter(RecordAPI(kube_api_client))
    assert writer.write(stale, {"writeCounter": 1}) is None
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"] == {"writeCounter": 7}
    assert writer.writes == 0


def test_unchanged_status_is_not_sent(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    obj = _created(kubeapi)
    obj = kubeapi.update_status({**obj, "status": {"writeCounter": 0}})
    kubeapi.clear_requests()
    writer = StatusWriter(RecordAPI(kube_api_client))
    assert writer.write(obj, {"writeCounter": 0}) is not None
    assert writer.writes == 0 and kubeapi.requests == []


def test_object_gone_during_a_conflict(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    stale = _created(kubeapi)
    kubeapi.delete(API_VERSION, KIND, "default", "app")
    assert StatusWriter(RecordAPI(kube_api_client)).write(stale, {"writeCounter": 1}) is None


def test_set_condition_keeps_the_transition_time_while_the_status_holds() -> None:
    first = set_condition([], "Ready", False, "AwaitingValidation", "Awaiting validation", 1, START)
    same = set_condition(first, "Ready", False, "ProviderError", "boom", 1, START + 60)
    assert same[0]["lastTransitionTime"] == first[0]["lastTransitionTime"]
    assert same[0]["reason"] == "ProviderError"
    flipped = set_condition(same, "Ready", True, "ProviderSuccess", "ok", 2, START + 120)
    assert flipped[0]["lastTransitionTime"] != first[0]["lastTransitionTime"]
    assert flipped[0]["observedGeneration"] == 2 and len(flipped) == 1
