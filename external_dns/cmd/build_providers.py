"""Provider builders (`PROVIDER_BUILDERS` in cmd/build.py): the typed flags (cmd/config.Config) become a
provider's own config. Each builder imports its provider only when chosen (`--provider=rfc2136` never
imports boto3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.build import build_domain_filter
from external_dns.errors import ConfigError

if TYPE_CHECKING:
    from external_dns.cmd.config import Config
    from external_dns.providers.aws.config import AWSConfig
    from external_dns.providers.aws.provider import AWSProvider
    from external_dns.providers.azure import AzureConfig, AzurePrivateDNSProvider, AzureProvider
    from external_dns.providers.cloudflare import CloudflareProvider
    from external_dns.providers.google import GoogleProvider
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.providers.pdns.config import PDNSConfig
    from external_dns.providers.pdns.provider import PDNSProvider
    from external_dns.providers.rfc2136.config import RFC2136Config
    from external_dns.providers.rfc2136.provider import RFC2136Provider
    from external_dns.providers.webhook.client import WebhookClientConfig, WebhookProvider
    from external_dns.providers.zonefile import ZoneFileProvider


def build_inmemory(cfg: Config) -> InMemoryProvider:
    """`--provider=inmemory`: zones from `--inmemory-zone`."""
    from external_dns.providers.inmemory import InMemoryProvider

    return InMemoryProvider(zones=list(cfg.local.inmemory_zones))


def build_zonefile(cfg: Config) -> ZoneFileProvider:
    """`--provider=zonefile`: `--zonefile-dir`, `--zonefile-create-zone`."""
    from external_dns.providers.zonefile import ZoneFileProvider

    if not cfg.local.zonefile_dir:
        raise ConfigError("--zonefile-dir must be set for --provider=zonefile")
    return ZoneFileProvider(cfg.local.zonefile_dir, create_zones=list(cfg.local.zonefile_create_zones),
                            dry_run=cfg.core.dry_run)


def rfc2136_config(cfg: Config) -> RFC2136Config:
    """The `--rfc2136-*` flags (cmd/flags_rfc2136.py) and `--tls-*` as the provider's config."""
    from external_dns.providers.rfc2136.config import RFC2136Config

    rfc, tls = cfg.rfc2136, cfg.tls
    return RFC2136Config(
        hosts=rfc.hosts, port=rfc.port, zones=rfc.zones, insecure=rfc.insecure, tsig_keyname=rfc.tsig_keyname,
        tsig_secret=rfc.tsig_secret, tsig_secret_alg=rfc.tsig_secret_alg, axfr=rfc.axfr,
        axfr_timeout=rfc.axfr_timeout, axfr_max_records=rfc.axfr_max_records,
        min_ttl=int(rfc.min_ttl), batch_change_size=rfc.batch_change_size, use_tls=rfc.use_tls,
        skip_tls_verify=rfc.skip_tls_verify, tls_ca=tls.ca, tls_client_cert=tls.client_cert,
        tls_client_cert_key=tls.client_cert_key, load_balancing_strategy=rfc.load_balancing_strategy,
    )


def build_rfc2136(cfg: Config) -> RFC2136Provider:
    """`--provider=rfc2136`."""
    from external_dns.providers.rfc2136.provider import RFC2136Provider

    return RFC2136Provider(rfc2136_config(cfg))


def webhook_config(cfg: Config) -> WebhookClientConfig:
    """The `--webhook-provider-*` flags as the webhook client's config."""
    from external_dns.providers.webhook.client import WebhookClientConfig

    hook = cfg.webhook
    return WebhookClientConfig(url=hook.url, read_timeout=hook.read_timeout, write_timeout=hook.write_timeout,
                               max_body_size=hook.max_body_size)


def build_webhook(cfg: Config) -> WebhookProvider:
    """`--provider=webhook`."""
    from external_dns.providers.webhook.client import WebhookProvider

    return WebhookProvider(webhook_config(cfg))


def aws_config(cfg: Config) -> AWSConfig:
    """The `--aws-*` flags (cmd/flags_aws.py) and the domain filter as the Route53 provider's config."""
    from external_dns.providers.aws.config import AWSConfig

    aws = cfg.aws
    return AWSConfig(
        domain_filter=build_domain_filter(cfg),
        zone_id_filter=[z for z in aws.zone_id_filter if z],
        zone_type=aws.zone_type,
        zone_tags=[t for t in aws.zone_tags if t],
        zone_match_parent=aws.zone_match_parent,
        profiles=[p for p in aws.profiles if p],
        assume_role=aws.assume_role,
        assume_role_external_id=aws.assume_role_external_id,
        batch_change_size=aws.batch_change_size,
        batch_change_size_bytes=aws.batch_change_size_bytes,
        batch_change_size_values=aws.batch_change_size_values,
        batch_change_interval=aws.batch_change_interval,
        evaluate_target_health=aws.evaluate_target_health,
        api_retries=aws.api_retries,
        prefer_cname=aws.prefer_cname,
        zones_cache_duration=aws.zones_cache_duration,
        dry_run=cfg.core.dry_run,
    )


