"""Builders of the in-cluster sources (service, ingress, crd, Gateway API routes, node, pod; registered in
cmd/build.py SOURCE_BUILDERS): `(cfg, context) -> Source`.

The context (cmd/run.py) gives `informer_factory()`, the process-wide SharedInformerFactory. Each builder
reads the flags into typed options, creates the source's informers (not started) and, with
`--kube-access-check` (default on), asks the API server at once whether every verb the source needs is
allowed, so a missing RBAC rule is a start-up error naming the rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from external_dns.cmd.build_sources import gateway_options, source_options
from external_dns.errors import ConfigError
from external_dns.informers import SharedInformerFactory
from external_dns.informers.resource import LISTENERSETS
from external_dns.sources.informer.base import AccessCheck, InformerSource, check_access, first_served
from external_dns.sources.informer.crd import DNSEndpointInformerSource
from external_dns.sources.informer.gateway import ROUTE_VERSIONS, GatewayRouteInformerSource
from external_dns.sources.informer.ingress import IngressInformerSource
from external_dns.sources.informer.node import NodeInformerSource
from external_dns.sources.informer.pod import PodInformerSource
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.objects.pod import PodOptions

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


def _factory(context: Mapping[str, Any] | None, name: str) -> SharedInformerFactory:
    getter = (context or {}).get("informer_factory")
    if getter is None:
        raise ConfigError(f"--source={name} needs a Kubernetes API connection (--kubeconfig, --server or "
                          "in-cluster configuration)")
    factory: SharedInformerFactory = getter()
    return factory


def _checked(source: InformerSource, checks: list[AccessCheck], cfg: Config) -> InformerSource:
    if cfg.sources.kube_access_check:
        check_access(source.factory.api_client, checks, source.name)
    return source


def _build_route(name: str, cfg: Config, context: Mapping[str, Any] | None) -> InformerSource:
    factory = _factory(context, name)
    versions = ROUTE_VERSIONS[name]
    # the version the API server serves (TLSRoute: v1 since Gateway API v1.5, else v1alpha2); a resource it
    # serves in no version is a start-up error naming it, not an informer retrying 404s
    resource = first_served(factory.api_client, versions, name) if cfg.sources.kube_access_check else versions[-1]
    if cfg.sources.gateway_listener_sets and cfg.sources.kube_access_check:  # ListenerSets: Gateway API v1.5
        first_served(factory.api_client, (LISTENERSETS,), f"{name} --gateway-listener-sets")
    source = GatewayRouteInformerSource(factory, source_options(cfg), name, gateway_options(cfg), route_resource=resource)
    return _checked(source, source.access_checks(), cfg)


def build_httproute(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=gateway-httproute`."""
    return _build_route("gateway-httproute", cfg, context)


def build_grpcroute(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=gateway-grpcroute`."""
    return _build_route("gateway-grpcroute", cfg, context)


def build_tlsroute(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=gateway-tlsroute`."""
    return _build_route("gateway-tlsroute", cfg, context)


def build_tcproute(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=gateway-tcproute`."""
    return _build_route("gateway-tcproute", cfg, context)


def build_udproute(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=gateway-udproute`."""
    return _build_route("gateway-udproute", cfg, context)


def build_node(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=node`."""
    source = NodeInformerSource(_factory(context, "node"), source_options(cfg))
    return _checked(source, source.access_checks(), cfg)


def pod_options(cfg: Config) -> PodOptions:
    """`--ignore-non-host-network-pods`, `--pod-source-domain`."""
    return PodOptions(cfg.sources.ignore_non_host_network_pods, cfg.sources.pod_source_domain.strip().rstrip("."))


def build_pod(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=pod`."""
    source = PodInformerSource(_factory(context, "pod"), source_options(cfg), pod_options(cfg))
    return _checked(source, source.access_checks(), cfg)


def build_service(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=service`."""
    source = ServiceInformerSource(_factory(context, "service"), source_options(cfg),
                                   listen_endpoint_events=cfg.sources.listen_endpoint_events)
    return _checked(source, source.access_checks(), cfg)


def build_ingress(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=ingress`."""
    source = IngressInformerSource(_factory(context, "ingress"), source_options(cfg))
    return _checked(source, source.access_checks(), cfg)


def build_crd(cfg: Config, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=crd` (DNSEndpoints)."""
    source = DNSEndpointInformerSource(_factory(context, "crd"), source_options(cfg),
                                       update_status=not cfg.core.dry_run)
    return _checked(source, source.access_checks(), cfg)
