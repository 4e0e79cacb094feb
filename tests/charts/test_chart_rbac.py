"""One source of truth for RBAC: the (Cluster)Roles the chart renders grant exactly the permissions
`external_dns.sources.rbac.rules_for_sources()` declares for the enabled sources, no more, no less; the
chart's rules file and schema are generated from the code (tests.charts.rbac_sync)."""

from __future__ import annotations

import json
import shutil
from itertools import combinations
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from external_dns.sources.rbac import CLUSTER_SCOPED_RESOURCES, rbac_document, rules_for_sources
from tests.charts import rbac_sync
from tests.charts.render import (
    CHART_DIR,
    VALUE_FILES,
    find,
    find_all,
    iter_rules,
    load_values,
    permissions,
    render_chart,
)

SOURCES = sorted(rbac_document()["sources"])
SOURCE_SETS = [list(c) for n in (1, 2, len(SOURCES)) for c in combinations(SOURCES, n)]
SUBJECT = [{"kind": "ServiceAccount", "name": "edns-external-dns-py", "namespace": "dns"}]
SYNC_HINT = "out of date: run `.venv/bin/python -m tests.charts.rbac_sync --write`"


def test_rules_file_is_generated_from_the_code() -> None:
    assert rbac_sync.RULES_FILE.read_text() == rbac_sync.rules_file_text(), SYNC_HINT
    assert yaml.safe_load(rbac_sync.RULES_FILE.read_text()) == rbac_document()


def test_schema_sources_are_the_sources_with_rules() -> None:
    schema = json.loads(rbac_sync.SCHEMA_FILE.read_text())
    assert schema["properties"]["sources"]["items"]["enum"] == SOURCES, SYNC_HINT
    assert rbac_sync.main([]) == 0


@pytest.mark.parametrize("sources", SOURCE_SETS, ids=lambda s: "+".join(s))
def test_cluster_role_equals_the_code(sources: list[str]) -> None:
    objects = render_chart({"sources": sources, "extraArgs": (
        ["--manifest-dir=/m"] if "manifest" in sources else [])})
    role = find(objects, "ClusterRole")
    assert permissions(role["rules"]) == permissions(rules_for_sources(sources))
    # No rule rendered twice.
    assert len({json.dumps(r, sort_keys=True) for r in role["rules"]}) == len(role["rules"])
    binding = find(objects, "ClusterRoleBinding")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": role["metadata"]["name"]}
    assert binding["subjects"] == SUBJECT
    assert not find_all(objects, "Role")


@pytest.mark.parametrize("values_file", [None, *VALUE_FILES])
def test_value_files_grant_what_the_code_declares(values_file: str | None) -> None:
    values = load_values(values_file)
    objects = render_chart(values)
    sources = values.get("sources", ["service", "ingress"])
    leader = bool(values.get("leaderElection", {}).get("enabled"))
    args = find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    types = [a.split("=", 1)[1] for a in args if a.startswith("--service-type-filter=")]
    granted = permissions(list(iter_rules(objects, "ClusterRole", "Role")))
    assert granted == permissions(rules_for_sources(sources, service_types=types, leader_election=leader))


def test_leader_election_lease_rule_is_namespaced() -> None:
    """With leader election the code's Lease rule is granted, but only in the release namespace (a Role),
    since the Lease lives there (--leader-elect-namespace is the release namespace)."""
    objects = render_chart({"replicaCount": 3, "leaderElection": {"enabled": True}})
    cluster = permissions(find(objects, "ClusterRole")["rules"])
    lease_role = find(objects, "Role")
    assert lease_role["metadata"]["namespace"] == "dns"
    lease = permissions(lease_role["rules"])
    assert not any(resource == "leases" for _group, resource, _verb in cluster)
    assert cluster | lease == permissions(rules_for_sources(["service", "ingress"], leader_election=True))
    assert lease == permissions(rules_for_sources([], leader_election=True)) - permissions(rules_for_sources([]))


def test_namespaced_default_sources_create_nothing_cluster_scoped() -> None:
    """As upstream's chart: `namespaced` with the service source gives a Role only; the service source is told
    to leave NodePort Services out (--service-type-filter), so it watches no Nodes."""
    objects = render_chart({"namespaced": True, "sources": ["service", "ingress", "crd"]})
    assert not find_all(objects, "ClusterRole") and not find_all(objects, "ClusterRoleBinding")
    role = find(objects, "Role")
    assert role["metadata"]["namespace"] == "dns"
    binding = find(objects, "RoleBinding")
    assert binding["roleRef"]["kind"] == "Role" and binding["subjects"] == SUBJECT
    args = find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--namespace=dns" in args
    types = [a.split("=", 1)[1] for a in args if a.startswith("--service-type-filter=")]
    assert types == ["ClusterIP", "LoadBalancer", "ExternalName"]
    assert permissions(role["rules"]) == permissions(
        rules_for_sources(["service", "ingress", "crd"], service_types=types))


