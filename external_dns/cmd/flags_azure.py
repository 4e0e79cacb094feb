"""Azure DNS provider flags (`--azure-*`, `--zone-name-filter`), names and defaults as external-dns; checked when
`--provider=azure`. Credentials and the cloud's endpoints come from the azure.json file. cmd/build_providers.
build_azure turns them into the provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

DEFAULT_CONFIG_FILE = "/etc/kubernetes/azure.json"


def add_flags(p: FlagParser) -> None:
    p.group("Azure DNS provider")
    p.add("--azure-config-file", default=DEFAULT_CONFIG_FILE, help="the azure.json file (credentials, cloud)")
    p.add("--azure-resource-group", default="", help="resource group of the zones (overrides the file)")
    p.add("--azure-subscription-id", default="", help="subscription (overrides the file)")
    p.add("--azure-user-assigned-identity-client-id", default="",
          help="client id of the user-assigned managed identity (overrides the file)")
    p.add("--azure-zones-cache-duration", type=duration, default=0.0,
          help="reuse the zone list this long (0: 60 s)")
    p.add("--azure-maxretries-count", type=int, default=3, help="retries of one API request")
    p.add("--zone-name-filter", repeat=True, help="zones by name, besides the domain filter (repeatable)")


@flag_group
class AzureFlags(FlagGroup):
    config_file: str = flag("--azure-config-file")
    resource_group: str = flag("--azure-resource-group")
    subscription_id: str = flag("--azure-subscription-id")
    user_assigned_identity_client_id: str = flag("--azure-user-assigned-identity-client-id")
    zones_cache_duration: float = flag("--azure-zones-cache-duration")
    max_retries: int = flag("--azure-maxretries-count")
    zone_name_filter: tuple[str, ...] = flag("--zone-name-filter")


def validate(cfg: Config) -> None:
    if cfg.core.provider == "azure":
        if not cfg.azure.config_file:
            raise ConfigError("no Azure config file specified (--azure-config-file)")  # external-dns validation
        if cfg.azure.zones_cache_duration < 0:
            raise ConfigError("--azure-zones-cache-duration must not be negative")
