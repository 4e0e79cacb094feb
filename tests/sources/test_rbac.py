"""The RBAC rules each source needs (sources/rbac.py) and `external-dns rbac`, which prints them as a ClusterRole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from external_dns.sources.rbac import (
    LISTENER_SET_RULES,
    SOURCE_RULES,
    rbac_document,
    rules_for_sources,
    service_informer_resources,
)

ROOT = Path(__file__).resolve().parents[2]


def test_rules_for_sources() -> None:
    rules = rules_for_sources(["service", "ingress", "crd"], leader_election=True)
    flat = {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    for resource in ("services", "pods", "nodes"):
        assert {("", resource, "list"), ("", resource, "watch")} <= flat
    assert ("discovery.k8s.io", "endpointslices", "watch") in flat
    assert ("networking.k8s.io", "ingresses", "list") in flat
    assert ("externaldns.k8s.io", "dnsendpoints/status", "update") in flat
    assert ("externaldns.k8s.io", "dnsendpoints", "update") not in flat
    assert {("", "events", "create"), ("", "events", "patch"), ("events.k8s.io", "events", "create")} <= flat
    assert {("coordination.k8s.io", "leases", v) for v in ("get", "create", "update")} <= flat
    # one rule per (group, verbs): core reads are merged
    assert {"apiGroups": [""], "resources": ["nodes", "pods", "services"], "verbs": ["get", "list", "watch"]} in rules


def test_service_type_filter_narrows_rules() -> None:
    assert service_informer_resources(["LoadBalancer"]) == ["services"]
    assert service_informer_resources(["ExternalName", "LoadBalancer"]) == ["services"]
    assert set(service_informer_resources(["NodePort"])) == {"services", "pods", "endpointslices", "nodes"}
    # as Go: Nodes for NodePort only (headless ClusterIP reads Pods and EndpointSlices)
    assert service_informer_resources(["ClusterIP", "LoadBalancer"]) == ["services", "pods", "endpointslices"]
    rules = rules_for_sources(["service"], service_types=["LoadBalancer"])
    resources = {r for rule in rules for r in rule["resources"]}
    assert resources == {"services", "events"}


def test_unknown_source_and_document() -> None:
    with pytest.raises(ValueError, match="no RBAC rules for source"):
        rules_for_sources(["gateway"])
    doc = rbac_document()
    assert set(doc) == {"clusterScopedResources", "always", "leaderElection", "gatewayListenerSets", "sources"}
    assert doc["gatewayListenerSets"] == [dict(r) for r in LISTENER_SET_RULES]  # --gateway-listener-sets (8ca0ee8)
    assert set(doc["sources"]) == set(SOURCE_RULES) and "nodes" in doc["clusterScopedResources"]


def test_rbac_cli_prints_yaml() -> None:
    out = subprocess.run([sys.executable, "-m", "external_dns", "rbac", "service", "ingress", "crd",
                          "--cluster-role", "external-dns"], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         check=True).stdout
    role = yaml.safe_load(out)
    assert role["kind"] == "ClusterRole" and role["metadata"]["name"] == "external-dns"
    assert role["rules"] == rules_for_sources(["service", "ingress", "crd"])
    bad = subprocess.run([sys.executable, "-m", "external_dns", "rbac", "nope"], capture_output=True,
                         text=True, cwd=ROOT, timeout=60, check=False)
    assert bad.returncode == 2 and "no RBAC rules for source(s) nope" in bad.stderr
