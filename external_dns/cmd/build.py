"""Builds the objects a configuration asks for: provider, registry, sources, controller.

Each provider, registry and source registers a builder here by name, as "module:function" so that only
what a configuration uses is imported. A provider builder takes the typed configuration (cmd/config.Config)
and returns a `Provider`; a registry builder takes (configuration, provider) and returns a `Registry`; a
source builder takes (configuration, context) and returns a `Source`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

# name -> "module:function(cfg) -> Provider"
PROVIDER_BUILDERS: dict[str, str] = {
    "inmemory": "external_dns.cmd.build_providers:build_inmemory",
    "zonefile": "external_dns.cmd.build_providers:build_zonefile",
    "rfc2136": "external_dns.cmd.build_providers:build_rfc2136",
    "webhook": "external_dns.cmd.build_providers:build_webhook",
    "aws": "external_dns.cmd.build_providers:build_aws",
    "pdns": "external_dns.cmd.build_providers:build_pdns",
    "cloudflare": "external_dns.cmd.build_providers:build_cloudflare",
    "google": "external_dns.cmd.build_providers:build_google",
    "azure": "external_dns.cmd.build_providers:build_azure",
    "azure-private-dns": "external_dns.cmd.build_providers:build_azure_private_dns",
}
# name -> "module:function(cfg, provider) -> Registry"
REGISTRY_BUILDERS: dict[str, str] = {
    "txt": "external_dns.cmd.build_registry:build_txt",
    "noop": "external_dns.cmd.build_registry:build_noop",
    "dynamodb": "external_dns.cmd.build_registry:build_dynamodb",
}
# name -> "module:function(cfg, context) -> Source"
SOURCE_BUILDERS: dict[str, str] = {
    "manifest": "external_dns.cmd.build_sources:build_manifest",
    "service": "external_dns.cmd.build_k8s_sources:build_service",
    "ingress": "external_dns.cmd.build_k8s_sources:build_ingress",
    "crd": "external_dns.cmd.build_k8s_sources:build_crd",
    "dnsrecord": "external_dns.cmd.build_sources:build_dnsrecord",
    "gateway-httproute": "external_dns.cmd.build_k8s_sources:build_httproute",
    "gateway-grpcroute": "external_dns.cmd.build_k8s_sources:build_grpcroute",
    "gateway-tlsroute": "external_dns.cmd.build_k8s_sources:build_tlsroute",
    "gateway-tcproute": "external_dns.cmd.build_k8s_sources:build_tcproute",
    "gateway-udproute": "external_dns.cmd.build_k8s_sources:build_udproute",
    "node": "external_dns.cmd.build_k8s_sources:build_node",
    "pod": "external_dns.cmd.build_k8s_sources:build_pod",
}


def check_name(table: dict[str, str], kind: str, name: str) -> None:
    """ConfigError naming the flag `--<kind>` and the names there are when `name` has no builder."""
    if name not in table:
        from external_dns.cmd.flags import one_of

        raise ConfigError(f"--{kind}: unknown {kind} {name!r} {one_of(name, sorted(table))}")


def load_builder(table: dict[str, str], kind: str, name: str) -> Any:
    """The builder registered for `--<kind>=<name>`."""
    check_name(table, kind, name)
    module, _, func = table[name].partition(":")
    return getattr(importlib.import_module(module), func)


def build_provider(cfg: Config) -> Any:
    return load_builder(PROVIDER_BUILDERS, "provider", cfg.core.provider)(cfg)


def build_domain_filter(cfg: Config) -> DomainFilter:
    """`--domain-filter`, `--exclude-domains`, `--regex-domain-filter`, `--regex-domain-exclusion`."""
    filters = cfg.filters
    try:
        return DomainFilter(include=filters.domain_filter, exclude=filters.exclude_domains,
                            regex=filters.regex_domain_filter, regex_exclusion=filters.regex_domain_exclusion)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
