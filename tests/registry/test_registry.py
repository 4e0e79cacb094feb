"""The Registry interface's defaults (registry/registry.py), through the smallest registry: a zone's records
filtered from records() (by name too, in name-key form), no zone journal, the safety gate's view as the zone's
records, and holds kept out of the provider's adjustment and returned unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import hold_for, is_hold
from external_dns.plan.changes import Changes
from external_dns.registry.registry import Registry, split_holds
from tests.registry.fakes import DictProvider, ep


class ZonedProvider(DictProvider):
    """Two zones; its adjustment drops target-less endpoints (as a webhook's may) and records what it saw."""

    def __init__(self, records: list[Endpoint]) -> None:
        super().__init__(records)
        self.adjusted: list[list[str]] = []

    def zones(self) -> Sequence[str]:
        return ("a.test", "b.test")

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        self.adjusted.append([e.dns_name for e in endpoints])
        return [e for e in endpoints if e.targets]


class PlainRegistry(Registry):
    def __init__(self, provider: ZonedProvider) -> None:
        self.provider = provider

    def records(self) -> list[Endpoint]:
        return self.provider.records()

    def apply_changes(self, changes: Changes) -> None:
        self.provider.apply_changes(changes)

    def owner_id(self) -> str:
        return ""


RECORDS = [ep("www.a.test", "A", "10.0.0.1"), ep("API.a.test", "A", "10.0.0.2"), ep("www.b.test", "A", "10.0.0.3"),
           ep("elsewhere.example", "A", "10.0.0.4")]


def names(eps: Sequence[Endpoint]) -> list[str]:
    return sorted(e.dns_name for e in eps)


def test_zone_records_filters_by_zone_and_by_name_key() -> None:
    reg = PlainRegistry(ZonedProvider(RECORDS))
    assert names(reg.zone_records("a.test")) == ["API.a.test", "www.a.test"]
    assert names(reg.zone_records("b.test")) == ["www.b.test"]
    assert names(reg.zone_records("a.test", ["api.a.test.", "www.b.test"])) == ["API.a.test"]
    assert reg.zone_records("a.test", []) == []


def test_no_journal_and_the_gate_counts_the_zones_records() -> None:
    reg = PlainRegistry(ZonedProvider(RECORDS))
    assert reg.zone_changes("a.test") is None  # cannot tell: every reconcile is a full one
    assert reg.zone_changes("a.test") is None
    assert names(reg.zone_view("a.test")) == names(reg.zone_records("a.test"))


def test_holds_skip_the_providers_adjustment_and_come_back_last() -> None:
    provider = ZonedProvider([])
    reg = PlainRegistry(provider)
    hold = hold_for("bad.a.test", "A", "targets: not an IPv4 address", "service/default/bad")
    assert hold is not None and is_hold(hold)
    good = ep("www.a.test", "A", "10.0.0.1")
    out = reg.adjust_endpoints([hold, good])
    assert out == [good, hold]
    assert provider.adjusted == [["www.a.test"]]  # the provider never saw the hold, so could not drop it


def test_split_holds() -> None:
    plain = [ep("www.a.test", "A", "10.0.0.1")]
    eps, holds = split_holds(plain)
    assert eps is plain and holds == []  # nothing to split: the list itself
    hold = hold_for("bad.a.test", "A", "targets: bad")
    assert hold is not None
    empty = Endpoint("empty.a.test", "A")  # target-less but no hold label: not a hold
    eps, holds = split_holds([hold, *plain, empty])
    assert eps == [*plain, empty] and holds == [hold]
