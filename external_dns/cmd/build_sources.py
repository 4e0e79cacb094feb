"""Source builders (`SOURCE_BUILDERS` in cmd/build.py) for the manifest source, and the whole source
pipeline the controller consumes: every `--source` built by name and wrapped as external-dns does:
MultiSource (default targets, dedup) -> Nat64Source (with --nat64-networks) -> TargetFilterSource (when a
CIDR filter is set) -> PtrSource (--create-ptr, the record-type annotation) -> PostProcessorSource
(`--min-ttl`, provider-specific properties of `--provider` only). In-cluster sources: build_k8s_sources.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from external_dns.cmd.build import SOURCE_BUILDERS, load_builder
from external_dns.endpoint.target_filter import TargetNetFilter
from external_dns.errors import ConfigError
from external_dns.sources.derived import Nat64Source, PtrSource
from external_dns.sources.manifest import ManifestSource
from external_dns.sources.objects.gateway import GatewayOptions
from external_dns.sources.options import SourceOptions, joined_templates
from external_dns.sources.selector import SelectorError
from external_dns.sources.source import Source
from external_dns.sources.wrappers import MultiSource, PostProcessorSource, TargetFilterSource

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

log = structlog.get_logger(__name__)


def _present(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v for v in values if v)


def source_options(cfg: Config) -> SourceOptions:
    """SourceOptions from the source flags (cmd/flags_sources.py); a bad value is a ConfigError naming it."""
    src = cfg.sources
    try:
        return SourceOptions(
            annotation_prefix=src.annotation_prefix,
            namespace=src.namespace,
            annotation_filter=src.annotation_filter,
            label_filter=src.label_filter,
            # --fqdn-template is repeatable; outputs are comma lists, so the union is the joined text.
            fqdn_template=joined_templates(src.fqdn_template),
            target_template=src.target_template,
            fqdn_target_template=src.fqdn_target_template,
            combine_fqdn_annotation=src.combine_fqdn_annotation,
            ignore_hostname_annotation=src.ignore_hostname_annotation,
            publish_internal_services=src.publish_internal_services,
            publish_host_ip=src.publish_host_ip,
            always_publish_not_ready_addresses=src.always_publish_not_ready_addresses,
            service_type_filter=_present(src.service_type_filter),
            ingress_class_names=_present(src.ingress_class),
            ignore_ingress_tls_spec=src.ignore_ingress_tls_spec,
            ignore_ingress_rules_spec=src.ignore_ingress_rules_spec,
            default_targets=_present(src.default_targets),
            force_default_targets=src.force_default_targets,
            min_ttl=int(src.min_ttl),
            resolve_load_balancer_hostname=src.resolve_service_load_balancer_hostname,
            expose_internal_ipv6=src.expose_internal_ipv6,
            exclude_unschedulable=src.exclude_unschedulable,
            exclude_target_nets=_present(src.exclude_target_net),
            target_net_filter=_present(src.target_net_filter),
            compatibility=src.compatibility,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def gateway_options(cfg: Config) -> GatewayOptions:
    """`--gateway-name`, `--gateway-namespace`, `--gateway-label-filter` (route sources and manifests)."""
    src = cfg.sources
    try:
        return GatewayOptions(src.gateway_name, src.gateway_namespace, src.gateway_label_filter,
                              src.gateway_listener_sets)
    except SelectorError as exc:
        raise ConfigError(f"--gateway-label-filter does not specify a valid label selector: {exc}") from None


def build_manifest(cfg: Config, context: Any = None) -> Source:
    """`--source=manifest`: a ManifestSource over `--manifest-dir`."""
    del context
    directory = cfg.sources.manifest_dir
    if not directory:
        raise ConfigError("--manifest-dir must be set for --source=manifest")
    if not Path(directory).is_dir():
        raise ConfigError(f"--manifest-dir: {directory!r} is not a directory")
    return ManifestSource(directory, source_options(cfg), gateway_options(cfg))


def build_dnsrecord(cfg: Config, context: Any = None) -> Source:
    """`--source=dnsrecord`: no endpoints in the zone-wide pipeline (the DNSRecord controller publishes
    them, started as a process feature by cmd/wiring.process_features)."""
    from external_dns.controller.dnsrecord.controller import NoEndpoints

    return NoEndpoints()


def build_source_pipeline(cfg: Config, context: Any = None) -> Source:
    """Every `--source`, combined and wrapped (see the module docstring)."""
    src = cfg.sources
    names = _present(cfg.core.source_names)
    if not names:
        raise ConfigError(f"--source must be set (one of: {', '.join(sorted(SOURCE_BUILDERS))})")
    children = [load_builder(SOURCE_BUILDERS, "source", name)(cfg, context) for name in dict.fromkeys(names)]
    if any(t.strip() for t in src.target_template):  # checked as Go checks it, then unused, as in Go
        log.warning("--target-template is not applied by any source here: as external-dns, only sources whose "
                    "targets come from templates use it, not service, ingress, node or pod; their records keep "
                    "the objects' own targets")
    source: Source = MultiSource(children, src.default_targets, src.force_default_targets)
    if _present(src.nat64_networks):
        source = Nat64Source(source, src.nat64_networks)
    target_filter = TargetNetFilter(_present(src.target_net_filter), _present(src.exclude_target_net))
    if target_filter.is_enabled():
        source = TargetFilterSource(source, target_filter)
    # Always wrapped: the record-type annotation asks for PTR records without --create-ptr.
    source = PtrSource(source, cfg.filters.create_ptr, cfg.filters.managed_record_types)
    return PostProcessorSource(source, min_ttl=int(src.min_ttl), provider=cfg.core.provider,
                               prefer_alias=src.prefer_alias)
