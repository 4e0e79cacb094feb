"""ZoneController: zone-keyed reconciles on workqueue workers over the real TXT registry and the in-memory
and zone-file providers (parallel zones, consistency with one global plan, retries with back-off, bursts,
shutdown with drain, restart, events, watchdog)."""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from external_dns.controller.controller import Controller, ReadKind, RunOnceError
from external_dns.controller.health import WorkerWatchdog
from external_dns.controller.zone_controller import ZoneController
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import SoftError, zone_for_name
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.registry import TXTRegistry
from external_dns.registry.noop import NoopRegistry
from external_dns.workqueue import ItemExponentialFailureRateLimiter
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource
from tests.helpers.threads import thread_leak_check

OWNER = "zone-test"
SVC = {"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "default", "name": "web", "uid": "u1"}}


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


class HookedProvider(InMemoryProvider):
    """In-memory provider with a per-zone hook run before every write."""

    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.hook: Callable[[str, Changes], None] | None = None
        self.writes: list[tuple[str, float]] = []

    def apply_changes(self, changes: Changes) -> None:
        names = [e.dns_name for e in [*changes.create, *changes.update_new, *changes.delete]]
        zone = zone_for_name(names[0], self.zones()) or "" if names else ""
        if self.hook is not None:
            self.hook(zone, changes)
        self.writes.append((zone, time.monotonic()))
        super().apply_changes(changes)


def ep(name: str, rtype: str, *targets: str, obj: Mapping[str, Any] | None = SVC) -> Endpoint:
    if obj is None:
        return endpoints.ep(name, rtype, *targets)
    e = endpoints.ep(name, rtype, *targets, resource=f"service/{obj['metadata']['namespace']}/{obj['metadata']['name']}")
    e.ref_objects.append(obj)
    return e


def stored(provider: InMemoryProvider) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): list(e.targets) for e in provider.records()}


def fast_limiter() -> ItemExponentialFailureRateLimiter:
    return ItemExponentialFailureRateLimiter(base=0.02, max_delay=1.0)


def make(zones: list[str], desired: list[Endpoint], *, dry_run: bool = False,
         **kw: Any) -> tuple[ZoneController, StaticSource, HookedProvider]:
    provider = HookedProvider(zones)
    source = StaticSource(desired)
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync", domain_filter=DomainFilter(),
                     dry_run=dry_run)
    kw.setdefault("rate_limiter_factory", fast_limiter)
    return ZoneController(ctl, **kw), source, provider


TWO_ZONES = ["a.test", "b.test"]


def two_zone_records() -> list[Endpoint]:
    return [ep("www.a.test", "A", "10.0.0.1"), ep("api.a.test", "CNAME", "www.a.test"),
            ep("www.b.test", "A", "10.0.0.2"), ep("deep.sub.b.test", "AAAA", "2001:db8::2"),
            ep("outside.c.test", "A", "10.0.0.3")]


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels or None)
    return 0.0 if value is None else value


# -- consistency with the global plan -------------------------------------------------------------------------
def _change_keys(changes: Changes) -> dict[str, set[tuple[str, str, tuple[str, ...]]]]:
    def keys(eps: list[Endpoint]) -> set[tuple[str, str, tuple[str, ...]]]:
        return {(e.dns_name, e.record_type, tuple(e.targets)) for e in eps}
    return {"create": keys(changes.create), "update_old": keys(changes.update_old),
            "update_new": keys(changes.update_new), "delete": keys(changes.delete)}


