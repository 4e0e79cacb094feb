"""The manifest source reads Gateway API routes, their Gateways and Namespaces from files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from external_dns.cmd.build_sources import build_manifest
from external_dns.cmd.config import load_config
from external_dns.errors import ConfigError
from external_dns.sources.manifest import ManifestSource
from external_dns.sources.objects.gateway import GatewayOptions
from tests.helpers.gateway import gateway, listener, route


def test_routes_against_gateways_in_the_files(tmp_path: Path) -> None:
    docs = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps", "labels": {"expose": "yes"}}},
        gateway(namespace="infra", addresses=["192.0.2.1"], listeners=[listener(
            hostname="*.example.org", allowedRoutes={"namespaces": {"from": "Selector",
                                                                    "selector": {"matchLabels": {"expose": "yes"}}}})]),
        route(namespace="apps", hostnames=["web.example.org"], parents=[{"name": "gw", "namespace": "infra"}]),
        route("TCPRoute", name="db", namespace="infra", annotations={"external-dns.kubernetes.io/hostname":
                                                                      "db.example.org"}),
        route(name="orphan", namespace="apps", hostnames=["orphan.example.org"], parents=[{"name": "gone"}]),
    ]
    docs[1]["spec"]["listeners"].append(listener("tcp", "TCP", 5432))
    (tmp_path / "gw.yaml").write_text(yaml.safe_dump_all(docs))
    src = ManifestSource(tmp_path)
    got = {(e.dns_name, e.record_type): list(e.targets) for e in src.endpoints()}
    assert got == {("web.example.org", "A"): ["192.0.2.1"], ("db.example.org", "A"): ["192.0.2.1"]}
    assert [p.field for p in src.problems] == ["spec.parentRefs[0].name"]
    assert ManifestSource(tmp_path, gateway_options=GatewayOptions(gateway_name="other")).endpoints() == []


def test_gateway_flags_apply_to_the_manifest_source(tmp_path: Path) -> None:
    """`--gateway-name`, `--gateway-namespace` and `--gateway-label-filter` reach the manifest source."""
    docs = [gateway(name="public", namespace="infra", addresses=["192.0.2.1"], labels={"tier": "edge"}),
            gateway(name="private", namespace="infra", addresses=["192.0.2.2"]),
            route(name="a", namespace="infra", hostnames=["a.example.org"], parents=[{"name": "public", "namespace": "infra"}]),
            route(name="b", namespace="infra", hostnames=["b.example.org"], parents=[{"name": "private", "namespace": "infra"}])]
    (tmp_path / "gw.yaml").write_text(yaml.safe_dump_all(docs))
    base = ["--source=manifest", f"--manifest-dir={tmp_path}", "--provider=inmemory", "--policy=sync"]

    def names(*extra: str) -> set[str]:
        _, cfg = load_config([*base, *extra], environ={})
        return {e.dns_name for e in build_manifest(cfg).endpoints()}

    assert names() == {"a.example.org", "b.example.org"}
    assert names("--gateway-name=private") == {"b.example.org"}
    assert names("--gateway-label-filter=tier=edge") == {"a.example.org"}
    assert names("--gateway-namespace=other") == set()
    with pytest.raises(ConfigError, match="--gateway-label-filter"):
        names("--gateway-label-filter=a in (b")
