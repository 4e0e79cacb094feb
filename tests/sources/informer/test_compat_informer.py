"""`--compatibility` through the informer caches: their slimming keeps the legacy annotations, the molecule
label and the nodes' role label the modes read (sources/compat.py)."""

from __future__ import annotations

import kubernetes.client
import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.compat import KOPS_INTERNAL, KOPS_NODE_ROLE
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import names, service, set_lb_status

pytestmark = pytest.mark.integration


def test_informer_caches_keep_what_the_modes_read(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                  kube_api_client: kubernetes.client.ApiClient) -> None:
    kubeapi.create(service("mol", annotations={"domainName": "mol.example.org"}, labels={"dns": "route53"}))
    set_lb_status(kubeapi, "mol", {"ip": "192.0.2.7"})
    kubeapi.create(service("np", svc_type="NodePort", annotations={KOPS_INTERNAL: "np.example.org"},
                                    spec={"ports": [{"port": 80, "nodePort": 30080}]}))
    kubeapi.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {KOPS_NODE_ROLE: ""}}})
    n1 = kubeapi.get("v1", "Node", "", "n1")
    assert n1 is not None
    n1["status"] = {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}
    kubeapi.update_status(n1)
    molecule = ServiceInformerSource(factory, SourceOptions(compatibility="molecule"), sync_timeout=10.0)
    assert names(molecule.endpoints()) == {("mol.example.org", "A"): ["192.0.2.7"]}
    kops = ServiceInformerSource(SharedInformerFactory(kube_api_client),
                                 SourceOptions(compatibility="kops-dns-controller"), sync_timeout=10.0)
    try:
        assert names(kops.endpoints()) == {("np.example.org", "A"): ["10.0.0.1"]}
    finally:
        assert kops.factory.shutdown(5.0)
