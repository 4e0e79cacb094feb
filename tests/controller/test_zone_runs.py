"""Which run a zone gets and what it reads (controller/zone_runs.py): a zone never synced, released by a pass,
or run without `incremental` gets the full run (the pass's shared read, else the whole source); later event
runs plan only the dirty names, read by name when the source names its changes, else found by comparing the
whole source with the baseline; a failed run does not count as synced and gives its names back."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from external_dns.controller.controller import Controller, ReadKind, RunOnceError
from external_dns.controller.zone_runs import ZoneRuns
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.helpers.endpoints import ep
from tests.helpers.sources import StaticSource

ZONES = ["a.test", "b.test"]


class Named(StaticSource):
    """Reports the names the test marks changed (`mark`) and answers by name, recording those reads."""

    def __init__(self, endpoints: list[Endpoint]) -> None:
        super().__init__(endpoints)
        self.dirty: set[str] = set()
        self.by_name: list[set[str]] = []

    def mark(self, *names: str) -> None:
        self.dirty.update(names)

    def take_dirty_names(self) -> set[str] | None:
        names, self.dirty = self.dirty, set()
        return names

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        self.by_name.append(set(names))
        if self.fail is not None:
            raise self.fail
        return [e.copy() for e in self.desired if e.dns_name in names]


def desired() -> list[Endpoint]:
    return [ep("www.a.test", "A", "10.0.0.1"), ep("api.a.test", "A", "10.0.0.2"), ep("www.b.test", "A", "10.0.0.3")]


def runs_of(source: StaticSource, *, incremental: bool = True) -> tuple[ZoneRuns, InMemoryProvider]:
    provider = InMemoryProvider(ZONES)
    controller = Controller(source, TXTRegistry(provider, owner_id="o"), "sync")
    return ZoneRuns(controller, incremental=incremental), provider


def targets(provider: InMemoryProvider, name: str) -> list[str]:
    return sorted(t for e in provider.records() if e.dns_name == name and e.record_type == "A" for t in e.targets)


def test_a_zone_never_synced_gets_the_full_run_of_the_whole_source() -> None:
    source = Named(desired())
    runs, provider = runs_of(source)
    assert not runs.synced_once("a.test")
    result = runs.sync("a.test")
    assert result.read is ReadKind.WHOLE and result.planned is None and source.calls == 1
    assert runs.synced_once("a.test") and not runs.synced_once("b.test")
    assert targets(provider, "www.a.test") == ["10.0.0.1"] and targets(provider, "www.b.test") == []


def test_an_event_run_plans_only_the_changed_names_read_by_name() -> None:
    source = Named(desired())
    runs, provider = runs_of(source)
    runs.sync("a.test")
    source.set([ep("www.a.test", "A", "10.0.0.9"), *desired()[1:]])
    source.mark("www.a.test")
    result = runs.sync("a.test")
    assert result.read is ReadKind.NAMES and result.planned == frozenset({"www.a.test"})
    assert source.by_name == [{"www.a.test"}] and source.calls == 1  # no whole read
    assert targets(provider, "www.a.test") == ["10.0.0.9"]


def test_zones_with_events_names_the_zones_of_changed_names() -> None:
    source = Named(desired())
    runs, _provider = runs_of(source)
    assert runs.zones_with_events(ZONES) == []  # nothing synced yet: every zone runs in full anyway
    runs.sync("a.test")
    runs.sync("b.test")
    source.mark("www.b.test")
    assert runs.zones_with_events(ZONES) == ["b.test"]


def test_a_released_zone_gets_its_full_run_once() -> None:
    source = Named(desired())
    runs, _provider = runs_of(source)
    runs.sync("a.test")
    runs.release("a.test")
    assert runs.full_due("a.test")
    assert runs.sync("a.test").read is ReadKind.WHOLE and source.calls == 2
    assert not runs.full_due("a.test")
    source.mark("api.a.test")
    assert runs.sync("a.test").read is ReadKind.NAMES and source.calls == 2


def test_without_incremental_every_run_is_full() -> None:
    source = Named(desired())
    runs, _provider = runs_of(source, incremental=False)
    runs.sync("a.test")
    source.mark("www.a.test")
    result = runs.sync("a.test")
    assert result.read is ReadKind.WHOLE and result.planned is None and source.calls == 2
    assert runs.zones_with_events(ZONES) is None and source.by_name == []


def test_a_pass_reads_the_source_once_for_its_zones() -> None:
    source = Named(desired())
    runs, provider = runs_of(source)
    runs.begin_pass(ZONES)
    for zone in ZONES:
        runs.release(zone)
    assert runs.sync("a.test").read is ReadKind.SHARED and runs.share_gone("a.test")
    assert not runs.share_gone("b.test")
    assert runs.sync("b.test").read is ReadKind.SHARED
    assert source.calls == 1 and targets(provider, "www.b.test") == ["10.0.0.3"]


def test_a_source_that_cannot_name_changes_is_compared_with_the_baseline() -> None:
    source = StaticSource(desired())
    runs, provider = runs_of(source)
    runs.sync("a.test")
    source.set([desired()[0], ep("api.a.test", "A", "10.0.0.7"), desired()[2]])
    result = runs.sync("a.test")
    assert result.read is ReadKind.NAMES and result.planned == frozenset({"api.a.test"})  # www unchanged
    assert source.calls == 2 and targets(provider, "api.a.test") == ["10.0.0.7"]
    assert targets(provider, "www.a.test") == ["10.0.0.1"]


def test_a_failed_first_run_is_not_synced_and_runs_in_full_again() -> None:
    source = Named(desired())
    source.fail = ConnectionError("API server unreachable")
    runs, provider = runs_of(source)
    with pytest.raises(RunOnceError):
        runs.sync("a.test")
    assert not runs.synced_once("a.test") and provider.records() == []
    source.fail = None
    assert runs.sync("a.test").read is ReadKind.WHOLE and runs.synced_once("a.test")


def test_a_failed_event_run_gives_its_names_back() -> None:
    source = Named(desired())
    runs, provider = runs_of(source)
    runs.sync("a.test")
    source.set([ep("www.a.test", "A", "10.0.0.9"), *desired()[1:]])
    source.mark("www.a.test")
    source.fail = ConnectionError("API server unreachable")
    with pytest.raises(RunOnceError):
        runs.sync("a.test")
    assert targets(provider, "www.a.test") == ["10.0.0.1"]
    source.fail = None
    runs.sync("a.test")  # no new event: the owed name is planned again (by name, or in a full run)
    assert targets(provider, "www.a.test") == ["10.0.0.9"]
