"""Least privilege, proven on the real server: the chart's rendered ServiceAccount, ClusterRole/Roles and
bindings applied as they are, the CLI run with that account's token from the TokenRequest API. For each
source set it syncs with no 403; with one rule taken out, start-up fails naming the missing rule; with
`namespaced: true` the namespace-scoped Roles alone are enough."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from tests.charts.render import containers, render_chart
from tests.helpers.gateway import gateway, listener, listener_set, ls_ref, route
from tests.realkube.cli import records, run_once, zone_args
from tests.realkube.control_plane import ControlPlane
from tests.realkube.helpers import HOSTNAME, service

pytestmark = [pytest.mark.integration, pytest.mark.realkube]

RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")


def release_name(ns: str) -> str:
    """Cluster-scoped names carry the release name: one per test."""
    return "r" + hashlib.sha256(ns.encode()).hexdigest()[:8]


def apply_rbac(plane: ControlPlane, objects: list[dict[str, Any]],
               edit: dict[str, list[dict[str, Any]]] | None = None) -> str:
    """Apply the rendered RBAC objects (with `edit`: kind -> replacement rules) and return a token for the
    rendered ServiceAccount."""
    account = None
    for obj in objects:
        if obj["kind"] not in RBAC_KINDS:
            continue
        if edit and obj["kind"] in edit:
            obj = {**obj, "rules": edit[obj["kind"]]}
        plane.apply(obj)
        if obj["kind"] == "ServiceAccount":
            account = obj["metadata"]
    assert account is not None, "the chart rendered no ServiceAccount"
    return plane.service_account_token(account["namespace"], account["name"])


def run_as_chart(plane: ControlPlane, tmp_path: Path, ns: str, values: dict[str, Any], zone: str,
                 edit: dict[str, list[dict[str, Any]]] | None = None) -> tuple[Any, Path, list[dict[str, Any]]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    objects = render_chart({**values, "provider": {"name": "inmemory"}}, name=release_name(ns), namespace=ns)
    token = apply_rbac(plane, objects, edit)
    kubeconfig = plane.write_kubeconfig(tmp_path / "kubeconfig", token=token)
    zones = tmp_path / "zones"
    args = containers(objects)["external-dns"]["args"]
    proc = run_once([*args, *zone_args(zones, zone), f"--kubeconfig={kubeconfig}"])
    return proc, zones / f"{zone}.zone", objects


def populate(plane: ControlPlane, ns: str, zone: str) -> None:
    """One object per source, each publishing `<kind>.<zone>`."""
    svc = service("web", ns, svc_type="LoadBalancer", annotations={HOSTNAME: f"svc.{zone}"})
    created = plane.create(svc)
    created["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}
    plane.update_status(created)
    ing = plane.create({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                        "metadata": {"name": "shop", "namespace": ns}, "spec": {"rules": [{"host": f"ing.{zone}"}]}})
    ing["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.20"}]}}
    plane.update_status(ing)
    plane.create({"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
                  "metadata": {"name": "rec", "namespace": ns},
                  "spec": {"endpoints": [{"dnsName": f"crd.{zone}", "recordType": "A", "targets": ["192.0.2.30"]}]}})
    gw = gateway(namespace=ns, addresses=["192.0.2.40"], listeners=[listener()])
    status = gw.pop("status")
    created = plane.create(gw)
    created["status"] = status
    plane.update_status(created)
    r = route(namespace=ns, hostnames=[f"gw.{zone}"])
    status = r.pop("status")
    created = plane.create(r)
    created["status"] = status
    plane.update_status(created)


def node_and_pod(plane: ControlPlane, ns: str, zone: str) -> None:
    node = plane.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n1.{zone}"}})
    node["status"] = {"addresses": [{"type": "ExternalIP", "address": "203.0.113.5"}]}
    plane.update_status(node)
    pod = plane.create({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "edge", "namespace": ns, "annotations": {HOSTNAME: f"pod.{zone}"}},
                        "spec": {"hostNetwork": True, "nodeName": f"n1.{zone}",
                                 "containers": [{"name": "c", "image": "i"}]}})
    pod["status"] = {"phase": "Running", "podIP": "10.1.0.5", "podIPs": [{"ip": "10.1.0.5"}]}
    plane.update_status(pod)


# source set -> (the records it publishes (name prefix, value), the resource whose rule is taken out)
SOURCE_SETS = {
    "service": ({"svc": "192.0.2.10"}, "services"),
    "ingress": ({"ing": "192.0.2.20"}, "ingresses"),
    "crd": ({"crd": "192.0.2.30"}, "dnsendpoints"),
    "gateway-httproute": ({"gw": "192.0.2.40"}, "httproutes"),
    "node": ({"n1": "203.0.113.5"}, "nodes"),
    "pod": ({"pod": "203.0.113.5"}, "pods"),
}


@pytest.mark.parametrize("source", list(SOURCE_SETS))
def test_rendered_rbac_is_enough_and_one_rule_less_fails(realkube: ControlPlane, realkube_namespace: str,
                                                         tmp_path: Path, source: str) -> None:
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    populate(realkube, ns, zone)
    node_and_pod(realkube, ns, zone)
    expected, resource = SOURCE_SETS[source]
    mark = realkube.audit_mark()
    proc, zone_file, objects = run_as_chart(realkube, tmp_path, ns, {"sources": [source], "txtOwnerId": ns}, zone)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = records(zone_file)
    for prefix, value in expected.items():
        assert got[(f"{prefix}.{zone}", "A")] == [value], got
    account = f"system:serviceaccount:{ns}:{next(o for o in objects if o['kind'] == 'ServiceAccount')['metadata']['name']}"
    refused = [e["requestURI"] for e in realkube.audit(mark)
               if e["user"]["username"] == account and e.get("responseStatus", {}).get("code") == 403]
    assert refused == []
    # the same run with the rule for `resource` taken out of the rendered ClusterRole: start-up fails, naming it
    role = next(o for o in objects if o["kind"] == "ClusterRole")
    short = [r for r in role["rules"] if resource not in r["resources"]]
    assert len(short) == len(role["rules"]) - 1
    proc, zone_file, _ = run_as_chart(realkube, tmp_path / "short", ns, {"sources": [source], "txtOwnerId": ns},
                                      f"short.{zone}", edit={"ClusterRole": short})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    said = (proc.stdout + proc.stderr).replace('\\"', '"')  # logfmt escapes the quotes
    assert "missing RBAC permission(s)" in said and f'resources: ["{resource}"]' in said, said


@pytest.mark.parametrize(("sources", "cluster_scoped"), [
    (["ingress", "crd"], set()),
    (["service", "ingress"], set()),  # as upstream's chart: the service source leaves NodePort out, reads no Nodes
    (["service", "gateway-httproute"], {"namespaces"}),
])
def test_namespaced_needs_only_namespace_scoped_rbac(realkube: ControlPlane, realkube_namespace: str,
                                                     tmp_path: Path, sources: list[str],
                                                     cluster_scoped: set[str]) -> None:
    """`namespaced: true`: everything namespaced is granted by a Role in the namespace; a ClusterRole holds only
    what has no namespace (namespaces for Gateway's allowedRoutes), if any."""
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    populate(realkube, ns, zone)
    proc, zone_file, objects = run_as_chart(realkube, tmp_path, ns, {"namespaced": True, "sources": sources,
                                                                     "txtOwnerId": ns}, zone)
    granted = {res for o in objects if o["kind"] == "ClusterRole" for r in o["rules"] for res in r["resources"]}
    assert granted == cluster_scoped
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = {"ingress": ("ing", "192.0.2.20"), "crd": ("crd", "192.0.2.30"), "service": ("svc", "192.0.2.10"),
                "gateway-httproute": ("gw", "192.0.2.40")}
    got = records(zone_file)
    for source in sources:
        name, value = expected[source]
        assert got.get((f"{name}.{zone}", "A")) == [value], (source, got)


@pytest.mark.parametrize("namespaced", [False, True])
def test_gateway_listener_sets_rbac_is_enough_and_needed(realkube: ControlPlane, realkube_namespace: str,
                                                         tmp_path: Path, namespaced: bool) -> None:
    """`enableGatewayListenerSets`: the route attached to a ListenerSet gets its record with the rendered RBAC
    alone (the ClusterRole reads ListenerSets in every namespace, namespaced or not); without that rule the
    start-up fails naming it."""
    ns = realkube_namespace
    zone = f"{ns}.example.org"
    ls = listener_set(namespace=ns, listeners=[listener("app", port=8080, hostname=f"*.{zone}")])
    for entry in ls["status"]["listeners"]:  # what the real CRD requires of a listener's status besides
        entry.update(attachedRoutes=1, supportedKinds=[{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}])
    for obj in (gateway(namespace=ns, addresses=["192.0.2.50"], allowed_listeners={"from": "Same"}), ls,
                route(namespace=ns, hostnames=[f"ls.{zone}"], parents=[ls_ref()])):
        status = obj.pop("status")
        created = realkube.create(obj)
        created["status"] = status
        realkube.update_status(created)
    values = {"sources": ["gateway-httproute"], "enableGatewayListenerSets": True, "namespaced": namespaced,
              "txtOwnerId": ns}
    mark = realkube.audit_mark()
    proc, zone_file, objects = run_as_chart(realkube, tmp_path, ns, values, zone)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert records(zone_file)[(f"ls.{zone}", "A")] == ["192.0.2.50"]
    account = f"system:serviceaccount:{ns}:{next(o for o in objects if o['kind'] == 'ServiceAccount')['metadata']['name']}"
    assert [e["requestURI"] for e in realkube.audit(mark) if e["user"]["username"] == account
            and e.get("responseStatus", {}).get("code") == 403] == []
    role = next(o for o in objects if o["kind"] == "ClusterRole")
    short = [r for r in role["rules"] if "listenersets" not in r["resources"]]
    assert len(short) == len(role["rules"]) - 1
    proc, _, _ = run_as_chart(realkube, tmp_path / "short", ns, values, f"short.{zone}", edit={"ClusterRole": short})
    assert proc.returncode != 0, proc.stdout + proc.stderr
    said = (proc.stdout + proc.stderr).replace('\\"', '"')
    assert "missing RBAC permission(s)" in said and 'resources: ["listenersets"]' in said, said