def test_namespaced_keeps_only_cluster_scoped_reads_cluster_wide_when_a_source_needs_them() -> None:
    objects = render_chart({"namespaced": True, "sources": ["service", "crd"], "serviceTypeFilter": ["NodePort"]})
    cluster = permissions(find(objects, "ClusterRole")["rules"])
    assert cluster and all(resource in CLUSTER_SCOPED_RESOURCES for _g, resource, _v in cluster)
    namespaced = permissions(find(objects, "Role")["rules"])
    assert not any(resource in CLUSTER_SCOPED_RESOURCES for _g, resource, _v in namespaced)
    assert cluster | namespaced == permissions(rules_for_sources(["service", "crd"], service_types=["NodePort"]))


def test_namespaced_without_cluster_scoped_needs_no_cluster_role() -> None:
    objects = render_chart({"namespaced": True, "sources": ["ingress", "crd"]})
    assert not find_all(objects, "ClusterRole") and not find_all(objects, "ClusterRoleBinding")
    assert permissions(find(objects, "Role")["rules"]) == permissions(rules_for_sources(["ingress", "crd"]))


def test_additional_permissions_and_rbac_off() -> None:
    extra: list[dict[str, Any]] = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]
    objects = render_chart({"rbac": {"additionalPermissions": extra}})
    assert ("", "secrets", "get") in permissions(find(objects, "ClusterRole")["rules"])
    off = render_chart({"rbac": {"create": False}, "leaderElection": {"enabled": True}})
    assert not [o for o in off if o["kind"] in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")]


def test_a_source_without_rules_is_refused(tmp_path: Path) -> None:
    """Even with the schema removed, the template refuses a source the code declares no rules for."""
    chart_dir = tmp_path / "external-dns-py"
    shutil.copytree(CHART_DIR, chart_dir, ignore=shutil.ignore_patterns("crds"))
    (chart_dir / "values.schema.json").unlink()
    with helm.Chart.load(chart_dir) as chart, pytest.raises(helm.HelmRenderError, match="has no RBAC rules"):
        chart.render({"sources": ["service", "nosuchsource"]}, name="edns", namespace="dns")


SERVICE_TYPE_SETS = [[], ["LoadBalancer"], ["ExternalName", "LoadBalancer"], ["NodePort"], ["ClusterIP"],
                     ["LoadBalancer", "NodePort"]]


@pytest.mark.parametrize("types", SERVICE_TYPE_SETS, ids=lambda t: "+".join(t) or "all")
def test_service_type_filter_narrows_rbac_as_the_code(types: list[str]) -> None:
    objects = render_chart({"sources": ["service", "ingress"], "serviceTypeFilter": types})
    role = find(objects, "ClusterRole")
    assert permissions(role["rules"]) == permissions(rules_for_sources(["service", "ingress"], service_types=types))
    args = find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert [a for a in args if a.startswith("--service-type-filter=")] == \
        [f"--service-type-filter={t}" for t in types]


def test_load_balancer_only_needs_no_pods_or_nodes() -> None:
    role = find(render_chart({"sources": ["service"], "serviceTypeFilter": ["LoadBalancer"]}), "ClusterRole")
    resources = {resource for _g, resource, _v in permissions(role["rules"])}
    assert "services" in resources
    assert not resources & {"pods", "nodes", "endpointslices"}


def test_schema_service_types_are_the_codes() -> None:
    from external_dns.sources.options import SERVICE_TYPES

    schema = json.loads(rbac_sync.SCHEMA_FILE.read_text())
    assert schema["properties"]["serviceTypeFilter"]["items"]["enum"] == list(SERVICE_TYPES)


def test_every_chart_source_can_be_built_by_the_cli() -> None:
    from external_dns.cmd.build import SOURCE_BUILDERS

    schema = json.loads(rbac_sync.SCHEMA_FILE.read_text())
    missing = set(schema["properties"]["sources"]["items"]["enum"]) - set(SOURCE_BUILDERS)
    assert not missing, f"the chart offers sources the program cannot build: {sorted(missing)}"
