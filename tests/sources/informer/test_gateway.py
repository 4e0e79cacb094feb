"""`--source=gateway-*route` through the real informers against the test API server (sources/informer/gateway.py):
events, route kinds and gateway filters, problems reported once per object version as Warning Events, the RBAC
probe naming a missing Gateway rule, gateways filtered by labels, routes selected by namespace and labels."""

from __future__ import annotations

from typing import Any

import kubernetes.client
import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.base import MissingPermissionError, check_access
from external_dns.sources.informer.gateway import GatewayRouteInformerSource
from external_dns.sources.objects.gateway import GatewayOptions
from external_dns.sources.options import SourceOptions
from external_dns.sources.rbac import rules_for_sources
from tests.helpers.gateway import API_VERSIONS, gateway, listener, route
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, create_with_status, names

pytestmark = pytest.mark.integration

GW = (API_VERSIONS["Gateway"], "Gateway")
HTTP = (API_VERSIONS["HTTPRoute"], "HTTPRoute")


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
        self.events.append((obj["kind"], obj["metadata"]["name"], type, note))
        return True


def http_source(factory: SharedInformerFactory, waiter: Waiter | None = None, gw: GatewayOptions | None = None,
                **opts: Any) -> GatewayRouteInformerSource:
    src = GatewayRouteInformerSource(factory, SourceOptions(**opts), "gateway-httproute", gw, sync_timeout=10.0)
    if waiter is not None:
        src.add_event_handler(waiter)
    return src


def test_httproute_create_gateway_change_delete(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                waiter: Waiter) -> None:
    src = http_source(factory, waiter)
    assert src.endpoints() == []
    create_with_status(kubeapi, gateway(addresses=["192.0.2.1"],
                                        listeners=[listener(hostname="*.example.org")]))
    create_with_status(kubeapi, route(hostnames=["echo.example.org", "echo.example.net"]))
    assert waiter.until(lambda: names(src.endpoints()) == {("echo.example.org", "A"): ["192.0.2.1"]})
    assert {e.labels["resource"] for e in src.endpoints()} == {"httproute/default/echo"}
    # the Gateway gets a new address: the route's record follows (Gateway events reach the source)
    gw = kubeapi.get(*GW, "default", "gw")
    assert gw is not None
    gw["status"] = {"addresses": [{"type": "IPAddress", "value": "192.0.2.2"}]}
    kubeapi.update_status(gw)
    assert waiter.until(lambda: names(src.endpoints()) == {("echo.example.org", "A"): ["192.0.2.2"]})
    kubeapi.delete(*HTTP, "default", "echo")
    assert waiter.until(lambda: src.endpoints() == [])