def test_per_zone_plans_equal_the_global_plan() -> None:
    zones = ["example.org", "sub.example.org", "other.net"]
    provider = InMemoryProvider(zones)
    seed = Controller(StaticSource([ep("keep.example.org", "A", "1.1.1.1"), ep("old.sub.example.org", "A", "2.2.2.2"),
                                  ep("change.other.net", "A", "3.3.3.3"), ep("gone.other.net", "TXT", "x")]),
                      TXTRegistry(provider, owner_id=OWNER), "sync")
    seed.run_once()
    desired = [ep("keep.example.org", "A", "1.1.1.1"), ep("new.example.org", "A", "4.4.4.4"),
               ep("x.sub.example.org", "CNAME", "keep.example.org"), ep("change.other.net", "A", "3.3.3.9"),
               ep("nozone.invalid", "A", "5.5.5.5"), ep("sub.example.org", "A", "6.6.6.6")]
    ctl = Controller(StaticSource(desired), TXTRegistry(provider, owner_id=OWNER), "sync", dry_run=True)
    whole = _change_keys(ctl.run_once().changes)
    merged: dict[str, set[tuple[str, str, tuple[str, ...]]]] = {k: set() for k in whole}
    zc = ZoneController(ctl)
    per_zone = zc.run_pass(timeout=10)
    assert sorted(per_zone) == sorted(zones)
    for outcome in per_zone.values():
        assert outcome.ok and outcome.result is not None
        for k, v in _change_keys(outcome.result.changes).items():
            assert not merged[k] & v  # no change is planned by two zones
            merged[k] |= v
    assert merged == whole
    assert any(whole.values())
    # each zone's plan only holds names of that zone
    for zone, outcome in per_zone.items():
        assert outcome.result is not None
        for change in _change_keys(outcome.result.changes).values():
            assert all(zone_for_name(name, zones) == zone for name, _, _ in change)


def test_provider_without_zones_is_one_key() -> None:
    provider = InMemoryProvider([])
    ctl = Controller(StaticSource([ep("www.example.org", "A", "1.1.1.1")]), TXTRegistry(provider, owner_id=OWNER),
                     "sync", dry_run=True)
    zc = ZoneController(ctl)
    assert zc.zone_keys() == [""]
    outcome = zc.run_pass(timeout=10)[""]
    assert outcome.ok and outcome.result is not None and outcome.result.created == 1


# -- long-running behaviour -----------------------------------------------------------------------------------
def test_start_syncs_every_zone_and_zones_reconcile_in_parallel() -> None:
    zc, _, provider = make(TWO_ZONES, two_zone_records(), workers=2, interval=3600)
    barrier = threading.Barrier(2, timeout=5)
    in_parallel: list[str] = []

    def hook(zone: str, _changes: Changes) -> None:
        barrier.wait()  # both zones must be writing at the same time, or this breaks
        in_parallel.append(zone)

    provider.hook = hook
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 2, 10)
    finally:
        assert zc.stop(5)
    assert sorted(in_parallel) == TWO_ZONES
    assert all(o.ok for o in zc.outcomes())
    got = stored(provider)
    assert got[("www.a.test", "A")] == ["10.0.0.1"] and got[("deep.sub.b.test", "AAAA")] == ["2001:db8::2"]
    assert ("outside.c.test", "A") not in got


def test_failing_zone_is_retried_with_growing_delays_and_never_blocks_others() -> None:
    zc, _, provider = make(TWO_ZONES, two_zone_records(), workers=1, interval=3600)
    fails = {"a.test": 4}

    def hook(zone: str, _changes: Changes) -> None:
        if fails.get(zone, 0) > 0:
            fails[zone] -= 1
            raise SoftError(f"throttled ({zone})")

    provider.hook = hook
    soft_seen: list[float] = []
    zc.start()
    try:
        assert zc.wait_until(lambda: any(o.zone == "a.test" and o.ok for o in zc.outcomes()), 10)
        soft_seen.append(sample("external_dns_controller_consecutive_soft_errors"))
    finally:
        assert zc.stop(5)
    a = zc.outcomes("a.test")
    assert [o.ok for o in a] == [False, False, False, False, True]
    assert all(o.soft for o in a[:4])
    assert [o.requeues for o in a] == [0, 1, 2, 3, 4]
    gaps = [a[i + 1].started - a[i].finished for i in range(4)]
    for i, gap in enumerate(gaps):  # 20 ms, 40 ms, 80 ms, 160 ms of back-off
        assert gap >= 0.02 * 2**i * 0.9, gaps
    assert gaps[3] > gaps[0]
    b = zc.outcomes("b.test")
    assert b and b[0].ok
    assert b[0].finished < a[-1].started  # b was not held behind a's retries (one worker!)
    assert zc.failures("a.test") == 0
    assert soft_seen == [0.0]  # recovered: the gauge is back to 0
    assert stored(provider)[("www.a.test", "A")] == ["10.0.0.1"]


