"""Cloudflare provider flags (`--cloudflare-*`, and the generic `--batch-change-size` /
`--batch-change-interval` external-dns gives the providers that batch: here Cloudflare), names and defaults as
external-dns; checked when `--provider=cloudflare`. Credentials come from the environment (`CF_API_TOKEN`, ...),
never from flags. cmd/build_providers.build_cloudflare turns them into the provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

# Literal copies of the provider's limits: parsing flags must not import the provider (start-up time).
MAX_PER_PAGE = 5000


def add_flags(p: FlagParser) -> None:
    p.group("Cloudflare provider")
    p.add("--cloudflare-proxied", type=bool, default=False,
          help="proxy records through Cloudflare unless their cloudflare-proxied annotation says otherwise")
    p.add("--cloudflare-dns-records-per-page", type=int, default=100,
          help=f"DNS records per listed page (at most {MAX_PER_PAGE})")
    p.add("--cloudflare-record-comment", default="",
          help="comment of records without a cloudflare-record-comment annotation")
    p.add("--cloudflare-regional-services", type=bool, default=False,
          help="keep regional hostnames (Data Localization Suite) of A/AAAA/CNAME names in step")
    p.add("--cloudflare-region-key", default="",
          help="default region key of regional hostnames; set, it enables regional services")
    p.add("--batch-change-size", type=int, default=200,
          help="most record changes per batch request (Cloudflare: at least 200)")
    p.add("--batch-change-interval", type=duration, default=1.0, help="pause between two batch requests of a zone")


@flag_group
class CloudflareFlags(FlagGroup):
    proxied: bool = flag("--cloudflare-proxied")
    per_page: int = flag("--cloudflare-dns-records-per-page")
    comment: str = flag("--cloudflare-record-comment")
    regional_services: bool = flag("--cloudflare-regional-services")
    region_key: str = flag("--cloudflare-region-key")
    batch_change_size: int = flag("--batch-change-size")
    batch_change_interval: float = flag("--batch-change-interval")


def validate(cfg: Config) -> None:
    cf = cfg.cloudflare
    if cfg.core.provider == "cloudflare":
        if not 1 <= cf.per_page <= MAX_PER_PAGE:
            raise ConfigError(f"--cloudflare-dns-records-per-page must be between 1 and {MAX_PER_PAGE}, "
                              f"got {cf.per_page}")
        if cf.batch_change_size < 1:
            raise ConfigError(f"--batch-change-size must be at least 1, got {cf.batch_change_size}")
        if cf.batch_change_interval < 0:
            raise ConfigError(f"--batch-change-interval must not be negative, got {cf.batch_change_interval}")
