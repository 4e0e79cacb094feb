"""--gateway-listener-sets through the informers against the test API server: the ListenerSet informer (all
namespaces), its slimmed cache (parentRef, listeners, Accepted conditions, the target annotation), the
Gateway's allowedListeners kept in the Gateway cache, ListenerSet events reaching the route source, the access
check, and the RBAC rule `external-dns rbac --gateway-listener-sets` prints."""

from __future__ import annotations

import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.informers.resource import LISTENERSETS
from external_dns.sources.informer.gateway import GatewayRouteInformerSource
from external_dns.sources.objects.gateway import GatewayOptions
from external_dns.sources.options import SourceOptions
from external_dns.sources.rbac import rules_for_sources
from tests.helpers.gateway import API_VERSIONS, gateway, listener, listener_set, ls_ref, route
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import Waiter, create_with_status, names

pytestmark = pytest.mark.integration

LS = (API_VERSIONS["ListenerSet"], "ListenerSet")


def test_routes_on_listener_sets_follow_their_changes(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                      waiter: Waiter) -> None:
    kubeapi.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "edge"}})
    create_with_status(kubeapi, gateway(addresses=["192.0.2.1"], allowed_listeners={"from": "All"}))
    create_with_status(kubeapi, listener_set(namespace="edge", gateway_namespace="default", listeners=[
        listener("app", port=8080, hostname="*.example.org", allowedRoutes={"namespaces": {"from": "All"}})]))
    create_with_status(kubeapi, route(hostnames=["app.example.org"], parents=[ls_ref(namespace="edge")]))
    src = GatewayRouteInformerSource(factory, SourceOptions(), "gateway-httproute", GatewayOptions(listener_sets=True),
                                     sync_timeout=10.0)
    src.add_event_handler(waiter)
    assert {c.resource for c in src.access_checks()} >= {LISTENERSETS}
    assert names(src.endpoints()) == {("app.example.org", "A"): ["192.0.2.1"]}
    cached = src.listener_sets.get_store().get_by_key("edge/ls")  # type: ignore[union-attr]
    assert cached is not None and "managedFields" not in cached["metadata"]
    # the ListenerSet's own target annotation: an event on the set moves the record
    ls = kubeapi.get(*LS, "edge", "ls")
    assert ls is not None
    ls["metadata"]["annotations"] = {"external-dns.kubernetes.io/target": "192.0.2.9"}
    kubeapi.update(ls)
    assert waiter.until(lambda: names(src.endpoints()) == {("app.example.org", "A"): ["192.0.2.9"]})
    # the Gateway stops admitting ListenerSets: the record goes
    gw = kubeapi.get(API_VERSIONS["Gateway"], "Gateway", "default", "gw")
    assert gw is not None
    gw["spec"]["allowedListeners"] = {"namespaces": {"from": "Same"}}
    kubeapi.update(gw)
    assert waiter.until(lambda: src.endpoints() == [])


def test_without_the_flag_no_listener_set_informer(factory: SharedInformerFactory) -> None:
    src = GatewayRouteInformerSource(factory, SourceOptions(), "gateway-httproute", GatewayOptions(), sync_timeout=10.0)
    assert src.listener_sets is None and LISTENERSETS not in {c.resource for c in src.access_checks()}


def test_rbac_rule() -> None:
    with_sets = rules_for_sources(["gateway-httproute"], listener_sets=True)
    assert any("listenersets" in r["resources"] for r in with_sets)
    assert not any("listenersets" in r["resources"] for r in rules_for_sources(["gateway-httproute"]))
    assert not any("listenersets" in r["resources"] for r in rules_for_sources(["service"], listener_sets=True))