def test_soft_error_gauge_counts_consecutive_failures() -> None:
    zc, _, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")])

    def hook(_zone: str, _changes: Changes) -> None:
        raise SoftError("HTTP 503")

    provider.hook = hook
    assert not zc.reconcile("a.test")
    assert not zc.reconcile("a.test")
    assert sample("external_dns_controller_consecutive_soft_errors") == 2
    assert zc.failures("a.test") == 2
    provider.hook = None
    assert zc.reconcile("a.test")
    assert sample("external_dns_controller_consecutive_soft_errors") == 0


def test_hard_error_is_retried_without_crashing() -> None:
    zc, _, provider = make(TWO_ZONES, two_zone_records(), workers=2, interval=3600)
    fails = {"b.test": 2}

    def hook(zone: str, _changes: Changes) -> None:
        if fails.get(zone, 0) > 0:
            fails[zone] -= 1
            raise ValueError("provider said no")

    provider.hook = hook
    zc.start()
    try:
        assert zc.wait_until(lambda: any(o.zone == "b.test" and o.ok for o in zc.outcomes()), 10)
    finally:
        assert zc.stop(5)
    b = zc.outcomes("b.test")
    assert [o.ok for o in b] == [False, False, True]
    assert not any(o.soft for o in b)
    assert "provider said no" in b[0].error


def test_burst_of_events_gives_few_reconciles() -> None:
    zc, source, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], workers=2, interval=3600,
                                min_event_sync_interval=0.3)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 1, 10)
        before = len(zc.outcomes())
        for i in range(100):
            source.set([ep("www.a.test", "A", f"1.1.1.{i + 2}")])
            zc.on_event()
        assert zc.wait_until(lambda: stored(provider).get(("www.a.test", "A")) == ["1.1.1.101"], 10)
        # a little later, nothing else is pending
        assert not zc.wait_until(lambda: len(zc.outcomes()) > before + 3, 0.8)
    finally:
        assert zc.stop(5)
    after = len(zc.outcomes()) - before
    assert 1 <= after <= 3, after


def test_periodic_interval_resyncs_every_zone() -> None:
    zc, source, provider = make(TWO_ZONES, two_zone_records(), interval=0.2)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 2, 10)
        source.set([ep("www.a.test", "A", "10.9.9.9")])  # no event: only the interval picks it up
        assert zc.wait_until(lambda: stored(provider).get(("www.a.test", "A")) == ["10.9.9.9"], 10)
        assert zc.wait_until(lambda: ("www.b.test", "A") not in stored(provider), 10)
    finally:
        assert zc.stop(5)
    assert zc.passes >= 2


def test_stop_lets_in_flight_reconcile_finish_and_drops_queued_work() -> None:
    zc, _, provider = make(TWO_ZONES, two_zone_records(), workers=1, interval=3600)
    entered = threading.Event()
    release = threading.Event()

    def hook(zone: str, _changes: Changes) -> None:
        entered.set()
        assert release.wait(5)

    provider.hook = hook
    zc.start()
    assert entered.wait(5)
    result: list[bool] = []
    stopper = threading.Thread(target=lambda: result.append(zc.stop(5)))
    stopper.start()
    time.sleep(0.1)  # let stop() reach its drain wait (the reconcile is still blocked)
    assert stopper.is_alive()
    release.set()
    stopper.join(5)
    assert result == [True]
    assert len(provider.writes) == 1  # the in-flight zone finished; the queued one was not started
    assert not zc.running()


