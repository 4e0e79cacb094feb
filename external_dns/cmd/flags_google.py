"""Google Cloud DNS provider flags (`--google-*`), names and defaults as external-dns, plus
`--google-api-endpoint` (ours: the client has no environment variable for it); checked when
`--provider=google`. Credentials are Application Default Credentials. cmd/build_providers.build_google turns
them into the provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

VISIBILITIES = ("", "public", "private")


def add_flags(p: FlagParser) -> None:
    p.group("Google Cloud DNS provider")
    p.add("--google-project", default="",
          help="project of the managed zones (default: detected from the credentials or the metadata server)")
    p.add("--google-batch-change-size", type=int, default=1000, help="most record sets per change request")
    p.add("--google-batch-change-interval", type=duration, default=1.0, help="pause between change requests")
    p.add("--google-zone-visibility", default="", choices=VISIBILITIES, help="only public or only private zones")
    p.add("--google-api-endpoint", default="",
          help="Cloud DNS API endpoint (default https://dns.googleapis.com/; not an external-dns flag)")


@flag_group
class GoogleFlags(FlagGroup):
    project: str = flag("--google-project")
    batch_change_size: int = flag("--google-batch-change-size")
    batch_change_interval: float = flag("--google-batch-change-interval")
    zone_visibility: str = flag("--google-zone-visibility")
    api_endpoint: str = flag("--google-api-endpoint")


def validate(cfg: Config) -> None:
    g = cfg.google
    if cfg.core.provider == "google":
        if g.batch_change_size < 1:
            raise ConfigError(f"--google-batch-change-size must be at least 1, got {g.batch_change_size}")
        if g.api_endpoint and not g.api_endpoint.startswith(("http://", "https://")):
            raise ConfigError(f"--google-api-endpoint must be an http:// or https:// URL, got {g.api_endpoint!r}")
