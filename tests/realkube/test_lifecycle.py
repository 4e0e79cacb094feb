"""Controller lifecycles on the real server: the DNSRecord controller (finalizer, generation and
observedGeneration through the status subresource, 409s from concurrent writers), leader election across two
processes sharing a real Lease (a killed leader replaced within the lease duration; a partitioned leader's
write fenced), and Events as the server stores them (events.k8s.io and the core/v1 view of the same Event)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import kubernetes.client
import pytest

from external_dns.events import WARNING
from external_dns.events.recorder import EventRecorder
from tests.informers.helpers import wait_until
from tests.realkube.cli import Controller, records, zone_args
from tests.realkube.control_plane import ControlPlane
from tests.realkube.helpers import HOSTNAME, service
from tests.realkube.partition import Partition

pytestmark = [pytest.mark.integration, pytest.mark.realkube]

DNSRECORD = "kuadrant.io/v1alpha1"


def dnsrecord(ns: str, name: str, host: str, ip: str) -> dict[str, Any]:
    return {"apiVersion": DNSRECORD, "kind": "DNSRecord", "metadata": {"name": name, "namespace": ns},
            "spec": {"rootHost": host, "endpoints": [{"dnsName": host, "recordType": "A", "targets": [ip],
                                                      "recordTTL": 60}]}}


def _ready(obj: dict[str, Any] | None) -> bool:
    status = (obj or {}).get("status") or {}
    return status.get("observedGeneration") == (obj or {}).get("metadata", {}).get("generation") and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


def test_dnsrecord_lifecycle(realkube: ControlPlane, realkube_namespace: str, realkube_kubeconfig: str,
                             tmp_path: Path) -> None:
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    zones = tmp_path / "zones"
    zone_file = zones / f"{zone}.zone"
    rec = dnsrecord(ns, "app", f"app.{zone}", "192.0.2.70")
    realkube.create(rec)
    ctl = Controller(["--source=dnsrecord", f"--namespace={ns}", *zone_args(zones, zone), "--policy=sync",
                      f"--txt-owner-id={ns}", f"--kubeconfig={realkube_kubeconfig}", "--metrics-address=127.0.0.1:0",
                      "--min-requeue-time=0.2s"], tmp_path / "controller.log")
    try:
        assert wait_until(lambda: records(zone_file).get((f"app.{zone}", "A")) == ["192.0.2.70"], 30), ctl.output()
        assert wait_until(lambda: _ready(realkube.get(rec)), 30), (realkube.get(rec), ctl.output())
        obj = realkube.get(rec)
        assert obj is not None and obj["metadata"]["finalizers"] == ["kuadrant.io/dns-record"]
        assert obj["metadata"]["generation"] == 1
        # concurrent writers: a burst of spec changes while the controller writes status (its stale writes
        # get 409 from the real server); it ends on the last generation with the last target
        for i in range(5):
            realkube.request("PATCH", realkube.path(rec), {"spec": {"endpoints": [
                {"dnsName": f"app.{zone}", "recordType": "A", "targets": [f"192.0.2.{80 + i}"], "recordTTL": 60}]}},
                content_type="application/merge-patch+json")
        assert wait_until(lambda: _ready(realkube.get(rec)) and realkube.get(rec)["metadata"]["generation"] == 6,  # type: ignore[index]
                          30), (realkube.get(rec), ctl.output())
        assert wait_until(lambda: records(zone_file).get((f"app.{zone}", "A")) == ["192.0.2.84"], 30)
        # deletion: the finalizer holds the object until the record is gone from the zone
        realkube.delete(rec)
        assert wait_until(lambda: realkube.get(rec) is None, 30), ctl.output()
        assert (f"app.{zone}", "A") not in records(zone_file)
    finally:
        code = ctl.stop()
    assert code == 0, ctl.output()


def test_events_as_the_server_stores_them(realkube: ControlPlane, realkube_namespace: str,
                                          realkube_api_client: kubernetes.client.ApiClient) -> None:
    ns = realkube_namespace
    svc = realkube.create(service("web", ns))
    rec = EventRecorder(realkube_api_client, instance="realkube-test")
    rec.start()
    try:
        assert rec.event(svc, WARNING, "RecordError", "web.example.org: bad target")
        assert rec.event(svc, WARNING, "RecordError", "web.example.org: bad target")  # the same again: a series
    finally:
        assert rec.stop(10)
    new = realkube.request("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events").json["items"]
    assert len(new) == 1, new
    event = new[0]
    assert event["regarding"]["uid"] == svc["metadata"]["uid"] and event["regarding"]["kind"] == "Service"
    assert event["reason"] == "RecordError" and event["type"] == "Warning"
    assert event["note"] == "web.example.org: bad target"
    assert event["reportingController"] == "external-dns" and event["reportingInstance"] == "realkube-test"
    assert event["series"]["count"] == 2
    # what `kubectl get events` (core/v1) shows of the same Event: fields mapped by the server
    core = realkube.request("GET", f"/api/v1/namespaces/{ns}/events").json["items"]
    assert len(core) == 1
    assert core[0]["involvedObject"]["name"] == "web" and core[0]["message"] == "web.example.org: bad target"
    assert core[0]["reportingComponent"] == "external-dns" and core[0]["series"]["count"] == 2
    assert "count" not in core[0]  # the core `count` is only for Events written through core/v1


LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 4.0, 3.0, 0.5


def _candidate(ns: str, zones: Path, zone: str, kubeconfig: str, log: Path) -> Controller:
    return Controller(["--source=service", f"--namespace={ns}", *zone_args(zones, zone), "--policy=sync",
                       f"--txt-owner-id={ns}", f"--kubeconfig={kubeconfig}", "--leader-elect",
                       f"--leader-elect-namespace={ns}", "--leader-elect-name=edns",
                       f"--leader-elect-lease-duration={LEASE_DURATION}s",
                       f"--leader-elect-renew-deadline={RENEW_DEADLINE}s",
                       f"--leader-elect-retry-period={RETRY_PERIOD}s", "--interval=1s", "--events",
                       "--metrics-address=127.0.0.1:0", "--log-format=json"], log)


def _identity(ctl: Controller) -> str:
    """The candidate's identity, from its `leader election started` log line."""
    import json

    for line in ctl.output().splitlines():
        if line.startswith("{") and "leader election started" in line:
            return str(json.loads(line)["identity"])
    return ""