def test_stop_is_bounded_when_a_reconcile_hangs() -> None:
    zc, _, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], workers=1, interval=3600)
    entered = threading.Event()
    release = threading.Event()

    def hook(_zone: str, _changes: Changes) -> None:
        entered.set()
        release.wait(10)

    provider.hook = hook
    zc.start()
    assert entered.wait(5)
    started = time.monotonic()
    assert not zc.stop(0.3)
    assert time.monotonic() - started < 2.0
    release.set()  # let the worker thread end (the leak check waits for it)


def test_restart_after_stop_runs_a_fresh_pass() -> None:
    zc, source, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], interval=3600)
    zc.start()
    assert zc.wait_until(lambda: len(zc.outcomes()) == 1, 10)
    assert zc.stop(5)
    source.set([ep("www.a.test", "A", "2.2.2.2")])
    zc.on_event()  # not running: ignored
    zc.start()
    try:
        assert zc.wait_until(lambda: stored(provider).get(("www.a.test", "A")) == ["2.2.2.2"], 10)
    finally:
        assert zc.stop(5)


def test_pre_apply_check_refuses_a_zone() -> None:
    zc, _, provider = make(TWO_ZONES, two_zone_records())

    def refuse_b(zone: str | None, changes: Changes, current: Any, desired: Any) -> None:
        if zone == "b.test":
            raise RuntimeError(f"refusing {len(changes.create)} creates in {zone}")

    zc.controller.add_pre_apply_check(refuse_b)
    assert zc.reconcile("a.test")
    assert not zc.reconcile("b.test")
    outcome = zc.outcomes("b.test")[-1]
    assert "pre-apply check" in outcome.error and "refusing" in outcome.error
    assert all(zone == "a.test" for zone, _ in provider.writes)
    with pytest.raises(RunOnceError) as info:
        zc.controller.run_once(zone="b.test")
    assert info.value.step == "pre-apply check" and info.value.changes is not None


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool:
        self.events.append((f"{obj['kind']}/{obj['metadata']['name']}", type, reason, note))
        return True


def test_events_for_created_deleted_and_failed_records() -> None:
    recorder = FakeRecorder()
    zc, source, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], recorder=recorder)
    assert zc.reconcile("a.test")
    assert ("Service/web", "Normal", "RecordReady", "Record www.a.test A 1.1.1.1 created") in recorder.events
    recorder.events.clear()
    source.set([])
    assert zc.reconcile("a.test")
    # the deleted record comes from the registry: its object is found through the resource label
    assert ("Service/web", "Normal", "RecordDeleted", "Record www.a.test A 1.1.1.1 deleted") in recorder.events
    recorder.events.clear()

    def hook(_zone: str, _changes: Changes) -> None:
        raise SoftError("timeout talking to the DNS server")

    provider.hook = hook
    source.set([ep("new.a.test", "A", "3.3.3.3")])
    assert not zc.reconcile("a.test")
    assert recorder.events and all(e[1:3] == ("Warning", "RecordError") for e in recorder.events)
    assert "timeout talking to the DNS server" in recorder.events[0][3]
    assert "new.a.test" in recorder.events[0][3]


def test_watchdog_sees_a_stuck_worker() -> None:
    watchdog = WorkerWatchdog(max_stuck=0.05)
    zc, _, provider = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], workers=1, watchdog=watchdog)
    entered = threading.Event()
    release = threading.Event()

    def hook(_zone: str, _changes: Changes) -> None:
        entered.set()
        release.wait(5)

    provider.hook = hook
    zc.start()
    try:
        assert entered.wait(5)
        time.sleep(0.1)  # stuck for longer than the watchdog's bound
        assert "zone-worker-0" in watchdog.stuck()
    finally:
        release.set()
        assert zc.stop(5)
    assert watchdog.healthy()


