"""The source pipeline built from the flags (cmd/build_sources.py) against the test API server: Gateway, Node and Pod
sources on one lazily created informer factory, with the informers they need and the endpoints they read."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.cmd.build_sources import build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.cmd.main import _KubeClient
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.sources.informer.hooks import informer_sources
from tests.helpers.gateway import gateway, listener, route
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import create_with_status

pytestmark = pytest.mark.integration


def test_pipeline_from_flags(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    kubeapi.ensure_namespace("infra")
    create_with_status(kubeapi, gateway(addresses=["192.0.2.1"], namespace="infra",
                                        listeners=[listener(allowedRoutes={"namespaces": {"from": "All"}})]))
    kubeapi.ensure_namespace("apps")
    create_with_status(kubeapi, route(namespace="apps", hostnames=["echo.example.org"],
                                      parents=[{"name": "gw", "namespace": "infra"}]))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    _parser, cfg = load_config(["--source=gateway-httproute", "--source=node", "--source=pod", "--provider=inmemory",
                                "--policy=sync", f"--kubeconfig={kubeconfig}", "--gateway-namespace=infra"])
    kube = _KubeClient(cfg)
    factory = LazyInformerFactory(kube)
    try:
        pipeline = build_source_pipeline(cfg, {"kube_client": kube, "informer_factory": factory})
        assert sorted(s.name for s in informer_sources(pipeline)) == ["gateway-httproute", "node", "pod"]
        assert sorted(i.resource.plural for i in factory().informers()) == [
            "gateways", "httproutes", "namespaces", "nodes", "pods"]
        assert [(e.dns_name, list(e.targets)) for e in pipeline.endpoints()] == [("echo.example.org", ["192.0.2.1"])]
    finally:
        if factory.created:
            assert factory().shutdown(10.0)
        kube().close()
