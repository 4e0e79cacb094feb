"""One source read per periodic pass, shared by its zones (controller/pass_read.py): read once on the first take,
split by closest zone, each share taken once; a zone reads by itself after a failed read or a whole-source run
since the read; names read by name since the read are read again into the share."""

from __future__ import annotations

from collections.abc import Collection

from external_dns.controller.controller import Controller
from external_dns.controller.pass_read import PassRead
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.helpers.endpoints import ep
from tests.helpers.sources import StaticSource

ZONES = ["a.test", "sub.a.test", "b.test"]


class ByName(StaticSource):
    """Also answers by name, counting those reads."""

    def __init__(self, endpoints: list[Endpoint]) -> None:
        super().__init__(endpoints)
        self.by_name: list[set[str]] = []

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        self.by_name.append(set(names))
        return [e.copy() for e in self.desired if e.dns_name in names]


def desired() -> list[Endpoint]:
    return [ep("www.a.test", "A", "10.0.0.1"), ep("x.sub.a.test", "A", "10.0.0.2"), ep("www.b.test", "A", "10.0.0.3")]


def pass_read(source: StaticSource, runs: dict[str, int] | None = None) -> PassRead:
    controller = Controller(source, TXTRegistry(InMemoryProvider(ZONES), owner_id="o"), "sync")
    return PassRead(controller, ZONES, runs if runs is not None else {})


def names(eps: list[Endpoint] | None) -> list[str]:
    assert eps is not None
    return sorted(e.dns_name for e in eps)


def test_one_read_split_by_closest_zone_each_share_once() -> None:
    source = StaticSource(desired())
    shared = pass_read(source)
    assert shared.pending("a.test") and not shared.pending("c.test")
    assert names(shared.take("a.test")) == ["www.a.test"]  # x.sub.a.test is sub.a.test's
    assert shared.take("a.test") is None and not shared.pending("a.test")  # once
    assert names(shared.take("sub.a.test")) == ["x.sub.a.test"]
    assert names(shared.take("b.test")) == ["www.b.test"]
    assert source.calls == 1 and shared.reads == 1
    assert shared.take("c.test") is None  # not one of the pass's zones


def test_a_failed_read_sends_every_zone_to_read_by_itself() -> None:
    source = StaticSource(desired())
    source.fail = ConnectionError("API server unreachable")
    shared = pass_read(source)
    assert shared.take("a.test") is None and shared.take("b.test") is None
    assert source.calls == 1 and shared.reads == 0  # tried once, not per zone


def test_a_whole_source_run_since_the_read_means_reading_by_itself() -> None:
    runs: dict[str, int] = {}
    shared = pass_read(StaticSource(desired()), runs)
    assert names(shared.take("a.test")) == ["www.a.test"]  # the read happens here
    runs["b.test"] = 1  # b's event run read the whole source after the pass's read began
    assert shared.take("b.test") is None
    assert names(shared.take("sub.a.test")) == ["x.sub.a.test"]


def test_names_read_by_name_since_the_read_are_read_again() -> None:
    source = ByName(desired())
    shared = pass_read(source)
    shared.names_read(["www.b.test"])  # before the read began: not recorded
    assert names(shared.take("a.test")) == ["www.a.test"]
    source.set([*desired()[:2], ep("www.b.test", "A", "10.9.9.9"), ep("new.b.test", "A", "10.0.0.4")])
    shared.names_read(["www.b.test", "new.b.test"])  # an event run read (and may have written) these
    share = shared.take("b.test")
    assert share is not None and {(e.dns_name, e.targets[0]) for e in share} == {
        ("www.b.test", "10.9.9.9"), ("new.b.test", "10.0.0.4")}
    assert source.by_name == [{"www.b.test", "new.b.test"}] and shared.overlaid == 2


def test_a_source_that_cannot_read_by_name_reads_by_itself() -> None:
    shared = pass_read(StaticSource(desired()))
    shared.take("a.test")
    shared.names_read(["www.b.test"])
    assert shared.take("b.test") is None  # StaticSource.endpoints_for_names is None


def test_close_drops_the_shares_not_taken() -> None:
    shared = pass_read(StaticSource(desired()))
    shared.take("a.test")
    shared.close()
    assert not shared.pending("b.test") and shared.take("b.test") is None
    shared.names_read(["www.b.test"])  # after close: nothing recorded, no error
