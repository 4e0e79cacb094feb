"""Source builders (`SOURCE_BUILDERS` in cmd/build.py) for the in-cluster service, ingress and crd sources:
`(cfg, context) -> Source`. The context gives `informer_factory()`, the process-wide SharedInformerFactory.
Each builder creates its informers (not started: the process starts the factory and waits for the caches)
and, with `--kube-access-check` (default on), asks the API server at once whether every verb the source
needs is allowed, so a missing RBAC rule is a start-up error naming the rule instead of an informer that
never syncs."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from external_dns.errors import ConfigError
from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.base import InformerSource, check_access
from external_dns.sources.informer.crd import DNSEndpointInformerSource
from external_dns.sources.informer.ingress import IngressInformerSource
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions


def source_options(cfg: argparse.Namespace) -> SourceOptions:
    """SourceOptions from the flags; a bad value is a ConfigError naming it."""
    try:
        return SourceOptions.from_config(cfg)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _factory(context: Mapping[str, Any] | None, name: str) -> SharedInformerFactory:
    getter = (context or {}).get("informer_factory")
    if getter is None:
        raise ConfigError(f"--source={name} needs a Kubernetes API connection (--kubeconfig, --server or "
                          "in-cluster configuration)")
    factory: SharedInformerFactory = getter()
    return factory


def _checked(source: InformerSource, cfg: argparse.Namespace) -> InformerSource:
    if getattr(cfg, "kube_access_check", True):
        check_access(source.factory.api_client, source.access_checks(), source.name)  # type: ignore[attr-defined]
    return source


def build_service(cfg: argparse.Namespace, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=service`."""
    source = ServiceInformerSource(_factory(context, "service"), source_options(cfg),
                                   listen_endpoint_events=bool(getattr(cfg, "listen_endpoint_events", False)))
    return _checked(source, cfg)


def build_ingress(cfg: argparse.Namespace, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=ingress`."""
    return _checked(IngressInformerSource(_factory(context, "ingress"), source_options(cfg)), cfg)


def build_crd(cfg: argparse.Namespace, context: Mapping[str, Any] | None = None) -> InformerSource:
    """`--source=crd` (DNSEndpoints)."""
    return _checked(DNSEndpointInformerSource(_factory(context, "crd"), source_options(cfg),
                                              update_status=not bool(getattr(cfg, "dry_run", False))), cfg)
