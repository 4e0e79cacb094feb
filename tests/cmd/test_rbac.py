"""cmd/rbac.py: `external-dns rbac SOURCE...` prints the RBAC rules the named sources need, as YAML."""

from __future__ import annotations

import pytest
import yaml

from external_dns.cmd.main import main
from external_dns.sources.rbac import rules_for_sources


def test_prints_the_rules_of_the_named_sources(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rbac", "service", "ingress"]) == 0
    assert yaml.safe_load(capsys.readouterr().out) == rules_for_sources(["service", "ingress"])


def test_cluster_role_and_leader_election(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rbac", "crd", "--leader-election", "--cluster-role", "external-dns"]) == 0
    role = yaml.safe_load(capsys.readouterr().out)
    assert role["kind"] == "ClusterRole" and role["metadata"]["name"] == "external-dns"
    assert any("leases" in rule.get("resources", []) for rule in role["rules"])
    assert role["rules"] == rules_for_sources(["crd"], leader_election=True)


def test_an_unknown_source_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rbac", "nosuchsource"]) == 2
    assert "nosuchsource" in capsys.readouterr().err