def test_zonefile_provider_zones_are_keys(tmp_path: Path) -> None:
    provider = ZoneFileProvider(str(tmp_path), create_zones=["a.test", "b.test"])
    source = StaticSource([ep("www.a.test", "A", "10.1.1.1"), ep("www.b.test", "A", "10.2.2.2")])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    zc = ZoneController(ctl, workers=2, interval=3600, rate_limiter_factory=fast_limiter)
    zc.start()
    try:
        assert zc.wait_until(lambda: sum(o.ok for o in zc.outcomes()) >= 2, 10)
    finally:
        assert zc.stop(5)
    assert sorted(o.zone for o in zc.outcomes()) == ["a.test", "b.test"]
    assert "10.1.1.1" in (tmp_path / "a.test.zone").read_text()
    assert "10.2.2.2" in (tmp_path / "b.test.zone").read_text()
    assert "10.2.2.2" not in (tmp_path / "a.test.zone").read_text()


def test_bad_workers_value_is_named() -> None:
    ctl = Controller(StaticSource([]), TXTRegistry(InMemoryProvider(["a.test"]), owner_id=OWNER), "sync")
    with pytest.raises(ValueError, match="--workers"):
        ZoneController(ctl, workers=0)
    with pytest.raises(ValueError, match="--min-event-sync-interval"):
        ZoneController(ctl, min_event_sync_interval=-1)


# -- event-triggered passes queue only the zones that changed ----------------------------------------------------
THREE_ZONES = ["a.test", "b.test", "c.test"]


def three_zone_records(a_ip: str = "10.0.0.1") -> list[Endpoint]:
    return [ep("www.a.test", "A", a_ip), ep("www.b.test", "A", "10.0.0.2"), ep("www.c.test", "A", "10.0.0.3")]


def started_zone_controller(**kw: Any) -> tuple[ZoneController, StaticSource, HookedProvider]:
    zc, source, provider = make(THREE_ZONES, three_zone_records(), workers=2, interval=3600,
                                min_event_sync_interval=0, **kw)
    zc.start()
    assert zc.wait_until(lambda: len(zc.outcomes()) >= 3, 10)
    return zc, source, provider


def test_event_pass_reconciles_only_the_zone_that_changed() -> None:
    zc, source, provider = started_zone_controller()
    try:
        source.set(three_zone_records("10.9.9.9"))
        zc.on_event()
        assert zc.wait_until(lambda: stored(provider).get(("www.a.test", "A")) == ["10.9.9.9"], 10)
        zc.on_event()  # nothing changed at all: no zone is reconciled
        assert not zc.wait_until(lambda: len(zc.outcomes()) > 4, 0.5)
    finally:
        assert zc.stop(5)
    assert [o.zone for o in zc.outcomes()][3:] == ["a.test"]
    assert zc.skipped == 2 + 3


class NamedSource(StaticSource):
    """Names its changes, as the informer sources do."""

    def __init__(self, endpoints: list[Endpoint]) -> None:
        super().__init__(endpoints)
        self.changed: frozenset[str] = frozenset()

    def set(self, endpoints: Iterable[Endpoint]) -> None:
        endpoints = list(endpoints)
        with self.lock:
            old = {e.dns_name for e in self.desired}
            self.changed |= old ^ {e.dns_name for e in endpoints} | {e.dns_name for e in endpoints
                                                                      if e not in self.desired}
            self.desired = endpoints

    def take_dirty_names(self) -> builtins.set[str] | None:  # `set` here is the method above
        with self.lock:
            names, self.changed = self.changed, frozenset()
            return {*names}


