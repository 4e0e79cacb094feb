"""Flags of the local providers (inmemory, zonefile) and of the provider record cache."""

from __future__ import annotations

import argparse

from external_dns.cmd.flags import ConfigError, FlagParser, duration


def add_flags(p: FlagParser) -> None:
    p.group("inmemory and zonefile providers")
    p.add("--inmemory-zone", repeat=True, help="zone of the inmemory provider (repeatable)")
    p.add("--zonefile-dir", default="",
          help="directory of RFC 1035 zone files (<zone>.zone or db.<zone>) for --provider=zonefile")
    p.add("--zonefile-create-zone", repeat=True,
          help="create an empty zone file (SOA + NS) for this zone when none exists (repeatable)")
    p.add("--provider-cache-time", type=duration, default=0.0,
          help="serve the provider's record listing from memory for this long (0 = off)")


def validate(cfg: argparse.Namespace) -> None:
    if cfg.provider_cache_time < 0:
        raise ConfigError(f"--provider-cache-time must not be negative, got {cfg.provider_cache_time}")
    if cfg.provider == "zonefile" and not cfg.zonefile_dir:
        raise ConfigError("--zonefile-dir must be set for --provider=zonefile")
    if cfg.zonefile_create_zone:
        from external_dns.endpoint.limits import ascii_name_problem  # lazy: keeps flag parsing light

        for zone in cfg.zonefile_create_zone:
            problem = ascii_name_problem(zone, "zone name")
            if problem is not None:  # `x/y` would also escape --zonefile-dir
                raise ConfigError(f"--zonefile-create-zone: invalid {problem}")