def build_aws(cfg: Config) -> AWSProvider:
    """`--provider=aws`: Route53 with the zones the domain filter flags select."""
    from external_dns.providers.aws.provider import AWSProvider

    return AWSProvider(aws_config(cfg))


def pdns_config(cfg: Config) -> PDNSConfig:
    """The `--pdns-*` and `--tls-*` flags as the PowerDNS provider's config (its errors name the flag)."""
    from external_dns.providers.pdns.config import PDNSConfig

    pdns, tls = cfg.pdns, cfg.tls
    return PDNSConfig(
        server=pdns.server.strip(),
        # Surrounding white space dropped: a Secret made from a file often ends in a line break, which
        # cannot be sent in a header at all.
        api_key=pdns.api_key.strip(),
        server_id=pdns.server_id.strip(),
        skip_tls_verify=pdns.skip_tls_verify,
        tls_ca=tls.ca,
        tls_client_cert=tls.client_cert,
        tls_client_cert_key=tls.client_cert_key,
        domain_filter=build_domain_filter(cfg),
    )


def build_pdns(cfg: Config) -> PDNSProvider:
    """`--provider=pdns` (TLS files are loaded here)."""
    from external_dns.providers.pdns.provider import PDNSProvider

    config = pdns_config(cfg)
    config.ssl_context()  # a bad --tls-* file is a start-up error, not a failed sync
    return PDNSProvider(config)


def build_cloudflare(cfg: Config) -> CloudflareProvider:
    """`--provider=cloudflare`: credentials from the environment as external-dns reads them (CF_API_TOKEN, ...);
    the SDK's own CLOUDFLARE_BASE_URL points it at another endpoint."""
    from external_dns.providers.cloudflare import CloudflareConfig, CloudflareProvider, Credentials

    cf = cfg.cloudflare
    return CloudflareProvider(CloudflareConfig(
        credentials=Credentials.from_env(), domain_filter=build_domain_filter(cfg),
        zone_id_filter=tuple(z for z in cfg.aws.zone_id_filter if z), proxied_by_default=cf.proxied,
        per_page=cf.per_page, comment=cf.comment, regional_services=cf.regional_services,
        region_key=cf.region_key, batch_change_size=cf.batch_change_size,
        batch_change_interval=cf.batch_change_interval, annotation_prefix=cfg.sources.annotation_prefix,
        cache_seconds=cfg.local.provider_cache_time, dry_run=cfg.core.dry_run))


def build_google(cfg: Config) -> GoogleProvider:
    """`--provider=google`: Application Default Credentials; `--google-api-endpoint` for another endpoint."""
    from external_dns.providers.google import GoogleConfig, GoogleProvider

    g = cfg.google
    return GoogleProvider(GoogleConfig(
        project=g.project, domain_filter=build_domain_filter(cfg),
        zone_id_filter=tuple(z for z in cfg.aws.zone_id_filter if z), zone_visibility=g.zone_visibility,
        batch_change_size=g.batch_change_size, batch_change_interval=g.batch_change_interval,
        api_endpoint=g.api_endpoint, cache_seconds=cfg.local.provider_cache_time, dry_run=cfg.core.dry_run))


def azure_config(cfg: Config) -> AzureConfig:
    """azure.json (`--azure-config-file`) with the `--azure-*` overrides, as the Azure providers' config."""
    from external_dns.endpoint.domain_filter import DomainFilter
    from external_dns.providers.azure import AzureConfig, AzureFile
    from external_dns.providers.azure.config import with_overrides

    az = cfg.azure
    file = with_overrides(AzureFile.read(az.config_file), subscription_id=az.subscription_id,
                          resource_group=az.resource_group,
                          user_assigned_identity_client_id=az.user_assigned_identity_client_id)
    return AzureConfig(
        file=file, domain_filter=build_domain_filter(cfg),
        zone_name_filter=DomainFilter(include=[z for z in az.zone_name_filter if z]),
        zone_id_filter=tuple(z for z in cfg.aws.zone_id_filter if z),
        max_retries=max(0, az.max_retries),  # external-dns: below 0 disables retries
        cache_seconds=cfg.local.provider_cache_time,
        zones_cache_seconds=az.zones_cache_duration or 60.0, dry_run=cfg.core.dry_run)


def build_azure(cfg: Config) -> AzureProvider:
    """`--provider=azure`."""
    from external_dns.providers.azure import AzureProvider

    return AzureProvider(azure_config(cfg))


def build_azure_private_dns(cfg: Config) -> AzurePrivateDNSProvider:
    """`--provider=azure-private-dns`."""
    from external_dns.providers.azure import AzurePrivateDNSProvider

    return AzurePrivateDNSProvider(azure_config(cfg))