@pytest.mark.parametrize("registry", ["txt", "noop"])
def test_an_event_pass_with_a_named_source_reconciles_the_zone_that_changed(registry: str) -> None:
    """With or without a zone journal in the registry (the noop registry has none: every run is a full one),
    an event pass queues the zone holding the names the source reports changed, and only that zone."""
    provider = HookedProvider(THREE_ZONES)
    source = NamedSource(three_zone_records())
    reg = TXTRegistry(provider, owner_id=OWNER) if registry == "txt" else NoopRegistry(provider)
    ctl = Controller(source, reg, "sync", domain_filter=DomainFilter())
    zc = ZoneController(ctl, rate_limiter_factory=fast_limiter, workers=2, interval=3600, min_event_sync_interval=0)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 3, 10)
        source.set(three_zone_records("10.9.9.9"))
        zc.on_event()
        assert zc.wait_until(lambda: stored(provider).get(("www.a.test", "A")) == ["10.9.9.9"], 10)
        assert not zc.wait_until(lambda: len(zc.outcomes()) > 4, 0.3)
    finally:
        assert zc.stop(5)
    last = zc.outcomes()[3]
    assert last.zone == "a.test" and last.ok and last.full == (registry == "noop")
    assert last.result is not None and last.result.read is (ReadKind.WHOLE if registry == "noop" else ReadKind.NAMES)


def test_zone_moving_between_zones_reconciles_both() -> None:
    zc, source, provider = started_zone_controller()
    try:
        source.set([ep("www.b.test", "A", "10.0.0.2"), ep("www.c.test", "A", "10.0.0.3"),
                    ep("new.b.test", "A", "10.0.0.1")])  # www.a.test gone, new.b.test added
        zc.on_event()
        assert zc.wait_until(lambda: ("www.a.test", "A") not in stored(provider)
                             and ("new.b.test", "A") in stored(provider), 10)
        assert not zc.wait_until(lambda: len(zc.outcomes()) > 5, 0.3)
    finally:
        assert zc.stop(5)
    assert sorted(o.zone for o in zc.outcomes()[3:]) == ["a.test", "b.test"]


def test_zone_in_flight_during_an_event_pass_is_reconciled_again() -> None:
    zc, source, provider = started_zone_controller()
    entered = threading.Event()
    release = threading.Event()

    def hook(zone: str, _changes: Changes) -> None:
        if zone == "a.test" and not release.is_set():
            entered.set()
            assert release.wait(5)

    provider.hook = hook
    try:
        source.set(three_zone_records("10.7.7.7"))  # Y
        zc.on_event()
        assert entered.wait(5)  # a.test is writing Y
        source.set(three_zone_records("10.0.0.1"))  # back to X, which a.test's last success applied
        zc.on_event()
        assert zc.wait_until(lambda: zc.skipped >= 2 + 2, 5)  # the second event pass has run (b, c skipped)
        release.set()
        assert zc.wait_until(lambda: len(zc.outcomes("a.test")) >= 3, 10)
    finally:
        release.set()
        assert zc.stop(5)
    assert stored(provider)[("www.a.test", "A")] == ["10.0.0.1"]  # not left at the intermediate Y


def test_failed_zone_is_queued_by_the_next_event_pass() -> None:
    zc, source, provider = started_zone_controller(rate_limiter_factory=lambda: ItemExponentialFailureRateLimiter(
        base=30.0, max_delay=60.0))  # retries far away: only the event pass can bring the zone back
    fails = {"c.test": 1}

    def hook(zone: str, _changes: Changes) -> None:
        if fails.get(zone, 0) > 0:
            fails[zone] -= 1
            raise SoftError("throttled")

    provider.hook = hook
    try:
        source.set([*three_zone_records()[:2], ep("www.c.test", "A", "10.3.3.3")])
        zc.on_event()
        assert zc.wait_until(lambda: any(not o.ok for o in zc.outcomes("c.test")), 10)
        zc.on_event()  # c.test's desired state did not change, but its last reconcile failed
        assert zc.wait_until(lambda: stored(provider).get(("www.c.test", "A")) == ["10.3.3.3"], 10)
    finally:
        assert zc.stop(5)


