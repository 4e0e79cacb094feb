"""The Kubernetes source builders (cmd/build_k8s_sources.py): registered by name, and each needs a cluster."""

from __future__ import annotations

import pytest

from external_dns.cmd.build import SOURCE_BUILDERS
from external_dns.cmd.build_k8s_sources import build_crd, build_ingress, build_service
from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError


def test_builders_registered_and_need_a_cluster() -> None:
    assert SOURCE_BUILDERS["service"] == "external_dns.cmd.build_k8s_sources:build_service"
    assert SOURCE_BUILDERS["ingress"] == "external_dns.cmd.build_k8s_sources:build_ingress"
    assert SOURCE_BUILDERS["crd"] == "external_dns.cmd.build_k8s_sources:build_crd"
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync"])
    for build in (build_service, build_ingress, build_crd):
        with pytest.raises(ConfigError, match="needs a Kubernetes API connection"):
            build(cfg, {})
