"""Provider builders (`PROVIDER_BUILDERS` in cmd/build.py): the flags become a provider's typed config.
Each builder imports its provider only when chosen (`--provider=rfc2136` never imports boto3)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError

if TYPE_CHECKING:
    from external_dns.providers.aws.config import AWSConfig
    from external_dns.providers.aws.provider import AWSProvider
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.providers.rfc2136.config import RFC2136Config
    from external_dns.providers.rfc2136.provider import RFC2136Provider
    from external_dns.providers.webhook.client import WebhookClientConfig, WebhookProvider
    from external_dns.providers.zonefile import ZoneFileProvider


def build_inmemory(cfg: argparse.Namespace) -> InMemoryProvider:
    """`--provider=inmemory`: zones from `--inmemory-zone`."""
    from external_dns.providers.inmemory import InMemoryProvider

    return InMemoryProvider(zones=list(getattr(cfg, "inmemory_zone", None) or []))


def build_zonefile(cfg: argparse.Namespace) -> ZoneFileProvider:
    """`--provider=zonefile`: `--zonefile-dir`, `--zonefile-create-zone`."""
    from external_dns.providers.zonefile import ZoneFileProvider

    directory = getattr(cfg, "zonefile_dir", "") or ""
    if not directory:
        raise ConfigError("--zonefile-dir must be set for --provider=zonefile")
    return ZoneFileProvider(directory, create_zones=list(getattr(cfg, "zonefile_create_zone", None) or []),
                            dry_run=bool(getattr(cfg, "dry_run", False)))


def rfc2136_config(cfg: argparse.Namespace) -> RFC2136Config:
    """The `--rfc2136-*` flags (cmd/flags_rfc2136.py) as the provider's config."""
    from external_dns.providers.rfc2136.config import RFC2136Config

    return RFC2136Config(
        hosts=tuple(getattr(cfg, "rfc2136_host", None) or ()),
        port=int(getattr(cfg, "rfc2136_port", 0) or 0),
        zones=tuple(getattr(cfg, "rfc2136_zone", None) or ()),
        insecure=bool(getattr(cfg, "rfc2136_insecure", False)),
        tsig_keyname=str(getattr(cfg, "rfc2136_tsig_keyname", "") or ""),
        tsig_secret=str(getattr(cfg, "rfc2136_tsig_secret", "") or ""),
        tsig_secret_alg=str(getattr(cfg, "rfc2136_tsig_secret_alg", "") or "hmac-sha256"),
        axfr=bool(getattr(cfg, "rfc2136_axfr", False)),
        axfr_timeout=float(getattr(cfg, "rfc2136_axfr_timeout", 300.0)),
        axfr_max_records=int(getattr(cfg, "rfc2136_axfr_max_records", 1_000_000)),
        min_ttl=int(getattr(cfg, "rfc2136_min_ttl", 0) or 0),
        batch_change_size=int(getattr(cfg, "rfc2136_batch_change_size", 50)),
        use_tls=bool(getattr(cfg, "rfc2136_use_tls", False)),
        skip_tls_verify=bool(getattr(cfg, "rfc2136_skip_tls_verify", False)),
        tls_ca=str(getattr(cfg, "tls_ca", "") or ""),
        tls_client_cert=str(getattr(cfg, "tls_client_cert", "") or ""),
        tls_client_cert_key=str(getattr(cfg, "tls_client_cert_key", "") or ""),
        load_balancing_strategy=str(getattr(cfg, "rfc2136_load_balancing_strategy", "disabled")),
    )


def build_rfc2136(cfg: argparse.Namespace) -> RFC2136Provider:
    """`--provider=rfc2136`."""
    from external_dns.providers.rfc2136.provider import RFC2136Provider

    return RFC2136Provider(rfc2136_config(cfg))


def webhook_config(cfg: argparse.Namespace) -> WebhookClientConfig:
    """The `--webhook-provider-*` flags as the webhook client's config."""
    from external_dns.providers.webhook.client import WebhookClientConfig

    return WebhookClientConfig(url=cfg.webhook_provider_url, read_timeout=cfg.webhook_provider_read_timeout,
                               write_timeout=cfg.webhook_provider_write_timeout,
                               max_body_size=cfg.webhook_provider_max_body_size)


def build_webhook(cfg: argparse.Namespace) -> WebhookProvider:
    """`--provider=webhook`."""
    from external_dns.providers.webhook.client import WebhookProvider

    return WebhookProvider(webhook_config(cfg))


def aws_config(cfg: argparse.Namespace, domain_filter: DomainFilter) -> AWSConfig:
    """The `--aws-*` flags (cmd/flags_aws.py) as the Route53 provider's config; unset flags keep the
    config's defaults."""
    from external_dns.providers.aws.config import AWSConfig

    def get(name: str, default: Any) -> Any:
        value = getattr(cfg, name, default)
        return default if value is None else value

    return AWSConfig(
        domain_filter=domain_filter,
        zone_id_filter=[z for z in get("zone_id_filter", []) if z],
        zone_type=get("aws_zone_type", ""),
        zone_tags=[t for t in get("aws_zone_tags", []) if t],
        zone_match_parent=bool(get("aws_zone_match_parent", False)),
        profiles=[p for p in get("aws_profile", []) if p],
        assume_role=get("aws_assume_role", ""),
        assume_role_external_id=get("aws_assume_role_external_id", ""),
        batch_change_size=int(get("aws_batch_change_size", 1000)),
        batch_change_size_bytes=int(get("aws_batch_change_size_bytes", 32000)),
        batch_change_size_values=int(get("aws_batch_change_size_values", 1000)),
        batch_change_interval=float(get("aws_batch_change_interval", 1.0)),
        evaluate_target_health=bool(get("aws_evaluate_target_health", True)),
        api_retries=int(get("aws_api_retries", 3)),
        prefer_cname=bool(get("aws_prefer_cname", False)),
        zones_cache_duration=float(get("aws_zones_cache_duration", 0.0)),
        dry_run=bool(get("dry_run", False)),
    )


def build_aws(cfg: argparse.Namespace) -> AWSProvider:
    """`--provider=aws`: Route53 with the zones the domain filter flags select."""
    from external_dns.providers.aws.provider import AWSProvider

    try:
        domain_filter = DomainFilter(include=getattr(cfg, "domain_filter", None) or [],
                                     exclude=getattr(cfg, "exclude_domains", None) or [],
                                     regex=getattr(cfg, "regex_domain_filter", "") or "",
                                     regex_exclusion=getattr(cfg, "regex_domain_exclusion", "") or "")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return AWSProvider(aws_config(cfg, domain_filter))
