"""Controller.sync_observers: told after a successful, non-dry-run sync with the names it covered; never after
a failed or refused one (the crd source writes DNSEndpoint status.observedGeneration from there)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from external_dns.controller.controller import Controller, RunOnceError, notify_synced
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource

ZONES = ["a.test", "b.test"]


class Seen:
    """A sync observer remembering (zone, which of NAMES the sync covered)."""

    NAMES = ("x.a.test", "y.b.test", "elsewhere.example")

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, list[str]]] = []

    def __call__(self, zone: str | None, covered: Callable[[str], bool]) -> None:
        self.calls.append((zone, [n for n in self.NAMES if covered(n)]))


def ep(name: str, target: str) -> Endpoint:
    return endpoints.ep(name, "A", target)


def make(dry_run: bool = False) -> tuple[Controller, Seen]:
    provider = InMemoryProvider(ZONES)
    source = StaticSource([ep("x.a.test", "1.2.3.4"), ep("y.b.test", "1.2.3.5")])
    controller = Controller(source, TXTRegistry(provider, owner_id="obs"), "sync", dry_run=dry_run)
    seen = Seen()
    controller.sync_observers.append(seen)
    return controller, seen


def test_successful_zone_syncs_tell_the_names_they_covered() -> None:
    controller, seen = make()
    assert controller.run_once(zone="a.test").applied
    assert seen.calls == [("a.test", ["x.a.test", "elsewhere.example"])]  # a name in no zone is never pending
    controller.run_once(zone="a.test")  # nothing to do is a success too
    controller.run_once()
    assert seen.calls[1:] == [("a.test", ["x.a.test", "elsewhere.example"]), (None, list(Seen.NAMES))]


def test_refused_failed_and_dry_run_syncs_tell_nothing() -> None:
    controller, seen = make()

    def refuse(zone: str | None, changes: Changes, *_: object) -> None:
        raise RuntimeError("unsafe")

    controller.add_pre_apply_check(refuse)
    with pytest.raises(RunOnceError):
        controller.run_once(zone="a.test")
    controller.pre_apply_checks.clear()

    def boom(changes: Changes) -> None:
        raise RuntimeError("provider down")

    controller.registry.apply_changes = boom  # type: ignore[method-assign]
    with pytest.raises(RunOnceError):
        controller.run_once()
    assert seen.calls == []

    dry, dry_seen = make(dry_run=True)
    dry.run_once()
    assert dry_seen.calls == []


def test_a_failing_observer_never_breaks_a_sync() -> None:
    def broken(zone: str | None, covered: Callable[[str], bool]) -> None:
        raise ValueError("observer bug")

    seen = Seen()
    notify_synced([broken, seen], "b.test", ZONES)
    assert seen.calls == [("b.test", ["y.b.test", "elsewhere.example"])]
