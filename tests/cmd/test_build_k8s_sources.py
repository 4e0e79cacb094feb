"""The Kubernetes source builders (cmd/build_k8s_sources.py): registered by name, each needs a cluster, and the
source pipeline built from flags against the test API server (Services, DNSEndpoints, default targets and
target nets; the TLSRoute builder reading the version the server serves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.cmd.build import SOURCE_BUILDERS
from external_dns.cmd.build_k8s_sources import build_crd, build_ingress, build_service
from external_dns.cmd.build_sources import build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.main import _KubeClient
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.sources.informer.gateway import TLSROUTES, GatewayRouteInformerSource
from external_dns.sources.informer.hooks import informer_sources
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import dnsendpoint, lb_service


def test_builders_registered_and_need_a_cluster() -> None:
    assert SOURCE_BUILDERS["service"] == "external_dns.cmd.build_k8s_sources:build_service"
    assert SOURCE_BUILDERS["ingress"] == "external_dns.cmd.build_k8s_sources:build_ingress"
    assert SOURCE_BUILDERS["crd"] == "external_dns.cmd.build_k8s_sources:build_crd"
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync"])
    for build in (build_service, build_ingress, build_crd):
        with pytest.raises(ConfigError, match="needs a Kubernetes API connection"):
            build(cfg, {})


@pytest.mark.integration
def test_pipeline_from_flags(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    lb_service(kubeapi, "web", "web.example.org", "192.0.2.1")
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    _parser, cfg = load_config(["--source=service", "--source=ingress", "--source=crd", "--provider=inmemory",
                                "--policy=sync", f"--kubeconfig={kubeconfig}", "--service-type-filter=LoadBalancer",
                                "--min-ttl=60s"])
    kube = _KubeClient(cfg)
    factory = LazyInformerFactory(kube)
    try:
        pipeline = build_source_pipeline(cfg, {"kube_client": kube, "informer_factory": factory})
        assert sorted(s.name for s in informer_sources(pipeline)) == ["crd", "ingress", "service"]
        assert sorted(i.resource.plural for i in factory().informers()) == ["dnsendpoints", "ingresses", "services"]
        eps = pipeline.endpoints()
        assert [(e.dns_name, e.record_ttl, e.labels["resource"]) for e in eps] == [
            ("web.example.org", 60, "service/default/web")]
    finally:
        if factory.created:
            assert factory().shutdown(10.0)
        kube().close()


@pytest.mark.integration
def test_pipeline_default_targets_and_target_nets(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    lb_service(kubeapi, "web", "web.example.org", "192.0.2.1")
    lb_service(kubeapi, "api", "api.example.org", "198.51.100.1")
    kubeapi.create(dnsendpoint("empty", {"dnsName": "empty.example.org", "recordType": "A", "targets": []}))
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    _parser, cfg = load_config(["--source=service", "--source=crd", "--provider=inmemory", "--policy=sync",
                                f"--kubeconfig={kubeconfig}", "--default-targets=203.0.113.7",
                                "--exclude-target-net=198.51.100.0/24"])
    kube = _KubeClient(cfg)
    factory = LazyInformerFactory(kube)
    try:
        pipeline = build_source_pipeline(cfg, {"kube_client": kube, "informer_factory": factory})
        got = {e.dns_name: list(e.targets) for e in pipeline.endpoints()}
        assert got == {"web.example.org": ["192.0.2.1"], "empty.example.org": ["203.0.113.7"]}
    finally:
        if factory.created:
            assert factory().shutdown(10.0)
        kube().close()


@pytest.mark.integration
def test_tlsroute_builder_reads_the_served_version(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    _parser, cfg = load_config(["--source=gateway-tlsroute", "--provider=inmemory", "--policy=sync",
                                f"--kubeconfig={kubeconfig}"])
    kube = _KubeClient(cfg)
    factory = LazyInformerFactory(kube)
    try:
        pipeline = build_source_pipeline(cfg, {"kube_client": kube, "informer_factory": factory})
        (source,) = informer_sources(pipeline)
        assert isinstance(source, GatewayRouteInformerSource) and source.route_resource == TLSROUTES
        assert pipeline.endpoints() == []
    finally:
        if factory.created:
            assert factory().shutdown(10.0)
        kube().close()
