"""The safety gate in the pipeline (controller/safety_gate.py) and --once all-or-nothing (controller/once.py):
a refused zone is reported (log, metric, UnsafePlan Event) and retried while the others apply; --once
applies nothing anywhere when one zone is unsafe; per-zone thresholds from the flag to the refusal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from external_dns.cmd.config import Config
from external_dns.cmd.plan_apply import EXIT_UNSAFE_PLAN, install_safety_gate, run_once_safely
from external_dns.controller.controller import Controller, RunOnceError
from external_dns.controller.safety_gate import Judged, SafetyGate
from external_dns.controller.zone_controller import ZoneController
from external_dns.controller.zone_plans import find_safety_gate
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.safety import (
    REASON_DELETES_ALL,
    REASON_TOO_MANY_DELETES,
    SafetyConfig,
    UnsafePlanError,
    UnsafePlansError,
)
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import NoopRegistry, TXTRegistry
from tests.helpers.safety import OWNER, existing, ns, parse, unsafe_count
from tests.helpers.sources import StaticSource


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[Mapping[str, Any], str, str, str]] = []

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool:
        self.events.append((obj, type, reason, note))
        return True


def desired(zone: str, n: int, resource: str = "service/default/web") -> list[Endpoint]:
    out = []
    for e in existing(zone, n, owner=None):
        e.labels["resource"] = resource
        out.append(e)
    return out


def two_zone_setup(*args: str) -> tuple[InMemoryProvider, StaticSource, Controller, Config]:
    """example.org and example.com with 20 owned records each, applied by a first sync."""
    provider = InMemoryProvider(["example.org", "example.com"])
    registry = TXTRegistry(provider, owner_id=OWNER)
    source = StaticSource(desired("example.org", 20) + desired("example.com", 20))
    cfg = parse(f"--txt-owner-id={OWNER}", "--once", "--progress=none", *args)
    controller = Controller(source, registry, "sync")
    install_safety_gate(controller, cfg)
    assert run_once_safely(controller, cfg) == 0
    assert len(provider.zone_records("example.org")) == 40
    return provider, source, controller, cfg


def snapshot(provider: InMemoryProvider) -> dict[str, list[str]]:
    return {z: sorted(f"{e.dns_name} {e.record_type} {list(e.targets)}" for e in provider.zone_records(z))
            for z in provider.zones()}


def test_once_all_or_nothing_and_distinct_exit_code() -> None:
    provider, source, controller, cfg = two_zone_setup()
    before = snapshot(provider)
    # example.org loses 7 of 20 (35 %: unsafe), example.com gains a record (safe).
    source.desired = desired("example.org", 13) + desired("example.com", 21)
    refused = unsafe_count("example.org.", REASON_TOO_MANY_DELETES)
    assert run_once_safely(controller, cfg) == EXIT_UNSAFE_PLAN == 3
    assert snapshot(provider) == before, "no zone may be applied when one is unsafe"
    assert unsafe_count("example.org.", REASON_TOO_MANY_DELETES) == refused + 1
    # dry run: same refusal, same exit code
    assert run_once_safely(controller, replace(cfg, core=replace(cfg.core, dry_run=True))) == EXIT_UNSAFE_PLAN
    assert run_once_safely(controller, replace(cfg, safety=replace(cfg.safety, force=True))) == 0
    after = snapshot(provider)
    assert len(after["example.org"]) == 26 and len(after["example.com"]) == 42


def test_once_safe_plan_applies_everything() -> None:
    provider, source, controller, cfg = two_zone_setup()
    source.desired = desired("example.org", 14) + desired("example.com", 20)  # 6/20 = 30 %: allowed
    assert run_once_safely(controller, cfg) == 0
    assert len(provider.zone_records("example.org")) == 28


def test_zone_threshold_takes_precedence_end_to_end() -> None:
    """From the flag to the refusal, through both paths (octoDNS 1.22 drops zone thresholds silently)."""
    provider, source, controller, cfg = two_zone_setup("--zone-threshold=example.org=delete:0.1")
    before = snapshot(provider)
    # 3/20 = 15 %: fine globally, over example.org's 10 %.
    source.desired = desired("example.org", 17) + desired("example.com", 17)
    assert run_once_safely(controller, cfg) == EXIT_UNSAFE_PLAN
    assert snapshot(provider) == before
    # the long-running path: the gate installed on the controller refuses example.org only.
    with pytest.raises(RunOnceError) as info:
        controller.run_once(zone="example.org")
    assert info.value.step == "pre-apply check"
    assert "[example.org.] Too many deletes, 15.00% is over 10.00% (3/20), force required" in str(info.value)
    controller.run_once(zone="example.com")
    assert len(provider.zone_records("example.com")) == 34
    assert len(provider.zone_records("example.org")) == 40


def test_long_running_partial_apply_reports_and_retries() -> None:
    provider, source, controller, _cfg = two_zone_setup()
    gate = find_safety_gate(controller)
    assert gate is not None
    recorder = FakeRecorder()
    gate.recorder = recorder
    source.desired = desired("example.org", 10, resource="service/default/web") + desired("example.com", 25)
    zc = ZoneController(controller, workers=1, interval=3600.0)
    refused = unsafe_count("example.org.", REASON_TOO_MANY_DELETES)
    assert zc.reconcile("example.org") is False
    assert zc.reconcile("example.com") is True
    assert len(provider.zone_records("example.org")) == 40, "the unsafe zone is not applied"
    assert len(provider.zone_records("example.com")) == 50, "the other zones are"
    assert unsafe_count("example.org.", REASON_TOO_MANY_DELETES) == refused + 1
    assert zc.failures("example.org") == 1
    assert recorder.events, "a Kubernetes Event about the objects behind the refused changes"
    obj, etype, reason, note = recorder.events[0]
    assert (etype, reason) == ("Warning", "UnsafePlan")
    assert obj["kind"] == "Service" and obj["metadata"]["name"] == "web"
    assert note == "[example.org.] Too many deletes, 50.00% is over 30.00% (10/20), force required"
    assert len(recorder.events) == 1, "one event per object, not per record"
    # retried at the next sync: still refused until the plan is safe again
    assert zc.reconcile("example.org") is False
    assert zc.failures("example.org") == 2
    source.desired = desired("example.org", 15) + desired("example.com", 25)  # 5/20 deletes: safe
    assert zc.reconcile("example.org") is True
    assert len(provider.zone_records("example.org")) == 30


def test_gate_on_a_full_sync_refuses_every_zone() -> None:
    provider, source, controller, _cfg = two_zone_setup()
    source.desired = desired("example.org", 5) + desired("example.com", 5)
    with pytest.raises(RunOnceError) as info:
        controller.run_once()
    cause = info.value.__cause__
    assert isinstance(cause, UnsafePlansError)
    assert sorted(e.zone for e in cause.errors) == ["example.com", "example.org"]
    assert len(provider.zone_records("example.org")) == 40


def test_gate_root_ns_and_force() -> None:
    provider = InMemoryProvider(["example.net"])
    registry = NoopRegistry(provider)
    provider.apply_changes(Changes(create=[ns("example.net", "ns1.old.net")]))
    source = StaticSource([ns("example.net", "ns1.new.net")])
    controller = Controller(source, registry, "sync", managed_record_types=["A", "NS"])
    gate = SafetyGate(SafetyConfig(), managed_record_types=["A", "NS"], zones=controller.zone_keys)
    controller.add_pre_apply_check(gate)
    with pytest.raises(RunOnceError) as info:
        controller.run_once(zone="example.net")
    assert isinstance(info.value.__cause__, UnsafePlanError)
    assert "[example.net.] Root NS record change, force required" in str(info.value)
    gate.config = SafetyConfig(force=True)
    controller.run_once(zone="example.net")
    assert [list(e.targets) for e in provider.zone_records("example.net")] == [["ns1.new.net"]]


def test_attach_events_gives_the_gate_the_recorder() -> None:
    from external_dns.controller.features import attach_events

    _provider, _source, controller, _cfg = two_zone_setup()
    recorder = FakeRecorder()
    attach_events(controller, recorder)
    gate = find_safety_gate(controller)
    assert gate is not None and gate.recorder is recorder
    assert controller.recorder is recorder


def test_long_running_refuses_a_wipe_of_a_small_zone() -> None:
    """A zone of 2 records (under the thresholds' 10-record minimum) whose source reads as empty: the zone
    pipeline refuses to delete them all (reason deletes-all), keeps retrying, and applies once the source is
    back; the other zone, which keeps a record, syncs."""
    provider = InMemoryProvider(["example.org", "example.com"])
    registry = TXTRegistry(provider, owner_id=OWNER)
    source = StaticSource(desired("example.org", 2) + desired("example.com", 2))
    controller = Controller(source, registry, "sync")
    install_safety_gate(controller, parse(f"--txt-owner-id={OWNER}"))
    zc = ZoneController(controller, workers=1, interval=3600.0)
    assert zc.reconcile("example.org") is True and zc.reconcile("example.com") is True
    source.desired = desired("example.com", 1)
    refused = unsafe_count("example.org.", REASON_DELETES_ALL)
    assert zc.reconcile("example.org") is False
    assert unsafe_count("example.org.", REASON_DELETES_ALL) == refused + 1
    assert len(provider.zone_records("example.org")) == 4, "2 records and their ownership TXTs kept"
    assert zc.reconcile("example.com") is True
    assert len(provider.zone_records("example.com")) == 2
    source.desired = desired("example.org", 2) + desired("example.com", 1)
    assert zc.reconcile("example.org") is True


def test_a_dnsrecords_own_deletions_are_no_wipe() -> None:
    """The DNSRecord lifecycle judges a record's plan by its own records (Judged): removing them all, as the
    DNSRecord is deleted or emptied, is what it asked for."""
    gate = SafetyGate(SafetyConfig())
    mine = existing("example.org", 2)
    wipe = Changes(delete=[e.copy() for e in mine])
    gate.judge("example.org", wipe, mine, Judged(OWNER, ["A", "AAAA", "CNAME"], deletes_exempt=False))
    gate.judge("example.org", wipe, mine, Judged(OWNER, ["A", "AAAA", "CNAME"], deletes_exempt=True))
    with pytest.raises(UnsafePlanError, match="deletes every record this owner holds"):
        gate("example.org", wipe, mine, [])
