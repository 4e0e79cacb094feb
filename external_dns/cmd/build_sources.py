"""Source builders (`SOURCE_BUILDERS` in cmd/build.py) for the manifest source, and the whole source
pipeline the controller consumes: every `--source` built by name and wrapped as external-dns does:
MultiSource (default targets, dedup) -> Nat64Source (with --nat64-networks) -> TargetFilterSource (when a
CIDR filter is set) -> PtrSource (--create-ptr, the record-type annotation) -> PostProcessorSource
(`--min-ttl`, provider-specific properties of `--provider` only). In-cluster sources: build_k8s_sources.py."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from external_dns.cmd.build import SOURCE_BUILDERS, load_builder
from external_dns.endpoint.target_filter import TargetNetFilter
from external_dns.errors import ConfigError
from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX
from external_dns.sources.derived import Nat64Source, PtrSource
from external_dns.sources.manifest import ManifestSource
from external_dns.sources.objects.gateway import GatewayOptions
from external_dns.sources.options import SourceOptions, joined_templates
from external_dns.sources.selector import SelectorError
from external_dns.sources.source import Source
from external_dns.sources.wrappers import MultiSource, PostProcessorSource, TargetFilterSource


def _source_options(cfg: argparse.Namespace) -> SourceOptions:
    """The source flags (cmd/flags_sources.py); missing attributes keep their defaults."""
    def get(name: str, default: Any) -> Any:
        value = getattr(cfg, name, default)
        return default if value is None else value

    def strings(name: str) -> tuple[str, ...]:
        return tuple(s for s in get(name, ()) if s)

    kwargs: dict[str, Any] = {
        "annotation_prefix": get("annotation_prefix", DEFAULT_ANNOTATION_PREFIX),
        "namespace": get("namespace", ""),
        "annotation_filter": get("annotation_filter", ""),
        "label_filter": get("label_filter", ""),
        # --fqdn-template is repeatable (a list); outputs are comma lists, so the union is the joined text.
        "fqdn_template": joined_templates(get("fqdn_template", "")),
        "target_template": get("target_template", ""),
        "fqdn_target_template": get("fqdn_target_template", ""),
        "combine_fqdn_annotation": bool(get("combine_fqdn_annotation", False)),
        "ignore_hostname_annotation": bool(get("ignore_hostname_annotation", False)),
        "publish_internal_services": bool(get("publish_internal_services", False)),
        "publish_host_ip": bool(get("publish_host_ip", False)),
        "always_publish_not_ready_addresses": bool(get("always_publish_not_ready_addresses", False)),
        "service_type_filter": strings("service_type_filter"),
        "ingress_class_names": strings("ingress_class"),
        "ignore_ingress_tls_spec": bool(get("ignore_ingress_tls_spec", False)),
        "ignore_ingress_rules_spec": bool(get("ignore_ingress_rules_spec", False)),
        "default_targets": strings("default_targets"),
        "force_default_targets": bool(get("force_default_targets", False)),
        "min_ttl": int(get("min_ttl", 0)),
        "resolve_load_balancer_hostname": bool(get("resolve_service_load_balancer_hostname", False)),
        "expose_internal_ipv6": bool(get("expose_internal_ipv6", False)),
        "exclude_unschedulable": bool(get("exclude_unschedulable", True)),
        "exclude_target_nets": strings("exclude_target_net"),
        "target_net_filter": strings("target_net_filter"),
    }
    return SourceOptions(**kwargs)


def source_options(cfg: argparse.Namespace) -> SourceOptions:
    """SourceOptions from the flags; a bad value is a ConfigError naming it."""
    try:
        return _source_options(cfg)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def gateway_options(cfg: argparse.Namespace) -> GatewayOptions:
    """`--gateway-name`, `--gateway-namespace`, `--gateway-label-filter` (route sources and manifests)."""
    try:
        return GatewayOptions(str(getattr(cfg, "gateway_name", "") or ""),
                              str(getattr(cfg, "gateway_namespace", "") or ""),
                              str(getattr(cfg, "gateway_label_filter", "") or ""))
    except SelectorError as exc:
        raise ConfigError(f"--gateway-label-filter does not specify a valid label selector: {exc}") from None


def build_manifest(cfg: argparse.Namespace, context: Any = None) -> Source:
    """`--source=manifest`: a ManifestSource over `--manifest-dir`."""
    del context
    directory = getattr(cfg, "manifest_dir", "") or ""
    if not directory:
        raise ConfigError("--manifest-dir must be set for --source=manifest")
    if not Path(directory).is_dir():
        raise ConfigError(f"--manifest-dir: {directory!r} is not a directory")
    return ManifestSource(directory, source_options(cfg), gateway_options(cfg))


def build_dnsrecord(cfg: argparse.Namespace, context: Any = None) -> Source:
    """`--source=dnsrecord`: no endpoints in the zone-wide pipeline (the DNSRecord controller publishes
    them, started as a process feature by cmd/wiring.process_features)."""
    from external_dns.controller.dnsrecord.controller import NoEndpoints

    return NoEndpoints()


def build_source_pipeline(cfg: argparse.Namespace, context: Any = None) -> Source:
    """Every `--source`, combined and wrapped (see the module docstring)."""
    names = [n for n in (getattr(cfg, "source", None) or []) if n]
    if not names:
        raise ConfigError("no sources specified")
    children = [load_builder(SOURCE_BUILDERS, "source", name)(cfg, context) for name in dict.fromkeys(names)]
    source: Source = MultiSource(children, [t for t in getattr(cfg, "default_targets", None) or [] if t],
                                 bool(getattr(cfg, "force_default_targets", False)))
    nat64 = [n for n in getattr(cfg, "nat64_networks", None) or [] if n]
    if nat64:
        source = Nat64Source(source, nat64)
    target_filter = TargetNetFilter([c for c in getattr(cfg, "target_net_filter", None) or [] if c],
                                    [c for c in getattr(cfg, "exclude_target_net", None) or [] if c])
    if target_filter.is_enabled():
        source = TargetFilterSource(source, target_filter)
    # Always wrapped: the record-type annotation asks for PTR records without --create-ptr.
    source = PtrSource(source, bool(getattr(cfg, "create_ptr", False)),
                       getattr(cfg, "managed_record_types", None) or ())
    return PostProcessorSource(source, min_ttl=int(getattr(cfg, "min_ttl", 0) or 0),
                               provider=str(getattr(cfg, "provider", "") or ""),
                               prefer_alias=bool(getattr(cfg, "prefer_alias", False)))