def test_single_zone_and_disabled_skipping_reconcile_on_every_event_pass() -> None:
    zc, _, _ = make(["a.test"], [ep("www.a.test", "A", "1.1.1.1")], interval=3600, min_event_sync_interval=0)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) == 1, 10)
        zc.on_event()
        assert zc.wait_until(lambda: len(zc.outcomes()) == 2, 10)  # upstream: every event runs the sync
    finally:
        assert zc.stop(5)
    zc2, _, _ = make(THREE_ZONES, three_zone_records(), interval=3600, min_event_sync_interval=0,
                     skip_unchanged_zones=False)
    zc2.start()
    try:
        assert zc2.wait_until(lambda: len(zc2.outcomes()) == 3, 10)
        zc2.on_event()
        assert zc2.wait_until(lambda: len(zc2.outcomes()) == 6, 10)
    finally:
        assert zc2.stop(5)
    assert zc2.skipped == 0


# -- periodic passes: one source read, zones released a few at a time -------------------------------------------
class CountingSource(StaticSource):
    def __init__(self, endpoints: list[Endpoint]) -> None:
        super().__init__(endpoints)
        self.reads = 0

    def endpoints(self) -> list[Endpoint]:
        with self.lock:
            self.reads += 1
        return super().endpoints()


FOUR_ZONES = ["a.test", "b.test", "c.test", "d.test"]


def four_zone_records(d_ip: str = "10.0.0.4") -> list[Endpoint]:
    return [*three_zone_records(), ep("www.d.test", "A", d_ip)]


def counting(zones: list[str], desired: list[Endpoint], **kw: Any) -> tuple[ZoneController, CountingSource,
                                                                             HookedProvider]:
    provider = HookedProvider(zones)
    source = CountingSource(desired)
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync", domain_filter=DomainFilter())
    return ZoneController(ctl, rate_limiter_factory=fast_limiter, **kw), source, provider


def test_a_periodic_pass_reads_the_source_once_for_all_its_zones() -> None:
    zc, source, provider = counting(FOUR_ZONES, four_zone_records(), workers=2, interval=3600)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 4, 10)  # the first pass: every zone at once
        assert source.reads == 1
        source.set(four_zone_records("10.4.4.4"))  # no event: the next periodic pass picks it up
        zc.enqueue_all()
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 8, 10)
        assert source.reads == 2
    finally:
        assert zc.stop(5)
    assert stored(provider)[("www.d.test", "A")] == ["10.4.4.4"]
    assert all(o.ok for o in zc.outcomes())


class HoldingRegistry(TXTRegistry):
    """Holds a full run (a read of the whole zone: event runs read their names only) while `hold` is set."""

    def __init__(self, provider: InMemoryProvider) -> None:
        super().__init__(provider, owner_id=OWNER)
        self.hold: Callable[[str], None] | None = None

    def zone_records(self, zone: str, names: Iterable[str] | None = None) -> list[Endpoint]:
        if names is None and self.hold is not None:
            self.hold(zone)
        return super().zone_records(zone, names)


def test_an_event_is_not_queued_behind_a_periodic_pass() -> None:
    """Two workers: a periodic pass runs one zone in full at a time, so the other worker takes the event at
    once, even while a full run hangs; the pass's other zones wait their turn."""
    provider = HookedProvider(FOUR_ZONES)
    source = CountingSource(four_zone_records())
    registry = HoldingRegistry(provider)
    ctl = Controller(source, registry, "sync", domain_filter=DomainFilter())
    zc = ZoneController(ctl, rate_limiter_factory=fast_limiter, workers=2, interval=3600, min_event_sync_interval=0)
    full_runs: list[str] = []
    entered = threading.Event()
    release = threading.Event()

    def hold_full_runs(zone: str) -> None:
        full_runs.append(zone)
        if zone == "a.test":
            entered.set()
            assert release.wait(5)

    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 4, 10)
        registry.hold = hold_full_runs
        zc.enqueue_all()
        assert entered.wait(5)  # a.test's full run hangs
        source.set(four_zone_records("10.4.4.4"))
        zc.on_event()
        assert zc.wait_until(lambda: stored(provider).get(("www.d.test", "A")) == ["10.4.4.4"], 5)
        assert full_runs == ["a.test"]  # the pass's other zones were not started meanwhile
        release.set()
        assert zc.wait_until(lambda: len(full_runs) >= 4, 10)
    finally:
        release.set()
        assert zc.stop(5)
    assert sorted(full_runs) == FOUR_ZONES  # each zone ran its full run of the pass once
    assert all(o.ok for o in zc.outcomes())


