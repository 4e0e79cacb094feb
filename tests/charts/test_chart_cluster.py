"""The chart's own rendered RBAC and args, end to end: the real CLI (`python -m external_dns --once`, with
the container args the chart renders) against the test Kubernetes API server, authenticated by a token
bound to the rendered ClusterRole. It must sync every source with no 403, including with the narrowed
role of `serviceTypeFilter: [LoadBalancer]`; a role the chart would not render (one rule short) fails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import dns.rdatatype
import dns.zone
import pytest

from tests.charts.render import ROOT, containers, find, render_chart
from tests.kubeapi.authz import bind_cluster_role, forbidden_requests
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

TOKEN = "chart-service-account-token"
HOSTNAME = "external-dns.kubernetes.io/hostname"


def _service(name: str, hostname: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default", "annotations": {HOSTNAME: hostname}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "name": "http"}]}}


def _populate(server: KubeAPIServer) -> None:
    server.create(_service("web", "web.example.org"))
    web = server.get("v1", "Service", "default", "web")
    assert web is not None
    web["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}
    server.update_status(web)
    shop = server.create({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                          "metadata": {"name": "shop", "namespace": "default"},
                          "spec": {"rules": [{"host": "shop.example.org"}]}})
    shop["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.20"}]}}
    server.update_status(shop)
    server.create({"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
                   "metadata": {"name": "rec", "namespace": "default"},
                   "spec": {"endpoints": [{"dnsName": "rec.example.org", "recordType": "A",
                                           "targets": ["192.0.2.30"]}]}})


def _records(zone_file: Path) -> dict[tuple[str, str], list[str]]:
    if not zone_file.exists():
        return {}
    zone = dns.zone.from_file(str(zone_file), origin=None, relativize=False, check_origin=False)
    return {(name.to_text(omit_final_dot=True), dns.rdatatype.to_text(rds.rdtype)): sorted(r.to_text() for r in rds)
            for name, node in zone.nodes.items() for rds in node.rdatasets if rds.rdtype != dns.rdatatype.SOA}


def _run_chart_args(values: dict[str, Any], server: KubeAPIServer, tmp_path: Path,
                    rules: list[dict[str, Any]] | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    zones = tmp_path / "zones"
    values = {**values, "provider": {"name": "inmemory"},
              "extraArgs": ["--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org"]}
    objects = render_chart(values)
    role = find(objects, "ClusterRole")
    if rules is not None:
        role = {**role, "rules": rules}
    bind_cluster_role(server, TOKEN, role, user="system:serviceaccount:dns:edns-external-dns-py")
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    args = containers(objects)["external-dns"]["args"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k != "KUBECONFIG"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "external_dns", *args, "--once", f"--kubeconfig={kubeconfig}"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False)
    return proc, zones / "example.org.zone"


def test_rendered_cluster_role_and_args_sync_every_source(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    _populate(kubeapi)
    proc, zone_file = _run_chart_args({"sources": ["service", "ingress", "crd"], "txtOwnerId": "chart-test"},
                                      kubeapi, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = _records(zone_file)
    assert records[("web.example.org", "A")] == ["192.0.2.10"]
    assert records[("shop.example.org", "A")] == ["192.0.2.20"]
    assert records[("rec.example.org", "A")] == ["192.0.2.30"]
    assert "external-dns/owner=chart-test" in records[("a-web.example.org", "TXT")][0]
    assert forbidden_requests(kubeapi) == []


def test_narrowed_service_role_is_enough_for_load_balancers(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    _populate(kubeapi)
    proc, zone_file = _run_chart_args({"sources": ["service"], "serviceTypeFilter": ["LoadBalancer"]},
                                      kubeapi, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _records(zone_file)[("web.example.org", "A")] == ["192.0.2.10"]
    assert forbidden_requests(kubeapi) == []


def test_a_role_one_rule_short_fails(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    """The checks above have teeth: without the Ingress rule the same run fails with a 403."""
    _populate(kubeapi)
    full = find(render_chart({"sources": ["service", "ingress"]}), "ClusterRole")["rules"]
    short = [r for r in full if "ingresses" not in r["resources"]]
    assert len(short) == len(full) - 1
    proc, zone_file = _run_chart_args({"sources": ["service", "ingress"]}, kubeapi, tmp_path, rules=short)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert forbidden_requests(kubeapi)
    assert ("shop.example.org", "A") not in _records(zone_file)


def test_rendered_role_runs_the_dnsrecord_controller(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    """The long-running process with `sources: [dnsrecord]`: the DNSRecord is published, its finalizer and
    status written, and on deletion the record removed and the finalizer released, all without a 403."""
    zones = tmp_path / "zones"
    values = {"sources": ["dnsrecord"], "provider": {"name": "inmemory"}, "txtOwnerId": "chart-test",
              "policy": "sync",
              "extraArgs": ["--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org",
                            "--metrics-address=127.0.0.1:0", "--min-requeue-time=0.2s"]}
    objects = render_chart(values)
    bind_cluster_role(kubeapi, TOKEN, find(objects, "ClusterRole"))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    kubeapi.create({"apiVersion": "kuadrant.io/v1alpha1", "kind": "DNSRecord",
                    "metadata": {"name": "app", "namespace": "default"},
                    "spec": {"rootHost": "app.example.org", "endpoints": [
                        {"dnsName": "app.example.org", "recordType": "A", "targets": ["192.0.2.70"],
                         "recordTTL": 60}]}})
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k != "KUBECONFIG"}
    env["PYTHONPATH"] = str(ROOT)
    args = containers(objects)["external-dns"]["args"]
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args, f"--kubeconfig={kubeconfig}"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    zone_file = zones / "example.org.zone"

    def wait_for(check: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            if check():
                return True
            time.sleep(0.05)  # observing another process: nothing to wait on
        return False

    def ready() -> bool:
        obj = kubeapi.get("kuadrant.io/v1alpha1", "DNSRecord", "default", "app") or {}
        return any(c.get("type") == "Ready" and c.get("status") == "True"
                   for c in (obj.get("status") or {}).get("conditions") or [])

    try:
        assert wait_for(lambda: _records(zone_file).get(("app.example.org", "A")) == ["192.0.2.70"], 30)
        assert wait_for(ready, 30)
        obj = kubeapi.get("kuadrant.io/v1alpha1", "DNSRecord", "default", "app")
        assert obj is not None and obj["metadata"].get("finalizers")
        kubeapi.delete("kuadrant.io/v1alpha1", "DNSRecord", "default", "app")
        assert wait_for(lambda: kubeapi.get("kuadrant.io/v1alpha1", "DNSRecord", "default", "app") is None, 30)
        assert ("app.example.org", "A") not in _records(zone_file)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0, out
    assert forbidden_requests(kubeapi) == [], out


def test_namespaced_with_a_gateway_namespace_reads_its_gateways(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    """`namespaced` + `sourceNamespace: apps` + `gatewayNamespace: infra`: routes in apps, their Gateway in infra,
    read with only the rendered Roles (apps: routes; infra: gateways) and ClusterRole, no 403."""
    from tests.helpers.gateway import gateway, listener, route
    from tests.kubeapi.authz import bind_rendered_roles

    gw = gateway(namespace="infra", addresses=["192.0.2.50"],
                 listeners=[listener(hostname="*.example.org", allowedRoutes={"namespaces": {"from": "All"}})])
    echo = route(namespace="apps", hostnames=["echo.example.org"], parents=[{"name": "gw", "namespace": "infra"}])
    for ns in ("infra", "apps"):
        kubeapi.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for obj in (gw, echo):
        status = obj.pop("status")
        created = kubeapi.create(obj)
        created["status"] = status
        kubeapi.update_status(created)
    zones = tmp_path / "zones"
    values = {"namespaced": True, "sourceNamespace": "apps", "gatewayNamespace": "infra",
              "sources": ["gateway-httproute"], "provider": {"name": "inmemory"}, "txtOwnerId": "gw-ns",
              "extraArgs": ["--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org"]}
    objects = render_chart(values)
    assert {o["metadata"]["namespace"] for o in objects if o["kind"] == "Role"} == {"apps", "infra"}
    bind_rendered_roles(kubeapi, TOKEN, objects)
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=TOKEN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k != "KUBECONFIG"}
    env["PYTHONPATH"] = str(ROOT)
    args = containers(objects)["external-dns"]["args"]
    proc = subprocess.run([sys.executable, "-m", "external_dns", *args, "--once", f"--kubeconfig={kubeconfig}"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _records(zones / "example.org.zone")[("echo.example.org", "A")] == ["192.0.2.50"]
    assert forbidden_requests(kubeapi) == []
