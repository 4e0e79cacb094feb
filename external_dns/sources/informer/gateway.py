"""`--source=gateway-httproute` (and -grpcroute, -tlsroute, -tcproute, -udproute) on the shared informers:
`GatewayRouteInformerSource(factory, options, kind, gateway_options)`.

Informers: the route kind (at the version the builder found served, see ROUTE_VERSIONS; namespace
`--namespace` or all; admitted by the `withSelectors` index:
namespace, label/annotation filters, controller annotation), Gateways (namespace `--gateway-namespace` or
all, label selector `--gateway-label-filter` applied by the API server, as external-dns), and Namespaces
(their labels, for listeners whose `allowedRoutes.namespaces.from` is `Selector`). Every object is slimmed
(sources/informer/slim.py: routes keep hostnames, parentRefs and the Accepted condition of each parent;
Gateways their listeners and addresses). With --gateway-listener-sets, ListenerSets too (all namespaces:
a Gateway may admit ListenerSets of others). All five route sources share the Gateway, Namespace and
ListenerSet informers. Events: route changes, Gateway changes (a new address or listener changes the records
of its routes), Namespace label changes (allowedRoutes and allowedListeners selectors), ListenerSet changes.
The route -> endpoints logic is `objects.gateway`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import NAMESPACES, Resource, SharedInformerFactory
from external_dns.informers.resource import (
    GATEWAYS,
    GRPCROUTES,
    HTTPROUTES,
    LISTENERSETS,
    TCPROUTES,
    TLSROUTES,
    UDPROUTES,
)
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admitted_objects,
    common_admission,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import (
    gateway_transformer,
    generic_transformer,
    listenerset_transformer,
    namespace_transformer,
    route_transformer,
)
from external_dns.sources.objects.gateway import (
    GatewayLookup,
    GatewayOptions,
    collect_route_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem

__all__ = ["GATEWAYS", "GRPCROUTES", "HTTPROUTES", "ROUTE_SOURCES", "ROUTE_VERSIONS", "TCPROUTES", "TLSROUTES",
           "TLSROUTES_V1", "UDPROUTES", "GatewayRouteInformerSource"]

# source name -> route resource
ROUTE_SOURCES: dict[str, Resource] = {
    "gateway-httproute": HTTPROUTES,
    "gateway-grpcroute": GRPCROUTES,
    "gateway-tlsroute": TLSROUTES,
    "gateway-tcproute": TCPROUTES,
    "gateway-udproute": UDPROUTES,
}
# Gateway API v1.5 moved TLSRoute to v1 in the standard channel, which no longer serves v1alpha2: the
# builder reads v1 where the API server serves it (as current external-dns), else v1alpha2 (its releases).
TLSROUTES_V1 = Resource(TLSROUTES.group, "v1", TLSROUTES.plural, TLSROUTES.kind)
# source name -> the route resource in the versions the source can read, preferred first
ROUTE_VERSIONS: dict[str, tuple[Resource, ...]] = {
    **{name: (resource,) for name, resource in ROUTE_SOURCES.items()},
    "gateway-tlsroute": (TLSROUTES_V1, TLSROUTES),
}

class GatewayRouteInformerSource(InformerSource):
    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, source_name: str,
                 gateway_options: GatewayOptions | None = None, *, route_resource: Resource | None = None,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        """`route_resource`: one of ROUTE_VERSIONS[source_name] (default: the v1alpha2/v1 one of
        ROUTE_SOURCES; the builder picks the version the API server serves)."""
        super().__init__(factory, options, sync_timeout=sync_timeout)
        if source_name not in ROUTE_SOURCES:
            raise ValueError(f"unknown gateway route source {source_name!r}")
        if route_resource is not None and route_resource not in ROUTE_VERSIONS[source_name]:
            raise ValueError(f"{source_name} does not read {route_resource.plural}.{route_resource.version}")
        self.name = source_name
        self.route_resource = route_resource or ROUTE_SOURCES[source_name]
        self.kind = self.route_resource.kind
        self.gateway_options = gateway_options or GatewayOptions()
        self.admit = common_admission(options)
        keep = annotation_keys_read(options)
        route_slim = generic_transformer(keep) if options.any_template else route_transformer(
            keep, keep_labels=not options.label_selector.empty())
        self.routes = self._informer(self.route_resource, route_slim, {WITH_SELECTORS: selector_index(self.admit)},
                                     events=self.admit)
        gw = self.gateway_options
        # The label filter is applied by the API server, so Gateway labels need not be cached.
        self.gateways = self._informer(GATEWAYS, gateway_transformer(keep, keep_labels=False),
                                       label_selector=gw.gateway_label_filter or None, events=True,
                                       namespace=gw.gateway_namespace or None)
        # a namespace's new labels may let an `allowedRoutes` selector admit (or drop) its routes
        self.namespaces = self._informer(NAMESPACES, namespace_transformer, namespace=None, events=True)
        self.listener_sets = self._informer(LISTENERSETS, listenerset_transformer(keep), namespace=None,
                                            events=True) if gw.listener_sets else None
        # server-side filtering replaces the client-side label check (labels are not cached)
        self._lookup_options = GatewayOptions(gw.gateway_name, gw.gateway_namespace, "", gw.listener_sets)

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        gw_ns = self.gateway_options.gateway_namespace or None
        checks = [AccessCheck(self.route_resource, verb, ns) for verb in ("list", "watch")]
        checks += [AccessCheck(GATEWAYS, verb, gw_ns) for verb in ("list", "watch")]
        checks += [AccessCheck(NAMESPACES, verb) for verb in ("list", "watch")]
        if self.listener_sets is not None:
            checks += [AccessCheck(LISTENERSETS, verb) for verb in ("list", "watch")]
        return checks

    def lookup(self) -> GatewayLookup:
        gateways = self.gateways.get_store()
        namespaces = self.namespaces.get_store()

        def gateway(namespace: str, name: str) -> Mapping[str, Any] | None:
            return gateways.get_by_key(f"{namespace}/{name}")  # the store's key: <namespace>/<name>

        def namespace_labels(name: str) -> Mapping[str, str] | None:
            ns = namespaces.get_by_key(name)
            if ns is None:
                return None
            labels = (ns.get("metadata") or {}).get("labels")
            return labels if isinstance(labels, Mapping) else {}

        sets = self.listener_sets.get_store() if self.listener_sets is not None else None

        def listener_set(namespace: str, name: str) -> Mapping[str, Any] | None:
            return sets.get_by_key(f"{namespace}/{name}") if sets is not None else None

        # with a server-side label filter an absent Gateway may just be filtered out: not reported
        return GatewayLookup(gateway, namespace_labels, complete=not self.gateway_options.gateway_label_filter,
                             listener_set=listener_set)

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        return collect_route_endpoints(admitted_objects(self.routes), self.kind, self.options,
                                       self._lookup_options, self.lookup())
