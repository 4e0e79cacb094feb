"""Flags of the local providers (inmemory, zonefile) and of the provider record cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.durations import format_go_duration as go

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


def add_flags(p: FlagParser) -> None:
    p.group("inmemory and zonefile providers")
    p.add("--inmemory-zone", repeat=True, help="zone of the inmemory provider (repeatable)")
    p.add("--zonefile-dir", default="",
          help="directory of RFC 1035 zone files (<zone>.zone or db.<zone>) for --provider=zonefile")
    p.add("--zonefile-create-zone", repeat=True,
          help="create an empty zone file (SOA + NS) for this zone when none exists (repeatable)")
    p.add("--provider-cache-time", type=duration, default=0.0,
          help="serve the provider's record listing from memory for this long (0 = off)")


@flag_group
class LocalProviderFlags(FlagGroup):
    """The inmemory and zonefile providers, and the provider record cache."""

    inmemory_zones: tuple[str, ...] = flag("--inmemory-zone")
    zonefile_dir: str = flag("--zonefile-dir")
    zonefile_create_zones: tuple[str, ...] = flag("--zonefile-create-zone")
    provider_cache_time: float = flag("--provider-cache-time")


def validate(cfg: Config) -> None:
    local = cfg.local
    if local.provider_cache_time < 0:
        raise ConfigError(f"--provider-cache-time must not be negative, got {go(local.provider_cache_time)}")
    if cfg.core.provider == "zonefile" and not local.zonefile_dir:
        raise ConfigError("--zonefile-dir must be set for --provider=zonefile")
    if local.zonefile_create_zones:
        from external_dns.endpoint.limits import ascii_name_problem  # lazy: keeps flag parsing light

        for zone in local.zonefile_create_zones:
            problem = ascii_name_problem(zone, "zone name")
            if problem is not None:  # `x/y` would also escape --zonefile-dir
                raise ConfigError(f"--zonefile-create-zone: invalid {problem}")
