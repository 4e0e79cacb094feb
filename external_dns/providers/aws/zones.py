"""Route53 hosted zones: listing (every page, every profile), filtering (`--zone-id-filter`,
`--aws-zone-type`, the domain filter or `--aws-zone-match-parent`, `--aws-zone-tags`), caching for
`--aws-zones-cache-duration` (a cachetools TTLCache), and choosing the zones a record name belongs to
(`suitable_zones`: every matching private zone plus the longest matching public zone).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import botocore.exceptions
import structlog
from cachetools import TTLCache

from external_dns.endpoint.names import name_key
from external_dns.providers.aws import errors
from external_dns.providers.aws.config import AWSConfig
from external_dns.providers.aws.records import strip_dot

log = structlog.get_logger(__name__)

_TAG_BATCH = 10
_ZONES_PAGE = "100"
_MAX_PAGES = 100_000


@dataclass(frozen=True)
class HostedZone:
    """One hosted zone: bare id (`Z1ABC`), name without trailing dot, lower case."""

    id: str
    name: str
    private: bool
    profile: str = ""

    @property
    def full_id(self) -> str:
        return f"/hostedzone/{self.id}"


def bare_zone_id(zone_id: str) -> str:
    return zone_id.rsplit("/", 1)[-1]


def _parse_tags(specs: Sequence[str]) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for spec in specs:
        key, sep, value = spec.partition("=")
        out.append((key.strip(), value.strip() if sep else None))
    return out


class ZoneLister:
    """Lists and filters hosted zones, caching the result when `zones_cache_duration` > 0."""

    def __init__(self, config: AWSConfig, clients: Mapping[str, Any],
                 timer: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clients = clients
        self._tags = _parse_tags(config.zone_tags)
        self._lock = threading.Lock()
        self._cache: TTLCache[str, list[HostedZone]] | None = (
            TTLCache(maxsize=1, ttl=config.zones_cache_duration, timer=timer)
            if config.zones_cache_duration > 0 else None
        )

    def invalidate(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.clear()

    def zones(self) -> list[HostedZone]:
        """The managed zones (from the cache while it is fresh). Raises SoftError / ProviderError."""
        with self._lock:
            if self._cache is not None:
                cached = self._cache.get("zones")
                if cached is not None:
                    return list(cached)
        zones: list[HostedZone] = []
        for profile, client in self.clients.items():
            zones.extend(self._list_profile(profile, client))
        zones.sort(key=lambda z: (z.name, z.id))
        with self._lock:
            if self._cache is not None:
                self._cache["zones"] = list(zones)
        return zones

    def _list_profile(self, profile: str, client: Any) -> list[HostedZone]:
        candidates: list[HostedZone] = []
        kwargs: dict[str, Any] = {"MaxItems": _ZONES_PAGE}
        try:
            for _ in range(_MAX_PAGES):
                page = client.list_hosted_zones(**kwargs)
                for raw in page.get("HostedZones", []):
                    zone = HostedZone(
                        id=bare_zone_id(raw["Id"]),
                        name=strip_dot(raw["Name"]).lower(),
                        private=bool((raw.get("Config") or {}).get("PrivateZone", False)),
                        profile=profile,
                    )
                    if self._keep(zone):
                        candidates.append(zone)
                marker = page.get("NextMarker")
                if not page.get("IsTruncated") or not marker or marker == kwargs.get("Marker"):
                    break
                kwargs["Marker"] = marker
            if self._tags and candidates:
                candidates = self._filter_tags(client, candidates)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
            if errors.is_soft(exc):
                log.warning(f"Skipping AWS profile \"{profile}\" due to provider side throttling", profile=profile,
                            error=errors.describe(exc))
            raise errors.wrap("failed to list hosted zones", exc, every_zone=True) from None
        return candidates

    def _keep(self, zone: HostedZone) -> bool:
        cfg = self.config
        if cfg.zone_id_filter and not any(zone.full_id.endswith(f) for f in cfg.zone_id_filter):
            return False
        if cfg.zone_type == "public" and zone.private:
            return False
        if cfg.zone_type == "private" and not zone.private:
            return False
        if cfg.domain_filter.match(zone.name):
            return True
        return cfg.zone_match_parent and cfg.domain_filter.match_parent(zone.name)

    def _filter_tags(self, client: Any, zones: list[HostedZone]) -> list[HostedZone]:
        kept: list[HostedZone] = []
        for i in range(0, len(zones), _TAG_BATCH):
            chunk = zones[i:i + _TAG_BATCH]
            resp = client.list_tags_for_resources(ResourceType="hostedzone", ResourceIds=[z.id for z in chunk])
            tags_by_id = {
                bare_zone_id(item["ResourceId"]): {t["Key"]: t.get("Value", "") for t in item.get("Tags", [])}
                for item in resp.get("ResourceTagSets", [])
            }
            for zone in chunk:
                tags = tags_by_id.get(zone.id, {})
                if all(k in tags and (v is None or tags[k] == v) for k, v in self._tags):
                    kept.append(zone)
        return kept


def _in_zone(name: str, zone: str) -> bool:
    return name == zone or name.endswith("." + zone)


def suitable_zones(name: str, zones: Sequence[HostedZone]) -> list[HostedZone]:
    """Where a record `name` goes: every private zone containing it and the longest public zone containing
    it (a name may so go to several zones)."""
    bare = name_key(name)
    out: list[HostedZone] = []
    public: HostedZone | None = None
    for zone in zones:
        if not _in_zone(bare, zone.name):
            continue
        if zone.private:
            out.append(zone)
        elif public is None or len(zone.name) > len(public.name):
            public = zone
    if public is not None:
        out.append(public)
    return out
