"""providers/apizones.py without a server: kept zones within cache_seconds (no listing), dirty names read again by
name (and kept dirty when that read fails), our writes folded in, the zone list reused, requests packed by group,
and a refused transactional request split until the refused group stands alone."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.apizones import (
    APIZone,
    KeptZonesProvider,
    RequestRefused,
    WriteGroup,
    chunk_groups,
    send_bisecting,
)
from external_dns.providers.errors import SoftError

ZONE = APIZone("example.org", "z1")
Rec = tuple[str, str]  # (name, address)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Fake(KeptZonesProvider[APIZone, Rec]):
    def __init__(self, cache: float, clock: Clock) -> None:
        super().__init__(cache, 60.0, clock)
        self.data: list[Rec] = [("a.example.org", "192.0.2.1"), ("b.example.org", "192.0.2.2")]
        self.calls: list[str] = []
        self.fail_reads = False

    def _list_zones(self) -> Iterable[APIZone]:
        self.calls.append("zones")
        return [ZONE]

    def _list_records(self, zone: APIZone) -> Iterable[Rec]:
        self.calls.append("list")
        return list(self.data)

    def _read_name(self, zone: APIZone, name: str) -> list[Rec]:
        self.calls.append(f"read {name}")
        if self.fail_reads:
            raise SoftError("down")
        return [r for r in self.data if r[0] == name]

    def _record_name(self, record: Rec) -> str:
        return record[0]

    def _to_endpoints(self, zone: APIZone, records: list[Rec]) -> list[Endpoint]:
        return [Endpoint(records[0][0], "A", Targets(sorted(r[1] for r in records)))]

    def apply_changes(self, changes: Changes) -> None:  # not under test here
        raise NotImplementedError


def targets(provider: Fake) -> dict[str, list[str]]:
    return {ep.dns_name: list(ep.targets) for ep in provider.zone_records("example.org")}


def test_kept_within_cache_seconds_then_listed_again() -> None:
    clock = Clock()
    provider = Fake(30.0, clock)
    assert targets(provider) == {"a.example.org": ["192.0.2.1"], "b.example.org": ["192.0.2.2"]}
    provider.data.append(("c.example.org", "192.0.2.3"))
    clock.now = 29.0
    assert "c.example.org" not in targets(provider)
    assert provider.calls == ["zones", "list"]
    clock.now = 30.0
    assert "c.example.org" in targets(provider)
    assert provider.calls == ["zones", "list", "list"]


def test_no_cache_lists_every_time() -> None:
    provider = Fake(0.0, Clock())
    provider.records()
    provider.records()
    assert provider.calls.count("list") == 2


def test_dirty_names_are_read_again_by_name_and_stay_dirty_when_that_fails() -> None:
    provider = Fake(300.0, Clock())
    provider.records()
    provider.data = [("a.example.org", "198.51.100.9"), ("b.example.org", "192.0.2.2")]
    provider.mark_dirty(ZONE, ["A.example.org."])
    assert provider.kept_at(ZONE, "a.example.org") is None
    provider.fail_reads = True
    with pytest.raises(SoftError):
        provider.records()
    provider.fail_reads = False
    assert targets(provider)["a.example.org"] == ["198.51.100.9"]
    assert provider.calls.count("read a.example.org") == 2 and provider.calls.count("list") == 1


def test_writes_are_folded_in_and_current_at_reads_only_what_is_unknown_or_old() -> None:
    clock = Clock()
    provider = Fake(300.0, clock)
    provider.records()
    provider.store(ZONE, "new.example.org", [("new.example.org", "192.0.2.7")])
    assert targets(provider)["new.example.org"] == ["192.0.2.7"]
    assert provider.current_at(ZONE, "a.example.org") == [("a.example.org", "192.0.2.1")]
    assert "read a.example.org" not in provider.calls
    clock.now = 10.0
    provider.current_at(ZONE, "a.example.org", max_age=5.0)  # kept 10 s ago: read again
    provider.current_at(ZONE, "a.example.org", max_age=5.0)  # just read: kept
    assert provider.calls.count("read a.example.org") == 1
    provider.store(ZONE, "new.example.org", [])
    assert "new.example.org" not in targets(provider)


def test_zone_list_reused_and_domain_filter() -> None:
    provider = Fake(0.0, Clock())
    assert provider.zones() == ("example.org",)
    assert provider.get_domain_filter().match("x.example.org")
    assert not provider.get_domain_filter().match("example.com")
    provider.zones()
    assert provider.calls.count("zones") == 1
    assert provider.zone_of("deep.a.example.org") == ZONE and provider.zone_of("example.net") is None


def group(key: str, size: int) -> WriteGroup[int]:
    return WriteGroup(key, {key}, list(range(size)))


def test_groups_are_packed_whole_and_a_large_one_goes_alone() -> None:
    chunks = chunk_groups([group("a", 3), group("b", 3), group("c", 5), group("d", 1)], 6)
    assert [[g.key for g in c] for c in chunks] == [["a", "b"], ["c", "d"]]
    assert [[g.key for g in c] for c in chunk_groups([group("a", 9), group("b", 1)], 6)] == [["a"], ["b"]]


def test_a_refused_request_is_split_until_the_refused_group_stands_alone() -> None:
    sent: list[list[str]] = []

    def send(part: list[WriteGroup[int]]) -> None:
        sent.append([g.key for g in part])
        if any(g.key in ("c", "f") for g in part):
            raise RequestRefused("no")

    groups = [group(k, 1) for k in "abcdefgh"]
    done, refused, requests = send_bisecting(groups, send)
    assert sorted(g.key for g in done) == ["a", "b", "d", "e", "g", "h"]
    assert sorted(g.key for g, _ in refused) == ["c", "f"]
    assert requests == len(sent) <= 1 + 2 + 4 + 4  # O(k log n), not one per group


def test_a_soft_error_stops_the_splitting() -> None:
    def send(part: list[WriteGroup[int]]) -> None:
        raise SoftError("throttled")

    with pytest.raises(SoftError):
        send_bisecting([group("a", 1), group("b", 1)], send)
