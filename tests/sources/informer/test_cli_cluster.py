"""The real CLI (`python -m external_dns`) against the test API server: Service, Ingress and DNSEndpoint
sources at once, RBAC from the declared rules (bearer token bound to the ClusterRole), a role missing one
rule, the long-running event path (an event reaches the zone within --min-event-sync-interval + 1 s),
conflict and bad-input Events, and one end-to-end run against BIND."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dns.message
import dns.query
import dns.rdatatype
import dns.zone
import pytest

from external_dns.sources.rbac import cluster_role, rules_for_sources
from tests.helpers.cli import ROOT, Controller, check_exit, clean_env, zone_records
from tests.kubeapi.authz import bind_cluster_role, bind_rendered_roles, forbidden_requests
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer
from tests.sources.informer.conftest import PREFIX, dnsendpoint, ingress, service, set_lb_status

pytestmark = pytest.mark.integration

TOKEN = "external-dns-token"
LEASE_NAMESPACE = "dns"
SOURCES = ("service", "ingress", "crd")


def populate(server: KubeAPIServer) -> None:
    server.create(service("web", hostname="web.example.org"))
    set_lb_status(server, "web", {"ip": "192.0.2.10"})
    created = server.create(ingress("shop", hosts=["shop.example.org"]))
    created["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.20"}]}}
    server.update_status(created)
    server.create(dnsendpoint("rec", {"dnsName": "rec.example.org", "recordType": "A", "targets": ["192.0.2.30"]}))


@pytest.fixture
def cluster(kubeapi: KubeAPIServer, tmp_path: Path) -> Iterator[tuple[KubeAPIServer, str, Path]]:
    """The API server with a token bound to the chart's rendered ClusterRole (and its leader-election Role in
    the release namespace, LEASE_NAMESPACE)."""
    from tests.charts.render import NAMESPACE, render_chart

    assert NAMESPACE == LEASE_NAMESPACE
    objects = render_chart({"sources": list(SOURCES), "leaderElection": {"enabled": True}, "replicaCount": 2})
    rules = bind_rendered_roles(kubeapi, TOKEN, objects, user="system:serviceaccount:dns:edns-external-dns-py")
    # the chart grants what the sources declare, no more
    declared = rules_for_sources(SOURCES, leader_election=True)
    assert permissions(rules) == permissions(declared)
    kubeapi.ensure_namespace(LEASE_NAMESPACE)
    yield kubeapi, kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN), tmp_path / "zones"


def permissions(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def base_args(kubeconfig: str, zones: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "external_dns", *(f"--source={s}" for s in SOURCES), "--provider=zonefile",
            f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync",
            "--txt-owner-id=cluster-test", f"--kubeconfig={kubeconfig}", "--log-level=info", *extra]


def run_once(args: list[str], expect: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*args, "--once"], capture_output=True, text=True, env=clean_env(drop=["KUBECONFIG"]),
                          cwd=ROOT, timeout=90, check=False)
    check_exit(proc, expect)
    return proc


def test_once_with_chart_cluster_role_syncs_without_403(cluster: tuple[KubeAPIServer, str, Path]) -> None:
    server, kubeconfig, zones = cluster
    populate(server)
    run_once(base_args(kubeconfig, zones))
    recs = zone_records(zones / "example.org.zone")
    assert recs[("web.example.org", "A")] == ["192.0.2.10"]
    assert recs[("shop.example.org", "A")] == ["192.0.2.20"]
    assert recs[("rec.example.org", "A")] == ["192.0.2.30"]
    assert "external-dns/resource=service/default/web" in recs[("a-web.example.org", "TXT")][0]
    assert "external-dns/resource=ingress/default/shop" in recs[("a-shop.example.org", "TXT")][0]
    assert "external-dns/resource=crd/default/rec" in recs[("a-rec.example.org", "TXT")][0]
    rec = server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "default", "rec")
    assert rec is not None and rec["status"]["observedGeneration"] == rec["metadata"]["generation"]
    assert forbidden_requests(server) == []


@pytest.mark.parametrize(("drop", "named"), [
    (("", "pods", "list"), 'list pods (API group "") cluster-wide: the ClusterRole needs the rule '
                           '{apiGroups: [""], resources: ["pods"], verbs: ["list"]}'),
    (("externaldns.k8s.io", "dnsendpoints/status", "update"),
     'update dnsendpoints/status (API group "externaldns.k8s.io") in namespace "default"'),
])
def test_role_missing_one_rule_fails_naming_it(kubeapi: KubeAPIServer, tmp_path: Path,
                                               drop: tuple[str, str, str], named: str) -> None:
    group, resource, verb = drop
    rules: list[dict[str, Any]] = []
    for rule in rules_for_sources(SOURCES):
        if group in rule["apiGroups"] and resource in rule["resources"]:
            rest = [r for r in rule["resources"] if r != resource]
            if rest:
                rules.append({**rule, "resources": rest})
            rules.append({**rule, "resources": [resource], "verbs": [v for v in rule["verbs"] if v != verb]})
        else:
            rules.append(rule)
    bind_cluster_role(kubeapi, TOKEN, cluster_role("incomplete", rules))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    proc = run_once(base_args(kubeconfig, tmp_path / "zones", "--namespace=default" if "status" in resource else
                              "--log-level=info"), expect=1)
    output = (proc.stdout + proc.stderr).replace('\\"', '"')  # log values are logfmt-quoted
    assert named in output, output
    assert not (tmp_path / "zones" / "example.org.zone").exists() or ("web.example.org", "A") not in zone_records(
        tmp_path / "zones" / "example.org.zone")


def test_long_running_events_reach_the_zone(cluster: tuple[KubeAPIServer, str, Path]) -> None:
    server, kubeconfig, zones = cluster
    populate(server)
    zone_file = zones / "example.org.zone"
    ctl = Controller(base_args(kubeconfig, zones, "--events", "--events-emit=RecordError", "--interval=1h",
                               "--min-event-sync-interval=1s",
                               "--metrics-address=127.0.0.1:0", "--leader-elect",
                               f"--leader-elect-namespace={LEASE_NAMESPACE}",
                               "--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=1.5s",
                               "--leader-elect-retry-period=0.5s"))
    try:
        assert ctl.wait_for(lambda: ("rec.example.org", "A") in zone_records(zone_file), 30) is not None
        # an update, a create and a delete, each seen through an informer event (the interval is 1 h)
        steps: list[tuple[Callable[[], object], Callable[[], bool]]] = [
            (lambda: set_lb_status(server, "web", {"ip": "192.0.2.11"}),
             lambda: zone_records(zone_file).get(("web.example.org", "A")) == ["192.0.2.11"]),
            (lambda: server.create(dnsendpoint("new", {"dnsName": "new.example.org", "recordType": "A",
                                                       "targets": ["192.0.2.40"]})),
             lambda: ("new.example.org", "A") in zone_records(zone_file)),
            (lambda: server.delete("networking.k8s.io/v1", "Ingress", "default", "shop"),
             lambda: ("shop.example.org", "A") not in zone_records(zone_file)),
        ]
        for change, check in steps:
            change()
            took = ctl.wait_for(check, 10)
            assert took is not None and took <= 1.0 + 1.0, took  # within --min-event-sync-interval + 1 s

        # the long-running controller marks a DNSEndpoint's generation observed once its zone has synced
        def observed(name: str) -> bool:
            obj = server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "default", name)
            return obj is not None and (obj.get("status") or {}).get("observedGeneration") == 1

        assert ctl.wait_for(lambda: observed("rec") and observed("new"), 10) is not None
        # bad input on a new object: a warning Event naming the annotation
        server.create(service("dup", hostname="dup.example.org", annotations={PREFIX + "ttl": "abc"}))
        set_lb_status(server, "dup", {"ip": "192.0.2.60"})
        # the same new name claimed by two objects in one burst: one RecordConflict Event on the loser
        created = server.create(ingress("c-ing", hosts=["conflict.example.org"]))
        created["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.50"}]}}
        server.update_status(created)
        server.create(dnsendpoint("c-crd", {"dnsName": "conflict.example.org", "recordType": "A",
                                            "targets": ["192.0.2.51"]}))

        def reasons(name: str) -> list[str]:
            return [e["reason"] for e in server.list("events.k8s.io/v1", "Event", "default")
                    if e.get("regarding", {}).get("name") == name]

        assert ctl.wait_for(lambda: "RecordError" in reasons("dup") and "RecordConflict" in reasons("c-crd"),
                            10) is not None, (reasons("dup"), reasons("c-crd"))
        # the Event is sent just before the write: wait for the write itself
        assert ctl.wait_for(lambda: zone_records(zone_file).get(("conflict.example.org", "A")) == ["192.0.2.50"],
                            10) is not None
        assert "RecordConflict" not in reasons("c-ing")
        # a later claim on a name another object holds: the holder keeps it (even with larger targets), the
        # newcomer gets the Event although nothing is written
        server.create(service("late", hostname="rec.example.org"))
        set_lb_status(server, "late", {"ip": "192.0.2.1"})
        assert ctl.wait_for(lambda: "RecordConflict" in reasons("late"), 10) is not None
        assert zone_records(zone_file)[("rec.example.org", "A")] == ["192.0.2.30"]
    finally:
        code, out = ctl.stop()
    assert code == 0, out
    assert forbidden_requests(server) == [], out
    events = server.list("events.k8s.io/v1", "Event", "default")
    notes = [e["note"] for e in events if e.get("regarding", {}).get("name") == "dup"]
    assert any("external-dns.kubernetes.io/ttl='abc'" in n for n in notes), notes
    conflicts = {e["regarding"]["name"]: e for e in events if e["reason"] == "RecordConflict"}
    assert sorted(conflicts) == ["c-crd", "late"]  # once each, although every sync sees the conflict
    assert conflicts["c-crd"]["regarding"]["kind"] == "DNSEndpoint"
    assert "ingress/default/c-ing" in conflicts["c-crd"]["note"]
    assert "crd/default/rec" in conflicts["late"]["note"] and conflicts["late"]["regarding"]["kind"] == "Service"
    assert conflicts["late"].get("series") is None


def test_end_to_end_against_bind(kubeapi: KubeAPIServer, bind_server: BindServer, tmp_path: Path) -> None:
    bind_server.reset()
    populate(kubeapi)
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    env = {**clean_env(drop=["KUBECONFIG"]), "EXTERNAL_DNS_RFC2136_TSIG_SECRET": bind_server.key_secret}
    args = [sys.executable, "-m", "external_dns", *(f"--source={s}" for s in SOURCES), "--provider=rfc2136",
            f"--rfc2136-host={bind_server.host}", f"--rfc2136-port={bind_server.port}",
            *(f"--rfc2136-zone={z}" for z in bind_server.zones), f"--rfc2136-tsig-keyname={bind_server.key_name}",
            "--rfc2136-axfr", "--policy=sync", "--txt-owner-id=bind-test", f"--kubeconfig={kubeconfig}", "--once"]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=90, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    def query(name: str, rdtype: str) -> list[str]:
        answer = dns.query.udp(dns.message.make_query(name, rdtype), bind_server.host, port=bind_server.port,
                               timeout=5)
        return sorted(r.to_text() for rrset in answer.answer for r in rrset)

    assert query("web.example.org", "A") == ["192.0.2.10"]
    assert query("shop.example.org", "A") == ["192.0.2.20"]
    assert query("rec.example.org", "A") == ["192.0.2.30"]
    assert any("external-dns/resource=crd/default/rec" in t for t in query("a-rec.example.org", "TXT"))
    kubeapi.delete("v1", "Service", "default", "web")
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=90, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert query("web.example.org", "A") == []
    assert query("rec.example.org", "A") == ["192.0.2.30"]



def test_dnsendpoint_status_is_written_only_after_a_successful_sync(cluster: tuple[KubeAPIServer, str, Path]) -> None:
    server, kubeconfig, zones = cluster
    dns = ("externaldns.k8s.io/v1alpha1", "DNSEndpoint")
    hosts = [{"dnsName": f"h{i}.example.org", "recordType": "A", "targets": [f"192.0.2.{40 + i}"]} for i in range(4)]
    server.create(dnsendpoint("many", *hosts))
    args = base_args(kubeconfig, zones, "--min-existing-records=1", "--events-emit=RecordError")
    run_once(args)
    assert server.get(*dns, "default", "many")["status"] == {"observedGeneration": 1}  # type: ignore[index]

    # generation 2 drops two of four records: 50 % deletes, refused by the safety check
    server.patch(*dns, "default", "many", {"spec": {"endpoints": hosts[:2]}})
    proc = run_once(args, expect=3)
    assert "[example.org.] Too many deletes, 50.00% is over 30.00% (2/4), force required" in proc.stderr
    many = server.get(*dns, "default", "many")
    assert many is not None and many["metadata"]["generation"] == 2
    assert many["status"] == {"observedGeneration": 1}, "a refused sync must not mark generation 2 observed"
    assert ("h3.example.org", "A") in zone_records(zones / "example.org.zone")

    run_once([*args, "--force"])
    assert ("h3.example.org", "A") not in zone_records(zones / "example.org.zone")
    assert server.get(*dns, "default", "many")["status"] == {"observedGeneration": 2}  # type: ignore[index]


def test_once_sends_bad_input_and_unsafe_plan_events(cluster: tuple[KubeAPIServer, str, Path]) -> None:
    server, kubeconfig, zones = cluster
    server.create(service("bad", hostname="bad.example.org", annotations={PREFIX + "ttl": "abc"}))
    set_lb_status(server, "bad", {"ip": "192.0.2.70"})
    hosts = [{"dnsName": f"u{i}.example.org", "recordType": "A", "targets": [f"192.0.2.{80 + i}"]} for i in range(4)]
    server.create(dnsendpoint("many", *hosts))
    args = base_args(kubeconfig, zones, "--min-existing-records=1", "--events-emit=RecordError")
    run_once(args)

    def events(name: str) -> list[dict[str, Any]]:
        return [e for e in server.list("events.k8s.io/v1", "Event", "default")
                if e.get("regarding", {}).get("name") == name]

    bad = [e for e in events("bad") if e["reason"] == "RecordError"]
    assert len(bad) == 1 and "external-dns.kubernetes.io/ttl='abc'" in bad[0]["note"], events("bad")
    assert zone_records(zones / "example.org.zone")[("bad.example.org", "A")] == ["192.0.2.70"]  # kept, default TTL

    server.patch("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "default", "many", {"spec": {"endpoints": hosts[:1]}})
    run_once(args, expect=3)
    unsafe = [e for e in events("many") if e["reason"] == "UnsafePlan"]
    assert len(unsafe) == 1 and "Too many deletes" in unsafe[0]["note"] and unsafe[0]["type"] == "Warning"
    # --dry-run sends none
    before = len(server.list("events.k8s.io/v1", "Event", "default"))
    run_once([*args, "--dry-run"], expect=3)
    assert len(server.list("events.k8s.io/v1", "Event", "default")) == before
    assert forbidden_requests(server) == []
