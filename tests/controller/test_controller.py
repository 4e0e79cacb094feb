"""Controller.run_once with the real TXT registry over the in-memory provider."""

from __future__ import annotations

from functools import partial

import pytest
from prometheus_client import REGISTRY

from external_dns.controller.controller import (
    Controller,
    RunOnceError,
    is_soft_error,
    partition_by_zone,
    split_by_zone,
)
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import SoftError
from external_dns.registry import NoopRegistry, TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource

OWNER = "test-owner"


class FailingApplyProvider(InMemoryProvider):
    def __init__(self, zones: list[str], error: Exception) -> None:
        super().__init__(zones)
        self.error = error

    def apply_changes(self, changes: Changes) -> None:
        raise self.error


ep = partial(endpoints.ep, resource="service/default/web")


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels or None)
    return 0.0 if value is None else value


def stored(provider: InMemoryProvider) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): list(e.targets) for e in provider.records()}


def make(policy: str = "sync", dry_run: bool = False, zones: tuple[str, ...] = ("example.org",),
         **kw: object) -> tuple[Controller, StaticSource, InMemoryProvider]:
    provider = InMemoryProvider(zones)
    source = StaticSource([ep("www.example.org", "A", "1.2.3.4")])
    registry = TXTRegistry(provider, owner_id=OWNER)
    ctl = Controller(source, registry, policy, domain_filter=DomainFilter(), dry_run=dry_run, **kw)  # type: ignore[arg-type]
    return ctl, source, provider


def test_first_sync_creates_records_and_ownership() -> None:
    ctl, _, provider = make()
    result = ctl.run_once()
    assert result.applied and not result.dry_run
    assert (result.created, result.updated, result.deleted) == (1, 0, 0)
    assert result.change_lines == ["CREATE www.example.org A 1.2.3.4"]
    got = stored(provider)
    assert got[("www.example.org", "A")] == ["1.2.3.4"]
    txt = got[("a-www.example.org", "TXT")][0]
    assert f"external-dns/owner={OWNER}" in txt and "external-dns/resource=service/default/web" in txt
    assert txt.startswith('"heritage=external-dns,')


def test_second_sync_is_a_no_op() -> None:
    ctl, _, provider = make()
    ctl.run_once()
    before = stored(provider)
    noop_before = sample("external_dns_controller_no_op_runs_total")
    result = ctl.run_once()
    assert not result.has_changes and not result.applied
    assert stored(provider) == before
    assert sample("external_dns_controller_no_op_runs_total") == noop_before + 1


def test_target_change_updates_record_and_keeps_ownership() -> None:
    ctl, source, provider = make()
    ctl.run_once()
    source.desired = [ep("www.example.org", "A", "5.6.7.8")]
    result = ctl.run_once()
    assert (result.created, result.updated, result.deleted) == (0, 1, 0)
    assert stored(provider)[("www.example.org", "A")] == ["5.6.7.8"]
    assert ("a-www.example.org", "TXT") in stored(provider)


def test_removed_endpoint_deletes_only_our_records() -> None:
    ctl, source, provider = make()
    provider.apply_changes(Changes(create=[Endpoint("manual.example.org", "A", Targets(["9.9.9.9"]))]))
    ctl.run_once()
    source.desired = []
    result = ctl.run_once()
    assert result.deleted == 1
    assert stored(provider) == {("manual.example.org", "A"): ["9.9.9.9"]}


def test_unowned_record_is_never_touched() -> None:
    ctl, _, provider = make()
    provider.apply_changes(Changes(create=[Endpoint("www.example.org", "A", Targets(["9.9.9.9"]))]))
    result = ctl.run_once()  # desired 1.2.3.4 for a name we do not own
    assert not result.has_changes
    assert stored(provider) == {("www.example.org", "A"): ["9.9.9.9"]}


def test_upsert_only_never_deletes() -> None:
    ctl, source, provider = make(policy="upsert-only")
    ctl.run_once()
    source.desired = []
    result = ctl.run_once()
    assert not result.has_changes
    assert ("www.example.org", "A") in stored(provider)


def test_create_only_never_updates() -> None:
    ctl, source, provider = make(policy="create-only")
    ctl.run_once()
    source.desired = [ep("www.example.org", "A", "5.6.7.8")]
    assert not ctl.run_once().has_changes
    assert stored(provider)[("www.example.org", "A")] == ["1.2.3.4"]


def test_dry_run_writes_nothing_but_reports_the_plan() -> None:
    ctl, _, provider = make(dry_run=True)
    result = ctl.run_once()
    assert result.dry_run and not result.applied
    assert result.created == 1
    assert result.change_lines == ["CREATE www.example.org A 1.2.3.4"]
    assert stored(provider) == {}


