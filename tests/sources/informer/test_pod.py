"""`--source=pod` through the real informers against the test API server (sources/informer/pod.py): the Pod and
Node caches shared with the Service source keep what each source reads."""

from __future__ import annotations

import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.pod import PodInformerSource
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.objects.pod import PodOptions
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, create_with_status, names

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("service_first", [True, False])
def test_pod_and_service_sources_share_pod_and_node_caches(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                          service_first: bool) -> None:
    create_with_status(kubeapi, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                 "status": {"addresses": [{"type": "ExternalIP", "address": "203.0.113.1"}]}})
    create_with_status(kubeapi, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "edge", "namespace": "default", "labels": {"app": "edge"},
                     "annotations": {PREFIX + "hostname": "edge.example.org",
                                     PREFIX + "internal-hostname": "edge.internal.example.org"}},
        "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "podIP": "10.1.0.5", "podIPs": [{"ip": "10.1.0.5"}]}})

    def build_pod() -> PodInformerSource:
        return PodInformerSource(factory, SourceOptions(), PodOptions(), sync_timeout=10.0)

    def build_service() -> ServiceInformerSource:
        return ServiceInformerSource(factory, SourceOptions(), sync_timeout=10.0)

    if service_first:
        build_service()
        pod_src = build_pod()
    else:
        pod_src = build_pod()
        build_service()
    assert names(pod_src.endpoints()) == {("edge.example.org", "A"): ["203.0.113.1"],
                                          ("edge.internal.example.org", "A"): ["10.1.0.5"]}
    cached = next(i for i in factory.informers() if i.resource.plural == "pods").get_store().list()[0]
    assert cached["metadata"]["labels"] == {"app": "edge"}  # the service source still reads labels
    assert "containers" not in cached["spec"]  # and the cache stays slim