def _leads(plane: ControlPlane, ns: str, candidate: Controller) -> bool:
    """Does `candidate` hold the Lease now?"""
    return bool(_identity(candidate)) and _lease(plane, ns).get("holderIdentity") == _identity(candidate)


def _lease(plane: ControlPlane, ns: str) -> dict[str, Any]:
    r = plane.request("GET", f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/edns")
    return r.json.get("spec", {}) if r.status == 200 else {}


def _lb(plane: ControlPlane, ns: str, name: str, host: str, ip: str) -> dict[str, Any]:
    created = plane.create(service(name, ns, svc_type="LoadBalancer", annotations={HOSTNAME: host}))
    created["status"] = {"loadBalancer": {"ingress": [{"ip": ip}]}}
    return plane.update_status(created)


def _parse_micro(value: str) -> float:
    from datetime import datetime

    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def test_killed_leader_is_replaced_within_the_lease_duration(realkube: ControlPlane, realkube_namespace: str,
                                                             realkube_kubeconfig: str, tmp_path: Path) -> None:
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    zones = tmp_path / "zones"
    zone_file = zones / f"{zone}.zone"
    a = _candidate(ns, zones, zone, realkube_kubeconfig, tmp_path / "a.log")
    b: Controller | None = None
    try:
        assert wait_until(lambda: _leads(realkube, ns, a), 30), a.output()
        b = _candidate(ns, zones, zone, realkube_kubeconfig, tmp_path / "b.log")
        assert wait_until(lambda: bool(_identity(b)), 30), b.output()
        _lb(realkube, ns, "one", f"one.{zone}", "192.0.2.1")
        assert wait_until(lambda: records(zone_file).get((f"one.{zone}", "A")) == ["192.0.2.1"], 30), a.output()
        a.kill()  # no release: B must wait out the lease
        last_renew = _parse_micro(_lease(realkube, ns)["renewTime"])
        assert wait_until(lambda: _leads(realkube, ns, b), 30), b.output()
        taken = _parse_micro(_lease(realkube, ns)["acquireTime"])
        # B saw A's last renewal within a retry period, then waited the lease duration: no sooner, no later
        assert LEASE_DURATION <= taken - last_renew <= LEASE_DURATION + 3 * RETRY_PERIOD + 1.0, taken - last_renew
        _lb(realkube, ns, "two", f"two.{zone}", "192.0.2.2")
        assert wait_until(lambda: records(zone_file).get((f"two.{zone}", "A")) == ["192.0.2.2"], 30), b.output()
    finally:
        a.kill()
        if b is not None:
            assert b.stop() == 0, b.output()


def test_partitioned_leaders_write_is_fenced(realkube: ControlPlane, realkube_namespace: str,
                                             realkube_kubeconfig: str, tmp_path: Path) -> None:
    """A leads through a link the test cuts. Its cache still holds a Service deleted meanwhile: B, the new
    leader, removes the record, and A, which still syncs every second from its stale cache, never puts it
    back (its workers stop when the lease is lost and a fence refuses any write after that)."""
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    zones = tmp_path / "zones"
    zone_file = zones / f"{zone}.zone"
    link = Partition(realkube.port)
    a_kubeconfig = realkube.write_kubeconfig(tmp_path / "a.kubeconfig", namespace=ns, server=link.url)
    a = _candidate(ns, zones, zone, a_kubeconfig, tmp_path / "a.log")
    b: Controller | None = None
    try:
        assert wait_until(lambda: _leads(realkube, ns, a), 30), a.output()
        b = _candidate(ns, zones, zone, realkube_kubeconfig, tmp_path / "b.log")
        _lb(realkube, ns, "gone", f"gone.{zone}", "192.0.2.9")
        _lb(realkube, ns, "stay", f"stay.{zone}", "192.0.2.8")  # gone's delete is then no wipe (needs --force)
        assert wait_until(lambda: records(zone_file).get((f"gone.{zone}", "A")) == ["192.0.2.9"]
                          and (f"stay.{zone}", "A") in records(zone_file), 30), a.output()
        link.cut()
        realkube.request("DELETE", f"/api/v1/namespaces/{ns}/services/gone")
        assert wait_until(lambda: _leads(realkube, ns, b), 30), b.output()
        assert wait_until(lambda: (f"gone.{zone}", "A") not in records(zone_file), 30), b.output()
        stop = threading.Event()
        stop.wait(4.0)  # A's 1 s interval passes several times: the record must stay gone
        assert (f"gone.{zone}", "A") not in records(zone_file), a.output()
        assert a.alive()
    finally:
        link.close()
        assert a.stop() == 0, a.output()
        if b is not None:
            assert b.stop() == 0, b.output()