def test_domain_filter_and_provider_zones_limit_the_plan() -> None:
    provider = InMemoryProvider(["example.org"])
    source = StaticSource([ep("www.example.org", "A", "1.1.1.1"), ep("api.other.org", "A", "2.2.2.2"),
                           ep("skip.example.org", "A", "3.3.3.3")])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync",
                     domain_filter=DomainFilter(exclude=["skip.example.org"]))
    result = ctl.run_once()
    assert result.change_lines == ["CREATE www.example.org A 1.1.1.1"]


def test_managed_and_excluded_record_types() -> None:
    provider = InMemoryProvider(["example.org"])
    source = StaticSource([ep("www.example.org", "A", "1.1.1.1"), ep("www.example.org", "AAAA", "2001:db8::1")])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync", exclude_record_types=["AAAA"])
    assert ctl.run_once().change_lines == ["CREATE www.example.org A 1.1.1.1"]


def test_noop_registry_deletes_everything_unwanted() -> None:
    provider = InMemoryProvider(["example.org"])
    provider.apply_changes(Changes(create=[Endpoint("old.example.org", "A", Targets(["9.9.9.9"]))]))
    ctl = Controller(StaticSource([]), NoopRegistry(provider), ["sync"])
    assert ctl.run_once().deleted == 1
    assert stored(provider) == {}


def test_metrics_follow_the_sync() -> None:
    ctl, source, _ = make()
    source.desired = [ep("www.example.org", "A", "1.2.3.4"), ep("api.example.org", "CNAME", "www.example.org")]
    ctl.run_once()
    ctl.run_once()
    assert sample("external_dns_source_endpoints_total") == 2
    assert sample("external_dns_source_records", record_type="a") == 1
    assert sample("external_dns_source_records", record_type="cname") == 1
    assert sample("external_dns_registry_endpoints_total") == 2
    assert sample("external_dns_registry_records", record_type="cname") == 1
    assert sample("external_dns_controller_verified_records", record_type="a") == 1
    assert sample("external_dns_controller_verified_records", record_type="aaaa") == 0
    assert sample("external_dns_controller_last_sync_timestamp_seconds") > 0
    assert sample("external_dns_controller_last_reconcile_timestamp_seconds") > 0


def test_source_error_is_counted_and_raised() -> None:
    ctl, source, _ = make()
    source.fail = RuntimeError("manifest unreadable")
    before = sample("external_dns_source_errors_total")
    with pytest.raises(RunOnceError, match="source endpoints: manifest unreadable") as info:
        ctl.run_once()
    assert info.value.step == "source endpoints"
    assert sample("external_dns_source_errors_total") == before + 1


def test_apply_error_is_counted_and_sync_time_not_updated() -> None:
    provider = FailingApplyProvider(["example.org"], RuntimeError("provider refused"))
    ctl = Controller(StaticSource([ep("www.example.org", "A", "1.2.3.4")]), TXTRegistry(provider, owner_id=OWNER),
                     "sync", clock=lambda: 12345.0)
    errors_before = sample("external_dns_registry_errors_total")
    with pytest.raises(RunOnceError, match="applying changes: provider refused"):
        ctl.run_once()
    assert sample("external_dns_registry_errors_total") == errors_before + 1
    assert sample("external_dns_controller_last_reconcile_timestamp_seconds") == 12345.0
    assert sample("external_dns_controller_last_sync_timestamp_seconds") != 12345.0


def test_run_once_for_one_zone() -> None:
    provider = InMemoryProvider(["a.org", "b.org"])
    source = StaticSource([ep("www.a.org", "A", "1.1.1.1"), ep("www.b.org", "A", "2.2.2.2")])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    result = ctl.run_once(zone="a.org")
    assert result.zone == "a.org"
    assert result.change_lines == ["CREATE www.a.org A 1.1.1.1"]
    assert ("www.b.org", "A") not in stored(provider)
    assert ctl.run_once(zone="b.org").created == 1
    assert not ctl.run_once().has_changes


def test_split_and_partition_by_zone() -> None:
    eps = [Endpoint("x.sub.a.org", "A"), Endpoint("y.a.org", "A"), Endpoint("nope.c.org", "A"),
           Endpoint("bada.org", "A")]
    groups = split_by_zone(eps, ["a.org", "sub.a.org"])
    assert {k: [e.dns_name for e in v] for k, v in groups.items()} == {
        "sub.a.org": ["x.sub.a.org"], "a.org": ["y.a.org"], None: ["nope.c.org", "bada.org"]}
    parts = partition_by_zone(eps[:1], eps[1:2], ["a.org", "sub.a.org"])
    assert {k: (len(c), len(d)) for k, (c, d) in parts.items()} == {"a.org": (0, 1), "sub.a.org": (1, 0)}


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown policy: bogus"):
        Controller(StaticSource(), NoopRegistry(InMemoryProvider()), "bogus")


def test_soft_errors_are_detected_through_the_cause_chain() -> None:
    try:
        try:
            raise SoftError("throttled")
        except SoftError as inner:
            raise RunOnceError("registry records", inner) from inner
    except RunOnceError as outer:
        assert is_soft_error(outer)
    assert not is_soft_error(RunOnceError("x", RuntimeError("hard")))
