"""Dirty-name reconciles (controller/dirty.py, the zone controller's event runs) plan exactly what the full
plan plans.

A property test drives random sequences of source changes (new, changed and removed names, two endpoints
claiming one name, CNAME next to A), ownership changes and outside edits at the provider, and provider
failures, over two zones with the sync and upsert-only policies. Before every incremental run the full
plan is computed from a fresh registry's full read and the full desired list; the incremental run's changes
(applied, or carried by its RunOnceError) must be the same multiset. A periodic full pass runs now and then,
as the long-running controller does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.controller.controller import Controller, ReadKind, RunOnceError
from external_dns.controller.safety_gate import SafetyGate
from external_dns.controller.zone_controller import ZoneController
from external_dns.endpoint.domain_filter import MatchAllDomainFilters
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.labels import serialize_labels
from external_dns.endpoint.targets import Targets
from external_dns.plan import Changes, Plan
from external_dns.plan.safety import SafetyConfig, count_existing
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source

ZONES = ["a.test", "b.test"]
NAMES = ["www.a.test", "api.a.test", "x.a.test", "www.b.test", "y.b.test"]


class ListSource(Source):
    def __init__(self) -> None:
        self.items: dict[tuple[str, int], Endpoint] = {}  # (name, object) -> endpoint

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for _, e in sorted(self.items.items())]


class NamedListSource(ListSource):
    """Also answers by name, as the informer sources do: the names of every change are reported dirty."""

    def __init__(self) -> None:
        super().__init__()
        self.dirty: set[str] | None = None

    def touch(self, name: str) -> None:
        if self.dirty is not None:
            self.dirty.add(name)

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        return [e for e in self.endpoints() if e.dns_name in set(names)]

    def take_dirty_names(self) -> set[str] | None:
        dirty, self.dirty = self.dirty, set()
        return dirty


class FlakyProvider(InMemoryProvider):
    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.fail_next = False

    def outside_edit(self, changes: Changes) -> None:
        """Another tool's write: never meets the failure armed for the controller's next write."""
        super().apply_changes(changes)

    def apply_changes(self, changes: Changes) -> None:
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("provider down")
        super().apply_changes(changes)


def written(changes: Changes, provider: InMemoryProvider) -> Changes:
    """What the TXT registry writes of `changes`: a create whose ownership TXT exists naming another owner is
    refused (registry/txt.py), so the full plan keeps planning it while an event run planned it once."""
    claimed = {e.dns_name for e in provider.records() if e.record_type == "TXT" and e.targets
               and "external-dns/owner=" in e.targets[0] and "external-dns/owner=me" not in e.targets[0]}
    return Changes(create=[e for e in changes.create if f"{e.record_type.lower()}-{e.dns_name}" not in claimed],
                   update_old=changes.update_old, update_new=changes.update_new, delete=changes.delete)


def canon(changes: Changes) -> list[tuple[Any, ...]]:
    return sorted((kind, e.dns_name, e.record_type, e.set_identifier, tuple(sorted(e.targets)), e.record_ttl)
                  for kind, eps in (("c", changes.create), ("o", changes.update_old), ("n", changes.update_new),
                                    ("d", changes.delete)) for e in eps)


def full_plan(ctl: Controller, provider: InMemoryProvider, zone: str) -> Changes:
    registry = TXTRegistry(provider, owner_id="me")
    current = [e for e in registry._read() if e.dns_name.endswith("." + zone)]
    desired = [e for e in registry.adjust_endpoints(ctl.source.endpoints()) if e.dns_name.endswith("." + zone)]
    return Plan(current, desired, policies=ctl.policies,
                domain_filter=MatchAllDomainFilters([None, registry.get_domain_filter()]),
                managed_records=ctl.managed_record_types, owner_id="me").calculate().changes


op = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(NAMES), st.integers(0, 1), st.sampled_from(["A", "CNAME"]),
              st.integers(1, 4)),
    st.tuples(st.just("unset"), st.sampled_from(NAMES), st.integers(0, 1), st.just(""), st.just(0)),
    st.tuples(st.just("outside"), st.sampled_from(NAMES), st.just(0), st.sampled_from(["A", "TXT"]),
              st.integers(5, 7)),
    st.tuples(st.just("takeover"), st.sampled_from(NAMES), st.integers(0, 1), st.sampled_from(["A", "CNAME"]),
              st.just(0)),
    st.tuples(st.just("fail"), st.just(""), st.just(0), st.just(""), st.just(0)),
    st.tuples(st.just("full"), st.just(""), st.just(0), st.just(""), st.just(0)),
)


def _held(provider: InMemoryProvider, name: str, rtype: str) -> Endpoint | None:
    return next((e for e in provider.records() if e.dns_name == name and e.record_type == rtype), None)


def _step(provider: FlakyProvider, source: ListSource, action: tuple[str, str, int, str, int]) -> None:
    kind, name, obj, rtype, n = action
    if kind == "set":
        target = f"10.0.{obj}.{n}" if rtype == "A" else f"t{n}.example.net"
        source.items[(name, obj)] = Endpoint(name, rtype, Targets([target]), 300)
        if isinstance(source, NamedListSource):
            source.touch(name)
    elif kind == "unset":
        source.items.pop((name, obj), None)
        if isinstance(source, NamedListSource):
            source.touch(name)
    elif kind == "outside":
        value = f"10.9.9.{n}" if rtype == "A" else '"v=outside"'
        held = _held(provider, name, rtype)
        new = Endpoint(name, rtype, Targets([value]), 300)
        with contextlib.suppress(Exception):  # the in-memory provider refuses some combinations
            provider.outside_edit(Changes(update_old=[held], update_new=[new]) if held else Changes(create=[new]))
    elif kind == "takeover":
        txt = f"{rtype.lower()}-{name}"
        held = _held(provider, txt, "TXT")
        owner = ["other", "me"][obj]
        new = Endpoint(txt, "TXT", Targets([serialize_labels({"owner": owner}, with_quotes=True)]), 0)
        with contextlib.suppress(Exception):  # the in-memory provider refuses some combinations
            provider.outside_edit(Changes(update_old=[held], update_new=[new]) if held else Changes(create=[new]))
    elif kind == "fail":
        provider.fail_next = True


@pytest.mark.parametrize(("policy", "named"), [("sync", False), ("upsert-only", False), ("sync", True)])
def test_incremental_plans_equal_the_full_plan_at_every_step(policy: str, named: bool) -> None:
    seen = {"incremental": 0, "with_changes": 0, "failed": 0}

    @settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(op, min_size=1, max_size=20))
    def run(actions: list[tuple[str, str, int, str, int]]) -> None:
        provider = FlakyProvider(ZONES)
        source = NamedListSource() if named else ListSource()
        ctl = Controller(source, TXTRegistry(provider, owner_id="me"), policy)
        zc = ZoneController(ctl)
        for zone in ZONES:
            zc.sync(zone, full=True)  # the first pass: the baseline
        for action in actions:
            _step(provider, source, action)
            for zone in ZONES:
                expected = canon(written(full_plan(ctl, provider, zone), provider))
                try:
                    result = zc.sync(zone, full=action[0] == "full")  # an event run, when it can be exact
                    if result.read is ReadKind.NAMES:
                        seen["incremental"] += 1
                        seen["with_changes"] += result.has_changes
                    got = result.changes
                except RunOnceError as exc:
                    assert exc.changes is not None
                    seen["failed"] += 1
                    got = exc.changes
                assert canon(written(got, provider)) == expected, (action, zone)

    run()
    # the runs really were incremental, planned changes, and met failures
    assert seen["incremental"] > 100 and seen["with_changes"] > 5 and seen["failed"] > 0, seen


def test_an_event_plans_only_its_names() -> None:
    provider = InMemoryProvider(["a.test"])
    source = ListSource()
    for i in range(200):
        source.items[(f"h{i}.a.test", 0)] = Endpoint(f"h{i}.a.test", "A", Targets([f"10.0.0.{i % 250}"]), 300)
    ctl = Controller(source, TXTRegistry(provider, owner_id="me"), "sync")
    zc = ZoneController(ctl)
    zc.sync("a.test", full=True)
    assert len(provider.records()) == 400
    source.items[("h7.a.test", 0)] = Endpoint("h7.a.test", "A", Targets(["10.1.1.1"]), 300)
    result = zc.sync("a.test")
    assert result.read is ReadKind.NAMES and result.applied
    assert [e.dns_name for e in result.changes.update_new] == ["h7.a.test"]
    assert result.planned == frozenset({"h7.a.test"}) and result.current_count == 1
    # our own write comes back through the snapshot: the next event re-plans that name only, a no-op
    result = zc.sync("a.test")
    assert result.read is ReadKind.NAMES and not result.has_changes and len(result.planned or ()) <= 3


def test_the_safety_gate_counts_the_whole_zone_on_an_incremental_run() -> None:
    provider = InMemoryProvider(["a.test"])
    source = ListSource()
    for i in range(20):
        source.items[(f"h{i}.a.test", 0)] = Endpoint(f"h{i}.a.test", "A", Targets([f"10.0.0.{i}"]), 300)
    registry = TXTRegistry(provider, owner_id="me")
    ctl = Controller(source, registry, "sync")
    gate = SafetyGate(SafetyConfig(), owner_id="me", managed_record_types=ctl.managed_record_types)
    ctl.add_pre_apply_check(gate)
    zc = ZoneController(ctl)
    zc.sync("a.test", full=True)
    # another owner's records and an ordinary TXT do not count; the view counts what a full read counts
    provider.apply_changes(Changes(create=[Endpoint("x.a.test", "A", Targets(["10.9.0.1"]), 300),
                                           Endpoint("t.a.test", "TXT", Targets(['"v=1"']), 300)]))
    full = TXTRegistry(provider, owner_id="me")._read()
    assert count_existing(registry.zone_view("a.test"), "me", ctl.managed_record_types) == \
        count_existing(full, "me", ctl.managed_record_types) == 20
    for i in range(2):  # 2 of 20 deleted: 10 %, allowed
        del source.items[(f"h{i}.a.test", 0)]
    result = zc.sync("a.test")
    assert result.read is ReadKind.NAMES and result.deleted == 2
    for i in range(2, 10):  # 8 of 18: over 30 %, refused as the full pass refuses it; nothing written
        del source.items[(f"h{i}.a.test", 0)]
    with pytest.raises(RunOnceError, match="Too many deletes"):
        zc.sync("a.test")
    assert _held(provider, "h5.a.test", "A") is not None
    with pytest.raises(RunOnceError, match="Too many deletes"):
        zc.sync("a.test", full=True)


# -- one source read per periodic pass, shared by its zones (controller/pass_read.py) ---------------------------
pass_op = st.one_of(
    op,
    st.tuples(st.just("pass"), st.just(""), st.integers(0, 1), st.just(""), st.just(0)),
    st.tuples(st.just("rest"), st.just(""), st.just(0), st.just(""), st.just(0)),
)


class CountingNamedSource(NamedListSource):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def endpoints(self) -> list[Endpoint]:
        self.reads += 1
        return super().endpoints()


def _names(changes: Changes) -> set[str]:
    return {e.dns_name for eps in (changes.create, changes.update_new, changes.delete) for e in eps}


def shared_full_run(zc: Any, provider: InMemoryProvider, zone: str) -> None:
    """A full run with the pass's share: a share may miss changes not run yet (the event run after plans
    them), but it never touches a name whose records already are what the source asks now (a stale share
    must never undo what an event run wrote)."""
    fresh = _names(full_plan(zc.controller, provider, zone))
    if zc.reconcile(zone, full=True):
        result = zc.outcomes(zone)[-1].result
        assert _names(result.changes) <= fresh, (zone, result.changes, fresh)


@pytest.mark.parametrize(("policy", "named"), [("sync", False), ("sync", True), ("upsert-only", True)])
def test_shared_pass_reads_keep_every_event_run_equal_to_the_full_plan(policy: str, named: bool) -> None:
    """A periodic pass reads the source once (on its first zone's full run) and each zone's full run plans its
    share, maybe long after: source changes, event runs (named or comparing), outside edits and failures
    happen in between. Every event run still plans exactly the full plan of the moment (a stale share must
    never undo what an event run wrote), and once everything ran the zones hold exactly what the source asks."""
    seen = {"shared": 0, "overlaid": 0, "event": 0}

    @settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(pass_op, st.lists(st.booleans(), min_size=2, max_size=2)), min_size=1, max_size=20))
    def run(steps: list[tuple[tuple[str, str, int, str, int], list[bool]]]) -> None:
        provider = FlakyProvider(ZONES)
        source = NamedListSource() if named else ListSource()
        ctl = Controller(source, TXTRegistry(provider, owner_id="me"), policy)
        zc = ZoneController(ctl, skip_unchanged_zones=False)
        for zone in ZONES:
            assert zc.reconcile(zone, full=True)  # the first pass: the baselines
        for zone in ZONES:
            assert zc.reconcile(zone)  # a named source's first report is None: one comparing run each
        pass_read = None
        passes = []
        for action, event_zones in steps:
            _step(provider, source, action)
            if action[0] == "pass":  # a new pass; its first zone runs now (and makes the read)
                zc.begin_pass(list(ZONES))
                pass_read = zc.runs.pass_read
                passes.append(pass_read)
                shared_full_run(zc, provider, ZONES[action[2]])
                continue
            if action[0] == "rest" and pass_read is not None:  # the pass's other zones, with their shares
                for zone in ZONES:
                    if pass_read.pending(zone):
                        shared_full_run(zc, provider, zone)
                continue
            for zone, go in zip(ZONES, event_zones, strict=True):
                if not go:
                    continue
                expected = canon(written(full_plan(ctl, provider, zone), provider))
                if zc.reconcile(zone):  # an event run (a full one when the zone has no baseline)
                    result = zc.outcomes(zone)[-1].result
                    assert result is not None
                    seen["event"] += 1
                    assert canon(written(result.changes, provider)) == expected, (action, zone)
        provider.fail_next = False
        if pass_read is not None:
            for zone in ZONES:
                if pass_read.pending(zone):
                    assert zc.reconcile(zone, full=True)
        for zone in ZONES:  # what the source changed since the pass's read: the next event run plans it
            assert zc.reconcile(zone)
            assert canon(written(full_plan(ctl, provider, zone), provider)) == [], zone
        seen["shared"] += sum(p.reads for p in passes if p is not None)
        seen["overlaid"] += sum(p.overlaid for p in passes if p is not None)

    run()
    assert seen["shared"] > 20 and seen["event"] > 100, seen
    if named:
        assert seen["overlaid"] > 5, seen