def test_all_route_kinds_and_gateway_filters(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    create_with_status(kubeapi, gateway("public", addresses=["192.0.2.1"], labels={"scope": "public"}, listeners=[
        listener("http", "HTTP", 80), listener("grpc", "HTTPS", 443), listener("tls", "TLS", 8443),
        listener("tcp", "TCP", 5432), listener("udp", "UDP", 53)]))
    create_with_status(kubeapi, gateway("private", addresses=["10.0.0.1"], labels={"scope": "private"}))
    parents = [{"name": "public"}, {"name": "private"}]
    for kind in ("HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"):
        create_with_status(kubeapi, route(kind, name=kind.lower(), parents=parents,
                                          annotations={PREFIX + "hostname": f"{kind.lower()}.example.org"}))
    gw = GatewayOptions(gateway_label_filter="scope=public")
    sources = {name: GatewayRouteInformerSource(factory, SourceOptions(), name, gw, sync_timeout=10.0)
               for name in ("gateway-httproute", "gateway-grpcroute", "gateway-tlsroute", "gateway-tcproute",
                            "gateway-udproute")}
    got = {name: names(src.endpoints()) for name, src in sources.items()}
    assert got == {f"gateway-{k}": {(f"{k}.example.org", "A"): ["192.0.2.1"]}
                   for k in ("httproute", "grpcroute", "tlsroute", "tcproute", "udproute")}
    # one Gateway informer (server-side label selector), shared by the five sources
    gateways = [i for i in factory.informers() if i.resource.plural == "gateways"]
    assert len(gateways) == 1 and len(gateways[0].get_store().list()) == 1


def test_problems_reported_once_per_object_version(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                   waiter: Waiter) -> None:
    create_with_status(kubeapi, gateway(addresses=["192.0.2.1"]))
    create_with_status(kubeapi, gateway("bare"))
    create_with_status(kubeapi, route(name="good", hostnames=["good.example.org"]))
    create_with_status(kubeapi, route(name="orphan", hostnames=["orphan.example.org"],
                                      parents=[{"name": "missing"}]))
    create_with_status(kubeapi, route(name="nohost", parents=[{"name": "gw"}]))
    create_with_status(kubeapi, route(name="onbare", hostnames=["bare.example.org"], parents=[{"name": "bare"}]))
    src = http_source(factory, waiter)
    recorder = FakeRecorder()
    src.recorder = recorder
    assert names(src.endpoints()) == {("good.example.org", "A"): ["192.0.2.1"]}
    src.endpoints()
    notes = sorted((kind, name, note.split(": ")[2]) for kind, name, _, note in recorder.events)
    assert notes == [("Gateway", "bare", "status.addresses"), ("HTTPRoute", "nohost", "spec.hostnames"),
                     ("HTTPRoute", "orphan", "spec.parentRefs[0].name='missing'")]
    assert all(t == "Warning" for _, _, t, _ in recorder.events)
    # a new version of the orphan route is reported again; the others are not
    kubeapi.patch(*HTTP, "default", "orphan", {"metadata": {"labels": {"v": "2"}}})
    assert waiter.until(lambda: (src.endpoints(), len(recorder.events))[1] == 4)
    assert recorder.events[-1][1] == "orphan"


def test_rbac_probe_names_missing_gateway_rule(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    src = http_source(factory)
    rules = [r for r in rules_for_sources(["gateway-httproute"]) if "gateways" not in r["resources"]]
    rules.append({"apiGroups": ["gateway.networking.k8s.io"], "resources": ["httproutes"],
                  "verbs": ["get", "list", "watch"]})
    kubeapi.add_token("short", rules)
    kubeapi.add_token("full", rules_for_sources(["gateway-httproute"]))
    for token in ("full", "short"):
        api = kubernetes.client.ApiClient(kubeapi.configuration(token=token))
        try:
            if token == "full":
                check_access(api, src.access_checks(), src.name)
                continue
            with pytest.raises(MissingPermissionError) as err:
                check_access(api, src.access_checks(), src.name)
        finally:
            api.close()
    assert ('list, watch gateways (API group "gateway.networking.k8s.io") cluster-wide: the ClusterRole needs the '
            'rule {apiGroups: ["gateway.networking.k8s.io"], resources: ["gateways"], verbs: ["list", "watch"]}'
            ) in str(err.value)


def test_gateway_filtered_by_labels_is_not_reported_missing(kubeapi: KubeAPIServer,
                                                            factory: SharedInformerFactory) -> None:
    create_with_status(kubeapi, gateway("private", addresses=["10.0.0.1"], labels={"scope": "private"}))
    create_with_status(kubeapi, route(hostnames=["a.example.org"], parents=[{"name": "private"}]))
    src = http_source(factory, gw=GatewayOptions(gateway_label_filter="scope=public"))
    assert src.endpoints() == [] and src.problems == []


def test_route_namespace_and_label_filters_gateways_elsewhere(kubeapi: KubeAPIServer,
                                                              factory: SharedInformerFactory, waiter: Waiter) -> None:
    """`--namespace` and `--label-filter` select routes (the route informer watches one namespace) while their
    Gateways live in another namespace, which the Gateway informer still sees; a route relabelled into the filter
    is published through its watch event."""
    for ns in ("infra", "apps", "other"):
        kubeapi.ensure_namespace(ns)
    create_with_status(kubeapi, gateway(namespace="infra", addresses=["192.0.2.1"], listeners=[
        listener(hostname="*.example.org", allowedRoutes={"namespaces": {"from": "All"}})]))
    parent = [{"name": "gw", "namespace": "infra"}]
    create_with_status(kubeapi, route(name="web", namespace="apps", hostnames=["web.example.org"], parents=parent,
                                      labels={"team": "web"}))
    create_with_status(kubeapi, route(name="db", namespace="apps", hostnames=["db.example.org"], parents=parent,
                                      labels={"team": "db"}))
    create_with_status(kubeapi, route(name="web", namespace="other", hostnames=["other.example.org"],
                                      parents=parent, labels={"team": "web"}))
    src = http_source(factory, waiter, namespace="apps", label_filter="team=web")
    assert names(src.endpoints()) == {("web.example.org", "A"): ["192.0.2.1"]}
    routes = next(i for i in factory.informers() if i.resource.plural == "httproutes")
    assert {o["metadata"]["namespace"] for o in routes.get_store().list()} == {"apps"}
    kubeapi.patch(*HTTP, "apps", "db", {"metadata": {"labels": {"team": "web"}}})
    assert waiter.until(lambda: names(src.endpoints()) == {("web.example.org", "A"): ["192.0.2.1"],
                                                          ("db.example.org", "A"): ["192.0.2.1"]})