def test_an_event_in_the_zone_of_a_hanging_full_run_is_not_held_and_not_undone() -> None:
    """One zone: its full run of a periodic pass hangs after the pass read the source; an event of the same
    zone reaches the provider meanwhile (on the other worker), and the full run, when it goes on with its
    older read, leaves that name alone (the event's run planned it from a newer read)."""
    provider = HookedProvider(["d.test"])
    source = CountingSource([ep("www.d.test", "A", "10.0.0.4"), ep("api.d.test", "A", "10.0.0.5")])
    registry = HoldingRegistry(provider)
    ctl = Controller(source, registry, "sync", domain_filter=DomainFilter())
    zc = ZoneController(ctl, rate_limiter_factory=fast_limiter, workers=2, interval=3600, min_event_sync_interval=0)
    entered = threading.Event()
    release = threading.Event()

    def hold_full_run(zone: str) -> None:
        entered.set()
        assert release.wait(5)

    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 1, 10)
        registry.hold = hold_full_run
        zc.enqueue_all()
        assert entered.wait(5)  # the full run read the source (10.0.0.4) and hangs reading the zone
        registry.hold = None
        source.set([ep("www.d.test", "A", "10.4.4.4"), ep("api.d.test", "A", "10.0.0.5")])
        zc.on_event()
        assert zc.wait_until(lambda: stored(provider).get(("www.d.test", "A")) == ["10.4.4.4"], 5)
        release.set()
        assert zc.wait_until(lambda: sum(o.full for o in zc.outcomes()) >= 2, 10)
        assert stored(provider)[("www.d.test", "A")] == ["10.4.4.4"]  # not put back by the older read
        source.set([ep("www.d.test", "A", "10.4.4.4"), ep("api.d.test", "A", "10.0.0.6")])
        zc.on_event()  # the zone's state is still exact for event runs
        assert zc.wait_until(lambda: stored(provider).get(("api.d.test", "A")) == ["10.0.0.6"], 5)
    finally:
        release.set()
        assert zc.stop(5)
    assert all(o.ok for o in zc.outcomes())
    assert stored(provider)[("www.d.test", "A")] == ["10.4.4.4"]


class FailingOnceSource(CountingSource):
    def __init__(self, endpoints: list[Endpoint]) -> None:
        super().__init__(endpoints)
        self.fail_once = False

    def endpoints(self) -> list[Endpoint]:
        if self.fail_once:
            self.fail_once = False
            raise ConnectionError("API server unreachable")
        return super().endpoints()


def test_a_failed_shared_read_leaves_each_zone_to_read_by_itself() -> None:
    provider = HookedProvider(FOUR_ZONES)
    source = FailingOnceSource(four_zone_records())
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync", domain_filter=DomainFilter())
    zc = ZoneController(ctl, rate_limiter_factory=fast_limiter, workers=2, interval=3600)
    zc.start()
    try:
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 4, 10)
        source.set(four_zone_records("10.4.4.4"))
        source.fail_once = True  # the pass's shared read fails: each zone's full run reads the source itself
        zc.enqueue_all()
        assert zc.wait_until(lambda: stored(provider).get(("www.d.test", "A")) == ["10.4.4.4"], 10)
        assert zc.wait_until(lambda: len(zc.outcomes()) >= 8, 10)
    finally:
        assert zc.stop(5)
    assert all(o.ok for o in zc.outcomes())
    assert source.reads == 1 + 4
