"""Plan safety (plan/safety.py, cmd/flags_safety.py, --once all-or-nothing in cmd/plan_apply.py): thresholds
at / just under / just over the limit, the minimum-existing rule, TXT markers and foreign records not
counted, per-zone precedence from the flag to the refusal, root NS, --force, partial apply per zone."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from prometheus_client import REGISTRY

from external_dns.cmd.config import build_parser, validate
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_safety import safety_config
from external_dns.cmd.plan_apply import EXIT_UNSAFE_PLAN, install_safety_gate, run_once_safely
from external_dns.controller.controller import Controller, RunOnceError
from external_dns.controller.safety_gate import SafetyGate
from external_dns.controller.zone_controller import ZoneController
from external_dns.controller.zone_plans import find_safety_gate
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.safety import (
    REASON_ROOT_NS_CHANGE,
    REASON_TOO_MANY_DELETES,
    REASON_TOO_MANY_UPDATES,
    RootNsChangeError,
    SafetyConfig,
    Thresholds,
    TooMuchChangeError,
    UnsafePlanError,
    UnsafePlansError,
    ZoneThreshold,
    assess,
    check_zone,
    count_existing,
    parse_zone_threshold,
)
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import NoopRegistry, TXTRegistry
from external_dns.sources.source import Source

OWNER = "safety-test"


def a(name: str, ip: str = "10.0.0.1", owner: str | None = OWNER, ttl: int = 300) -> Endpoint:
    e = Endpoint(dns_name=name, record_type="A", targets=Targets([ip]), record_ttl=ttl)
    if owner is not None:
        e.labels["owner"] = owner
    return e


def existing(zone: str, n: int, owner: str | None = OWNER) -> list[Endpoint]:
    return [a(f"h{i:03d}.{zone}", f"10.0.0.{i % 250 + 1}", owner) for i in range(n)]


def churn(zone: str, updates: int = 0, deletes: int = 0, creates: int = 0) -> Changes:
    c = Changes()
    for i in range(updates):
        old = a(f"h{i:03d}.{zone}")
        c.update_old.append(old)
        c.update_new.append(a(f"h{i:03d}.{zone}", "192.0.2.1"))
    for i in range(deletes):
        c.delete.append(a(f"d{i:03d}.{zone}"))
    for i in range(creates):
        c.create.append(a(f"new{i:03d}.{zone}"))
    return c


def unsafe_count(zone: str, reason: str) -> float:
    return REGISTRY.get_sample_value("external_dns_controller_unsafe_plans_total",
                                     {"zone": zone, "reason": reason}) or 0.0


# -- thresholds ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("count", "safe"), [(5, True), (6, True), (7, False)])
def test_update_threshold_just_under_at_and_just_over(count: int, safe: bool) -> None:
    v = assess("example.com", churn("example.com", updates=count), 20, Thresholds())
    assert v.safe is safe
    if not safe:
        err = v.problems[0]
        assert isinstance(err, TooMuchChangeError)
        assert err.reason == REASON_TOO_MANY_UPDATES
        assert str(err) == "[example.com.] Too many updates, 35.00% is over 30.00% (7/20), force required"
        with pytest.raises(TooMuchChangeError):
            v.raise_if_unsafe()


@pytest.mark.parametrize(("count", "safe"), [(2, True), (3, True), (4, False)])
def test_delete_threshold_just_under_at_and_just_over(count: int, safe: bool) -> None:
    # 3/10 is exactly 30 %: strictly greater is unsafe, equal passes.
    v = assess("example.com.", churn("example.com", deletes=count), 10, Thresholds())
    assert v.safe is safe
    assert (v.creates, v.updates, v.deletes, v.existing) == (0, 0, count, 10)
    if not safe:
        assert v.problems[0].reason == REASON_TOO_MANY_DELETES


def test_error_message_has_zone_reason_percentage_threshold_and_counts() -> None:
    v = assess("example.com", churn("example.com", deletes=9), 20, Thresholds())
    assert str(v.problems[0]) == "[example.com.] Too many deletes, 45.00% is over 30.00% (9/20), force required"
    err = v.problems[0]
    assert isinstance(err, TooMuchChangeError)
    assert (err.change_count, err.existing_count, err.threshold, err.percent) == (9, 20, 0.3, 45.0)


def test_updates_checked_before_deletes_and_both_reported() -> None:
    v = assess("z.org", churn("z.org", updates=8, deletes=8), 20, Thresholds())
    assert [p.reason for p in v.problems] == [REASON_TOO_MANY_UPDATES, REASON_TOO_MANY_DELETES]
    with pytest.raises(TooMuchChangeError, match="Too many updates"):
        v.raise_if_unsafe()


def test_creates_never_count() -> None:
    assert assess("z.org", churn("z.org", creates=500), 20, Thresholds()).safe


def test_min_existing_rule() -> None:
    # 9 existing records: not percentage-checked, even when everything is deleted.
    assert assess("z.org", churn("z.org", deletes=9, updates=9), 9, Thresholds()).safe
    # 10 existing: checked.
    assert not assess("z.org", churn("z.org", deletes=4), 10, Thresholds()).safe
    # a lower minimum checks smaller zones.
    assert not assess("z.org", churn("z.org", deletes=4), 5, Thresholds(min_existing=5)).safe
    # an empty zone is never percentage-checked.
    assert assess("z.org", churn("z.org", deletes=3), 0, Thresholds(min_existing=0)).safe


def test_custom_thresholds() -> None:
    assert assess("z.org", churn("z.org", deletes=10), 20, Thresholds(delete=0.5)).safe
    assert not assess("z.org", churn("z.org", deletes=11), 20, Thresholds(delete=0.5)).safe
    assert not assess("z.org", churn("z.org", updates=1), 20, Thresholds(update=0.0)).safe
    assert assess("z.org", churn("z.org", updates=20), 20, Thresholds(update=1.0)).safe


# -- the denominator ----------------------------------------------------------------------------------------
def test_ownership_txt_records_and_foreign_records_are_not_counted() -> None:
    zone = "example.org"
    records = existing(zone, 10)
    markers = [Endpoint(dns_name=f"a-h{i:03d}.{zone}", record_type="TXT",
                        targets=Targets([f'"heritage=external-dns,external-dns/owner={OWNER}"'])) for i in range(10)]
    foreign = existing("other." + zone, 10, owner="someone-else")
    unowned = existing("manual." + zone, 10, owner=None)
    current = records + markers + foreign + unowned
    assert count_existing(current, OWNER) == 10
    assert count_existing(current, OWNER, ["A", "AAAA", "CNAME"]) == 10
    # Without an owner (noop registry) every record counts, but never the markers.
    assert count_existing(current) == 30
    # 4 deletes of 10 owned records: 40 %, refused; octoDNS would count 40 records and see 10 %.
    v = check_zone(SafetyConfig(), zone, churn(zone, deletes=4), current, owner_id=OWNER)
    assert v.existing == 10
    assert str(v.problems[0]) == "[example.org.] Too many deletes, 40.00% is over 30.00% (4/10), force required"


def test_txt_registry_current_records_give_the_owned_denominator() -> None:
    provider = InMemoryProvider(["example.org"])
    registry = TXTRegistry(provider, owner_id=OWNER)
    registry.apply_changes(Changes(create=existing("example.org", 12, owner=None)))
    provider.apply_changes(Changes(create=existing("hand.example.org", 5, owner=None)))  # not ours, no TXT
    current = registry.records()
    assert len(provider.records()) == 12 * 2 + 5  # records + their ownership TXT + hand-made
    assert count_existing(current, OWNER, ["A", "AAAA", "CNAME"]) == 12


# -- root NS ------------------------------------------------------------------------------------------------
def ns(name: str, *servers: str) -> Endpoint:
    return Endpoint(dns_name=name, record_type="NS", targets=Targets(servers or ["ns1.example.net"]))


@pytest.mark.parametrize("kind", ["create", "update", "delete"])
def test_root_ns_change_is_unsafe_whatever_the_size(kind: str) -> None:
    c = Changes()
    if kind == "create":
        c.create.append(ns("example.com"))
    elif kind == "update":
        c.update_old.append(ns("example.com"))
        c.update_new.append(ns("example.com.", "ns2.example.net"))
    else:
        c.delete.append(ns("Example.COM."))
    v = assess("example.com", c, 1, Thresholds())
    assert [p.reason for p in v.problems] == [REASON_ROOT_NS_CHANGE]
    assert isinstance(v.problems[0], RootNsChangeError)
    assert str(v.problems[0]) == "[example.com.] Root NS record change, force required"


def test_delegation_ns_and_new_zones_are_not_root_ns_changes() -> None:
    c = Changes(create=[ns("sub.example.com")], delete=[ns("other.example.com")])
    assert assess("example.com", c, 1, Thresholds()).safe
    root = Changes(create=[ns("example.com")])
    assert assess("example.com", root, 0, Thresholds(), zone_exists=False).safe
    assert assess("", root, 0, Thresholds()).safe  # the catch-all zone has no apex


def test_force_skips_every_check() -> None:
    c = churn("example.com", updates=20, deletes=20)
    c.create.append(ns("example.com"))
    v = assess("example.com", c, 20, Thresholds(), force=True)
    assert v.safe and v.forced


# -- configuration and flags --------------------------------------------------------------------------------
def test_parse_zone_threshold() -> None:
    assert parse_zone_threshold("Example.COM.=update:0.2,delete:0.1") == ("example.com", ZoneThreshold(0.2, 0.1))
    assert parse_zone_threshold("example.com=delete:0") == ("example.com", ZoneThreshold(None, 0.0))


@pytest.mark.parametrize(("text", "needle"), [
    ("example.com", "expected ZONE=update:FRACTION,delete:FRACTION"),
    ("=update:0.2", "expected ZONE="),
    ("example.com=", "expected ZONE="),
    ("example.com=update=0.2", "is not update:FRACTION or delete:FRACTION"),
    ("example.com=creates:0.2", "'creates:0.2' is not update:FRACTION"),
    ("example.com=update:lots", "update value 'lots' is not a number"),
    ("example.com=update:1.5", "must be a fraction between 0 and 1, got 1.5"),
    ("example.com=delete:-0.1", "must be a fraction between 0 and 1, got -0.1"),
    ("example.com=update:0.1,update:0.2", "update given twice"),
])
def test_parse_zone_threshold_errors_name_the_value(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match="--zone-threshold") as info:
        parse_zone_threshold(text)
    assert needle in str(info.value)
    assert repr(text) in str(info.value)


def parse(*args: str, environ: Mapping[str, str] | None = None) -> argparse.Namespace:
    cfg = build_parser().parse(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory", "--policy=sync", *args], environ or {})
    validate(cfg)
    return cfg


@pytest.mark.parametrize(("args", "needle"), [
    (["--update-threshold=1.5"], "--update-threshold must be a fraction between 0 and 1, got 1.5"),
    (["--delete-threshold=-0.01"], "--delete-threshold must be a fraction between 0 and 1, got -0.01"),
    (["--delete-threshold=nan"], "--delete-threshold must be a fraction between 0 and 1, got nan"),
    (["--min-existing-records=-1"], "--min-existing-records must not be negative, got -1"),
    (["--zone-threshold=example.com:0.2"], "--zone-threshold 'example.com:0.2'"),
    (["--zone-threshold=a.com=update:0.1", "--zone-threshold=a.com=delete:0.1"], "zone 'a.com' given twice"),
    (["--plan-output-file=markdown"], "--plan-output-file 'markdown': expected FORMAT=PATH"),
    (["--plan-output-file=pdf=/tmp/x"], "unknown format 'pdf'"),
    (["--apply-batch-size=-1"], "--apply-batch-size must not be negative"),
])
def test_bad_flags_are_config_errors_naming_the_value(args: list[str], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse(*args)
    assert needle in str(info.value)


def test_bad_plan_output_choice_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        parse("--plan-output=pdf")
    assert info.value.code == 2


def test_flags_to_safety_config_with_repeatable_zone_thresholds() -> None:
    cfg = parse("--update-threshold=0.4", "--delete-threshold=0.25", "--min-existing-records=5",
                "--zone-threshold=example.com=update:0.2,delete:0.1", "--zone-threshold", "b.org=delete:0.5")
    sc = safety_config(cfg)
    assert (sc.update, sc.delete, sc.min_existing, sc.force) == (0.4, 0.25, 5, False)
    assert sc.for_zone("example.com.") == Thresholds(update=0.2, delete=0.1, min_existing=5)
    assert sc.for_zone("b.org") == Thresholds(update=0.4, delete=0.5, min_existing=5)
    assert sc.for_zone("c.org") == Thresholds(update=0.4, delete=0.25, min_existing=5)
    env = parse(environ={"EXTERNAL_DNS_ZONE_THRESHOLD": "example.com=update:0.05,delete:0.05",
                         "EXTERNAL_DNS_FORCE": "true"})
    assert safety_config(env).for_zone("example.com") == Thresholds(0.05, 0.05, 10)
    assert safety_config(env).force is True


# -- the gate, per zone (long-running) and all-or-nothing (--once) ------------------------------------------
class StaticSource(Source):
    def __init__(self, endpoints: Sequence[Endpoint]) -> None:
        self.desired = list(endpoints)

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self.desired]


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


def two_zone_setup(*args: str) -> tuple[InMemoryProvider, StaticSource, Controller, argparse.Namespace]:
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
    cfg.dry_run = True
    assert run_once_safely(controller, cfg) == EXIT_UNSAFE_PLAN
    cfg.dry_run = False
    cfg.force = True
    assert run_once_safely(controller, cfg) == 0
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
