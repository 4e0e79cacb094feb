"""`--source=crd` (DNSEndpoint) through the real informers against the test API server (sources/informer/crd.py)."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.limits import is_hold
from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.crd import DNSEndpointInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import Waiter, dnsendpoint, names

pytestmark = pytest.mark.integration

DNS = ("externaldns.k8s.io/v1alpha1", "DNSEndpoint")


def crd_source(factory: SharedInformerFactory, waiter: Waiter | None = None, **opts: Any) -> DNSEndpointInformerSource:
    src = DNSEndpointInformerSource(factory, SourceOptions(**opts), sync_timeout=10.0)
    if waiter is not None:
        src.add_event_handler(waiter)
    return src


def test_dnsendpoint_create_update_delete_and_status(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                     waiter: Waiter) -> None:
    src = crd_source(factory, waiter)
    assert src.endpoints() == []
    kubeapi.create(dnsendpoint("rec", {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.2.3.4"],
                                       "recordTTL": 180, "labels": {"team": "payments"}}))
    assert waiter.until(lambda: names(src.endpoints()) == {("a.example.org", "A"): ["1.2.3.4"]})
    ep = src.endpoints()[0]
    assert ep.record_ttl == 180 and ep.labels == {"team": "payments", "resource": "crd/default/rec"}
    stored = kubeapi.get(*DNS, "default", "rec")
    assert stored is not None and stored["status"]["observedGeneration"] == stored["metadata"]["generation"] == 1
    kubeapi.patch(*DNS, "default", "rec", {"spec": {"endpoints": [
        {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.2.3.5"]}]}})
    assert waiter.until(lambda: names(src.endpoints()) == {("a.example.org", "A"): ["1.2.3.5"]})
    assert kubeapi.get(*DNS, "default", "rec")["status"] == {"observedGeneration": 2}  # type: ignore[index]
    kubeapi.delete(*DNS, "default", "rec")
    assert waiter.until(lambda: src.endpoints() == [])


def test_dnsendpoint_bad_items_skip_only_themselves(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(dnsendpoint("mixed",
                               {"dnsName": "good.example.org", "recordType": "A", "targets": ["1.1.1.1"]},
                               {"dnsName": "dot.example.org", "recordType": "A", "targets": ["1.1.1.2."]},
                               {"dnsName": "a.*.example.org", "recordType": "A", "targets": ["1.1.1.3"]},
                               {"dnsName": "cname.example.org", "recordType": "CNAME", "targets": ["x.example.net."]},
                               {"dnsName": "bad.example.org", "recordType": "A", "targets": ["not-an-ip"]}))
    src = crd_source(factory)
    eps = src.endpoints()
    assert names([e for e in eps if not is_hold(e)]) == {("good.example.org", "A"): ["1.1.1.1"],
                                                         ("cname.example.org", "CNAME"): ["x.example.net."]}
    # the items whose name and type read hold their records (issue 27, item 9); a bad name holds nothing
    assert sorted((e.dns_name, e.record_type) for e in eps if is_hold(e)) == [("bad.example.org", "A"),
                                                                            ("dot.example.org", "A")]
    fields = sorted(p.field for p in src.problems)
    assert fields == ["spec.endpoints[1].targets[0]", "spec.endpoints[2].dnsName", "spec.endpoints[4].targets"]
    assert all(p.ref == "dnsendpoint/default/mixed" for p in src.problems)
    msg = next(str(p) for p in src.problems if p.field == "spec.endpoints[1].targets[0]")
    assert "has an illegal target '1.1.1.2.' for A record — use '1.1.1.2' not '1.1.1.2.'" in msg


def test_dnsendpoint_label_filter_is_server_side(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(dnsendpoint("a", {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.1.1.1"]},
                               labels={"env": "prod"}))
    kubeapi.create(dnsendpoint("b", {"dnsName": "b.example.org", "recordType": "A", "targets": ["1.1.1.2"]}))
    src = crd_source(factory, label_filter="env=prod")
    assert [e.dns_name for e in src.endpoints()] == ["a.example.org"]
    assert len(src.dnsendpoints.get_store()) == 1
    assert any(q.get("labelSelector") == "env=prod" for _m, p, q, _s in kubeapi.requests if "dnsendpoints" in p)


def test_dnsendpoint_dry_run_leaves_status(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(dnsendpoint("a", {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.1.1.1"]}))
    src = DNSEndpointInformerSource(factory, SourceOptions(), update_status=False, sync_timeout=10.0)
    assert len(src.endpoints()) == 1
    assert "observedGeneration" not in ((kubeapi.get(*DNS, "default", "a") or {}).get("status") or {})


def test_dnsendpoint_not_matching_the_crd_is_reported(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(dnsendpoint("good", {"dnsName": "good.example.org", "recordType": "A", "targets": ["1.1.1.1"]}))
    src = crd_source(factory)
    src.wait_synced()
    # the API server validates against the CRD schema; a malformed object can still arrive (an older CRD
    # without a schema, a proxy): it is reported by field and everything else still syncs
    src.dnsendpoints.reflector.sink.apply("ADDED", {
        "apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
        "metadata": {"name": "bad", "namespace": "default", "resourceVersion": "999999", "generation": 1},
        "spec": {"endpoints": "a.example.org"}})
    assert names(src.endpoints()) == {("good.example.org", "A"): ["1.1.1.1"]}
    assert [(p.ref, p.field, p.severity) for p in src.problems] == [
        ("dnsendpoint/default/bad", "spec.endpoints", "error")]
    assert src.status_updates == 1  # the good one; the rejected one keeps its status


def test_dnsendpoint_status_waits_for_every_zone_of_the_object_to_sync(kubeapi: KubeAPIServer,
                                                                      factory: SharedInformerFactory,
                                                                      waiter: Waiter) -> None:
    from external_dns.controller.controller import notify_synced

    kubeapi.create(dnsendpoint("two", {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.1.1.1"]},
                               {"dnsName": "b.example.net", "recordType": "A", "targets": ["1.1.1.2"]}))
    src = crd_source(factory, waiter)
    src.defer_status_until_synced()
    zones = ["example.org", "example.net"]

    def status() -> dict[str, Any]:
        return (kubeapi.get(*DNS, "default", "two") or {}).get("status") or {}

    assert len(src.endpoints()) == 2
    assert "observedGeneration" not in status(), "reading the endpoints writes no status"
    notify_synced([src.synced], "example.org", zones)
    assert "observedGeneration" not in status(), "example.net has not synced yet"
    assert len(src.endpoints()) == 2  # the next zone's pass reads again: what example.org covered is kept
    notify_synced([src.synced], "example.net", zones)
    assert status() == {"observedGeneration": 1} and src.status_updates == 1

    # a new generation starts over; a full sync (zone None) covers every name at once
    kubeapi.patch(*DNS, "default", "two", {"spec": {"endpoints": [
        {"dnsName": "a.example.org", "recordType": "A", "targets": ["1.1.1.3"]}]}})
    assert waiter.until(lambda: names(src.endpoints()) == {("a.example.org", "A"): ["1.1.1.3"]})
    assert status() == {"observedGeneration": 1}
    notify_synced([src.synced], None)
    assert status() == {"observedGeneration": 2}
