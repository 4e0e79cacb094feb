"""`--source=ingress` through the real informers against the test API server (sources/informer/ingress.py)."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.ingress import IngressInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, ingress, names

pytestmark = pytest.mark.integration

ING = ("networking.k8s.io/v1", "Ingress")


def ingress_source(factory: SharedInformerFactory, waiter: Waiter | None = None, **opts: Any) -> IngressInformerSource:
    src = IngressInformerSource(factory, SourceOptions(**opts), sync_timeout=10.0)
    if waiter is not None:
        src.add_event_handler(waiter)
    return src


def make_ingress(server: KubeAPIServer, obj: dict[str, Any], *lb: dict[str, str]) -> None:
    created = server.create(obj)
    created["status"] = {"loadBalancer": {"ingress": list(lb)}}
    server.update_status(created)


def test_ingress_create_update_delete(kubeapi: KubeAPIServer, factory: SharedInformerFactory, waiter: Waiter) -> None:
    src = ingress_source(factory, waiter)
    assert src.endpoints() == []
    make_ingress(kubeapi, ingress("web", hosts=["a.example.org"], tls_hosts=["b.example.org"]), {"ip": "1.2.3.4"})
    assert waiter.until(lambda: names(src.endpoints()) == {("a.example.org", "A"): ["1.2.3.4"],
                                                          ("b.example.org", "A"): ["1.2.3.4"]})
    assert {e.labels["resource"] for e in src.endpoints()} == {"ingress/default/web"}
    kubeapi.patch(*ING, "default", "web", {"spec": {"rules": [{"host": "c.example.org"}]}})
    assert waiter.until(lambda: names(src.endpoints()) == {("c.example.org", "A"): ["1.2.3.4"],
                                                          ("b.example.org", "A"): ["1.2.3.4"]})
    kubeapi.delete(*ING, "default", "web")
    assert waiter.until(lambda: src.endpoints() == [])


def test_ingress_rules_tls_and_hostname_source(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    make_ingress(kubeapi, ingress("web", hosts=["a.example.org"], tls_hosts=["b.example.org"],
                                  annotations={PREFIX + "hostname": "c.example.org"}), {"hostname": "lb.example.net"})
    make_ingress(kubeapi, ingress("only", hosts=["d.example.org"],
                                  annotations={PREFIX + "hostname": "e.example.org",
                                               PREFIX + "ingress-hostname-source": "annotation-only"}),
                 {"ip": "1.1.1.1"})
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({}, {"a.example.org", "b.example.org", "c.example.org", "e.example.org"}),
        ({"ignore_ingress_tls_spec": True}, {"a.example.org", "c.example.org", "e.example.org"}),
        ({"ignore_ingress_rules_spec": True}, {"b.example.org", "c.example.org", "e.example.org"}),
    ]
    for opts, want in cases:
        factory = SharedInformerFactory(kube_api_client)
        try:
            assert {e.dns_name for e in ingress_source(factory, **opts).endpoints()} == want, opts
        finally:
            assert factory.shutdown(10.0)


def test_ingress_class_selection(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    make_ingress(kubeapi, ingress("spec", hosts=["spec.example.org"], class_name="nginx"), {"ip": "1.1.1.1"})
    make_ingress(kubeapi, ingress("legacy", hosts=["legacy.example.org"],
                                  annotations={"kubernetes.io/ingress.class": "nginx"}), {"ip": "1.1.1.2"})
    make_ingress(kubeapi, ingress("other", hosts=["other.example.org"], class_name="traefik",
                                  annotations={"kubernetes.io/ingress.class": "nginx"}), {"ip": "1.1.1.3"})
    make_ingress(kubeapi, ingress("none", hosts=["none.example.org"]), {"ip": "1.1.1.4"})
    got = ingress_source(factory, ingress_class_names=["nginx"]).endpoints()
    assert sorted(e.dns_name for e in got) == ["legacy.example.org", "spec.example.org"]
    cached = {o["metadata"]["name"]: o for o in factory.informers()[0].get_store().list()}
    assert cached["legacy"]["metadata"]["annotations"] == {"kubernetes.io/ingress.class": "nginx"}


def test_ingress_bad_host_skips_only_that_host(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    make_ingress(kubeapi, ingress("web", hosts=["ok.example.org"],
                                  annotations={PREFIX + "hostname": f"{'y' * 64}.example.org"}), {"ip": "1.1.1.1"})
    src = ingress_source(factory)
    assert [e.dns_name for e in src.endpoints()] == ["ok.example.org"]
    assert [(p.ref, p.field) for p in src.problems] == [("ingress/default/web", PREFIX + "hostname")]
