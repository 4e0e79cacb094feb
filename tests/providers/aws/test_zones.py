"""Route53 hosted zones (providers/aws/zones.py) through an injected client: every page listed (a repeated marker
ends the listing), the zone id, type, domain, parent and tag filters, the cache on the injected timer, and which
zones a record name goes to."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.providers.aws.config import AWSConfig
from external_dns.providers.aws.zones import HostedZone, ZoneLister, bare_zone_id, suitable_zones


def raw(zone_id: str, name: str, private: bool = False) -> dict[str, Any]:
    return {"Id": f"/hostedzone/{zone_id}", "Name": name, "Config": {"PrivateZone": private}}


class Route53:
    """list_hosted_zones in pages of `page` zones, and list_tags_for_resources; counts the calls."""

    def __init__(self, zones: list[dict[str, Any]], page: int = 2, tags: dict[str, dict[str, str]] | None = None,
                 stuck_marker: bool = False) -> None:
        self.zones, self.page, self.tags, self.stuck_marker = zones, page, tags or {}, stuck_marker
        self.calls: list[str] = []

    def list_hosted_zones(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(f"list {kwargs.get('Marker', '')}")
        start = int(kwargs.get("Marker", "0"))
        end = start + self.page
        out: dict[str, Any] = {"HostedZones": self.zones[start:end], "IsTruncated": end < len(self.zones)}
        if end < len(self.zones):
            out["NextMarker"] = str(start) if self.stuck_marker and start else str(end)  # stuck: the same marker again
        return out

    def list_tags_for_resources(self, ResourceType: str, ResourceIds: list[str]) -> dict[str, Any]:
        assert ResourceType == "hostedzone" and len(ResourceIds) <= 10
        self.calls.append(f"tags {','.join(ResourceIds)}")
        return {"ResourceTagSets": [{"ResourceId": f"/hostedzone/{i}",
                                     "Tags": [{"Key": k, "Value": v} for k, v in self.tags.get(i, {}).items()]}
                                    for i in ResourceIds]}


ZONES = [raw("Z1", "Example.org."), raw("Z2", "internal.example.org.", private=True), raw("Z3", "example.com."),
         raw("Z4", "sub.example.org.")]


def names(zones: list[HostedZone]) -> list[str]:
    return [f"{z.name}:{z.id}{':private' if z.private else ''}" for z in zones]


def test_every_page_is_listed_sorted_by_name() -> None:
    client = Route53(ZONES, page=1)
    zones = ZoneLister(AWSConfig(), {"default": client}).zones()
    assert names(zones) == ["example.com:Z3", "example.org:Z1", "internal.example.org:Z2:private", "sub.example.org:Z4"]
    assert client.calls == ["list ", "list 1", "list 2", "list 3"] and zones[0].profile == "default"


def test_a_repeated_marker_ends_the_listing() -> None:
    client = Route53(ZONES, page=1, stuck_marker=True)
    assert len(ZoneLister(AWSConfig(), {"default": client}).zones()) == 2  # page 0, page 1 answering its own marker
    assert client.calls == ["list ", "list 1"]


@pytest.mark.parametrize(("config", "kept"), [
    (AWSConfig(zone_id_filter=["Z1", "Z3"]), ["example.com:Z3", "example.org:Z1"]),
    (AWSConfig(zone_type="private"), ["internal.example.org:Z2:private"]),
    (AWSConfig(zone_type="public"), ["example.com:Z3", "example.org:Z1", "sub.example.org:Z4"]),
    (AWSConfig(domain_filter=DomainFilter(["sub.example.org"])), ["sub.example.org:Z4"]),
    (AWSConfig(domain_filter=DomainFilter(["app.sub.example.org"]), zone_match_parent=True),
     ["example.org:Z1", "sub.example.org:Z4"]),
])
def test_zone_filters(config: AWSConfig, kept: list[str]) -> None:
    assert names(ZoneLister(config, {"default": Route53(ZONES)}).zones()) == kept


def test_tag_filters_need_every_tag_and_value() -> None:
    client = Route53(ZONES, tags={"Z1": {"env": "prod", "team": "dns"}, "Z3": {"env": "dev", "team": "dns"},
                                  "Z4": {"team": ""}})
    lister = ZoneLister(AWSConfig(zone_tags=["team", "env=prod"]), {"default": client})
    assert names(lister.zones()) == ["example.org:Z1"]
    assert names(ZoneLister(AWSConfig(zone_tags=["team"]), {"default": client}).zones()) == [
        "example.com:Z3", "example.org:Z1", "sub.example.org:Z4"]


def test_the_zone_list_is_cached_for_its_duration() -> None:
    now = [0.0]
    client = Route53(ZONES, page=10)
    lister = ZoneLister(AWSConfig(zones_cache_duration=60), {"default": client}, timer=lambda: now[0])
    lister.zones()
    lister.zones()
    assert len(client.calls) == 1
    now[0] = 61.0
    lister.zones()
    assert len(client.calls) == 2
    lister.invalidate()
    lister.zones()
    assert len(client.calls) == 3


def test_profiles_are_listed_each() -> None:
    lister = ZoneLister(AWSConfig(), {"a": Route53(ZONES[:1]), "b": Route53(ZONES[2:3])})
    assert [(z.name, z.profile) for z in lister.zones()] == [("example.com", "b"), ("example.org", "a")]


def test_suitable_zones_every_private_one_and_the_longest_public_one() -> None:
    zones = [HostedZone("Z1", "example.org", False), HostedZone("Z4", "sub.example.org", False),
             HostedZone("Z2", "sub.example.org", True), HostedZone("Z5", "example.org", True)]
    assert [z.id for z in suitable_zones("WWW.sub.example.org.", zones)] == ["Z2", "Z5", "Z4"]
    assert [z.id for z in suitable_zones("www.example.org", zones)] == ["Z5", "Z1"]
    assert suitable_zones("www.badexample.org", zones) == []
    assert bare_zone_id("/hostedzone/Z1ABC") == "Z1ABC" == bare_zone_id("Z1ABC")
