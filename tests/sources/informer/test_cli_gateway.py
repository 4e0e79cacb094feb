"""The real CLI with `--source=gateway-httproute` (and node, pod) against the test API server and the zonefile
provider: a bearer token bound to exactly the rules the sources declare (no 403), a role missing the Gateway
rule failing at start-up naming it, and the long-running path: a route change reaches the zone through an
informer event within --min-event-sync-interval + 1 s, bad input becoming a Warning Event on the route."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from external_dns.sources.rbac import cluster_role, rules_for_sources
from tests.helpers.cli import ROOT, Controller, check_exit, clean_env, zone_records
from tests.helpers.gateway import API_VERSIONS, gateway, listener, route
from tests.kubeapi.authz import bind_cluster_role, forbidden_requests
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, create_with_status

pytestmark = pytest.mark.integration

TOKEN = "edns-gateway"
SOURCES = ("gateway-httproute", "node", "pod")


def populate(server: KubeAPIServer) -> None:
    create_with_status(server, gateway(addresses=["192.0.2.1"], listeners=[listener(hostname="*.example.org")]))
    create_with_status(server, route(hostnames=["echo.example.org"]))
    create_with_status(server, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                "status": {"addresses": [{"type": "ExternalIP", "address": "203.0.113.1"}]}})
    create_with_status(server, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "edge", "namespace": "default", "annotations": {PREFIX + "hostname": "edge.example.org"}},
        "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "podIP": "203.0.113.1"}})


def args(kubeconfig: str, zones: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "external_dns", *(f"--source={s}" for s in SOURCES), "--provider=zonefile",
            f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync",
            "--txt-owner-id=gw-test", f"--kubeconfig={kubeconfig}", "--fqdn-template={{.Name}}.nodes.example.org",
            *extra]


def run_once(cmd: list[str], expect: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*cmd, "--once"], capture_output=True, text=True, env=clean_env(drop=["KUBECONFIG"]),
                          cwd=ROOT, timeout=90, check=False)
    check_exit(proc, expect)
    return proc


def test_once_with_declared_rules_publishes_routes_nodes_pods(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    populate(kubeapi)
    bind_cluster_role(kubeapi, TOKEN, cluster_role("edns", rules_for_sources(SOURCES)))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    run_once(args(kubeconfig, tmp_path / "zones"))
    recs = zone_records(tmp_path / "zones" / "example.org.zone")
    assert recs[("echo.example.org", "A")] == ["192.0.2.1"]
    assert recs[("n1.nodes.example.org", "A")] == ["203.0.113.1"]
    assert recs[("edge.example.org", "A")] == ["203.0.113.1"]
    assert "external-dns/resource=httproute/default/echo" in recs[("a-echo.example.org", "TXT")][0]
    assert "external-dns/resource=node/n1" in recs[("a-n1.nodes.example.org", "TXT")][0]
    assert forbidden_requests(kubeapi) == []


def test_role_without_gateways_fails_naming_the_rule(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    populate(kubeapi)
    rules = [{**r, "resources": [x for x in r["resources"] if x != "gateways"]} for r in rules_for_sources(SOURCES)]
    bind_cluster_role(kubeapi, TOKEN, cluster_role("short", rules))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    proc = run_once(args(kubeconfig, tmp_path / "zones"), expect=1)
    output = (proc.stdout + proc.stderr).replace('\\"', '"')
    assert ('the ClusterRole needs the rule {apiGroups: ["gateway.networking.k8s.io"], resources: ["gateways"], '
            'verbs: ["list", "watch"]}') in output, output
    assert not (tmp_path / "zones" / "example.org.zone").exists()


def test_long_running_route_change_reaches_the_zone(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    populate(kubeapi)
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    zone_file = tmp_path / "zones" / "example.org.zone"
    ctl = Controller(args(kubeconfig, tmp_path / "zones", "--events", "--interval=1h", "--min-event-sync-interval=1s",
                          "--metrics-address=127.0.0.1:0", "--events-emit=RecordError"))
    http = (API_VERSIONS["HTTPRoute"], "HTTPRoute")
    try:
        assert ctl.wait_for(lambda: ("echo.example.org", "A") in zone_records(zone_file), 30) is not None
        kubeapi.patch(*http, "default", "echo", {"spec": {"hostnames": ["moved.example.org"]}})
        took = ctl.wait_for(lambda: ("moved.example.org", "A") in zone_records(zone_file)
                            and ("echo.example.org", "A") not in zone_records(zone_file), 10)
        assert took is not None and took <= 2.0, took
        # a route whose parent Gateway does not exist: a Warning Event naming the route and the field
        create_with_status(kubeapi, route(name="orphan", hostnames=["orphan.example.org"],
                                          parents=[{"name": "missing"}]))

        def notes() -> list[str]:
            return [e.get("note", "") for e in kubeapi.list("events.k8s.io/v1", "Event", "default")
                    if e.get("regarding", {}).get("name") == "orphan" and e.get("type") == "Warning"]

        assert ctl.wait_for(lambda: bool(notes()), 10) is not None
        assert "spec.parentRefs[0].name" in notes()[0] and "Gateway default/missing does not exist" in notes()[0]
    finally:
        code, out = ctl.stop()
    assert code == 0, out


def test_route_kind_not_served_fails_start_up_naming_it(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    """A cluster without the TLSRoute CRD (neither v1 nor v1alpha2 served): exit 1 at start-up naming the
    resource, not an informer retrying 404s until the sync timeout."""
    populate(kubeapi)
    # the test server serves TLSRoute at v1alpha2 only; hide that group/version from the discovery request
    kubeapi.fail_next(1, 404, path_contains="/apis/gateway.networking.k8s.io/v1alpha2")
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    cmd = [sys.executable, "-m", "external_dns", "--source=gateway-tlsroute", "--provider=zonefile",
           f"--zonefile-dir={tmp_path / 'zones'}", "--zonefile-create-zone=example.org", "--policy=sync",
           "--txt-owner-id=gw-test", f"--kubeconfig={kubeconfig}"]
    proc = run_once(cmd, expect=1)
    assert ('--source=gateway-tlsroute: the Kubernetes API server does not serve tlsroutes (API group '
            '"gateway.networking.k8s.io", version v1 or v1alpha2); install the CRD that defines it'
            ) in proc.stderr.replace('\\"', '"')
    assert not (tmp_path / "zones" / "example.org.zone").exists()
    assert kubeapi.request_count(path_contains="/tlsroutes") == 0  # no list, no watch, no access probe
