"""Start-up warnings for a scope that matches nothing: a run over it plans nothing and reports every record
up to date, which reads as success. Each warning names what matched nothing: `--provider=inmemory` without a
zone, a `--zonefile-dir` holding no zone file, a `--domain-filter` entry inside none of the provider's zones.
The zones are listed once here (a provider that cannot list them is left to the sync, which reports it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

from external_dns.providers.provider import Provider

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

log = structlog.get_logger(__name__)


def _name(text: str) -> str:
    return text.strip().strip(".").lower()


def _overlaps(entry: str, zone: str) -> bool:
    """A filter entry selects names of `zone` when one lies within the other (`a.example.org` in
    `example.org`, or `example.org` around `a.example.org`)."""
    entry, zone = _name(entry), _name(zone)
    return entry == zone or entry.endswith("." + zone) or zone.endswith("." + entry) or not zone


def unmatched_filters(filters: Sequence[str], zones: Sequence[str]) -> list[str]:
    """The `--domain-filter` entries no zone overlaps."""
    return [f for f in filters if _name(f) and not any(_overlaps(f, z) for z in zones)]


def warn_scope(cfg: Config, provider: Provider) -> None:
    """Log a warning for each part of the configured scope that matches nothing."""
    core, local = cfg.core, cfg.local
    if core.provider == "inmemory" and not any(local.inmemory_zones):
        log.warning("--provider=inmemory has no zone: records go to one nameless zone held in memory and are "
                    "lost at exit (give --inmemory-zone)")
        return
    filters = [f for f in cfg.filters.domain_filter if _name(f)]
    if core.provider != "zonefile" and not filters:
        return
    try:
        zones = list(provider.zones())
    except Exception as exc:  # the first sync lists them again and reports the failure
        log.debug(f"zones not listed at start-up: {exc}")
        return
    if core.provider == "zonefile" and not zones:
        log.warning(f"--zonefile-dir={local.zonefile_dir} holds no zone file (<zone>.zone or db.<zone>) and no "
                    "--zonefile-create-zone is given: nothing will be planned or written")
        return
    for entry in unmatched_filters(filters, zones):
        shown = ", ".join(zones) if zones else "none"
        log.warning(f"--domain-filter={entry} matches no zone of --provider={core.provider} (its zones: {shown}): "
                    "no record under it will be planned")
