"""Integration: SharedInformerFactory sharing, start/sync/shutdown, per-handler sync."""

from __future__ import annotations

import threading
import time

import kubernetes
import pytest

from external_dns.informers import (
    DNSENDPOINTS,
    INGRESSES,
    SERVICES,
    ResourceEventHandlerFuncs,
    SharedInformerFactory,
)
from tests.informers.helpers import ModelHandler, service, wait_until
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def test_one_informer_per_resource_namespace_and_selector(kube_api_client: kubernetes.client.ApiClient) -> None:
    factory = SharedInformerFactory(kube_api_client, namespace="team")
    a = factory.informer_for(SERVICES)
    assert factory.informer_for(SERVICES, namespace="team") is a
    assert factory.informer_for(SERVICES, namespace="other") is not a
    assert factory.informer_for(SERVICES, label_selector="x=y") is not a
    assert factory.informer_for(SERVICES, field_selector="metadata.name=z") is not a
    assert a.namespace == "team"
    assert len(factory.informers()) == 4
    assert factory.shutdown(5)  # never started: nothing to join


def test_start_sync_handlers_and_shutdown(kubeapi: KubeAPIServer, kube_api_client: kubernetes.client.ApiClient) -> None:
    kubeapi.create(service("a"))
    kubeapi.create({"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
                    "metadata": {"name": "e", "namespace": "default"},
                    "spec": {"endpoints": [{"dnsName": "e.example", "recordType": "A", "targets": ["1.2.3.4"]}]}})
    factory = SharedInformerFactory(kube_api_client)
    services, endpoints = ModelHandler(), ModelHandler()
    reg_s = factory.informer_for(SERVICES).add_event_handler(services)
    reg_e = factory.informer_for(DNSENDPOINTS).add_event_handler(endpoints)
    factory.start()
    assert factory.wait_for_cache_sync(10, registrations=[reg_s, reg_e])
    assert reg_s.has_synced() and reg_e.has_synced()
    assert sorted(services.model) == ["default/a"] and sorted(endpoints.model) == ["default/e"]
    assert factory.wait_for_cache_sync_each(5) == {"services": True, "dnsendpoints.externaldns.k8s.io": True}
    # an informer requested after start starts on the next start()
    ingresses = factory.informer_for(INGRESSES)
    factory.start()
    assert ingresses.wait_for_cache_sync(10)
    assert wait_until(lambda: kubeapi.open_watch_count == 3, 5)
    t0 = time.monotonic()
    assert factory.shutdown(5)
    assert time.monotonic() - t0 < 5
    assert not [t for t in threading.enumerate() if t.name.startswith("informer-")]
    factory.start()  # nothing after shutdown
    assert not [t for t in threading.enumerate() if t.name.startswith("informer-")]
    assert not factory.wait_for_cache_sync(0.1)


def test_wait_for_cache_sync_times_out_when_unreachable() -> None:
    from tests.informers.conftest import UnreachableApi

    factory = SharedInformerFactory(UnreachableApi())
    informer = factory.informer_for(SERVICES)
    reg = informer.add_event_handler(ResourceEventHandlerFuncs())
    factory.start()
    t0 = time.monotonic()
    assert not factory.wait_for_cache_sync(0.5, registrations=[reg])
    assert time.monotonic() - t0 < 2
    assert factory.shutdown(5)
