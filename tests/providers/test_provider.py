"""The Provider interface's wrappers (providers/provider.py): CachedProvider serves records until they expire, drops
the cache on a write, gives copies, and counts its calls under external-dns's metric names."""

from __future__ import annotations

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import CachedProvider
from external_dns.workqueue import FakeClock
from tests.helpers.endpoints import ep, keys


class CountingProvider(InMemoryProvider):
    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.record_calls = 0
        self.apply_calls = 0

    def records(self) -> list[Endpoint]:
        self.record_calls += 1
        return super().records()

    def apply_changes(self, changes: Changes) -> None:
        self.apply_calls += 1
        super().apply_changes(changes)


def test_cached_provider_serves_records_until_expiry_and_invalidates_on_apply() -> None:
    clock = FakeClock(100.0)
    inner = CountingProvider(["example.org"])
    cached = CachedProvider(inner, refresh_interval=60, clock=clock.now)
    assert cached.records() == []
    cached.records()
    assert inner.record_calls == 1
    clock.step(61)
    cached.records()
    assert inner.record_calls == 2
    cached.apply_changes(Changes())  # nothing to do: not forwarded, cache kept
    assert inner.apply_calls == 0
    cached.records()
    assert inner.record_calls == 2
    cached.apply_changes(Changes(create=[ep("www.example.org", "A", "1.1.1.1")]))
    assert inner.apply_calls == 1
    assert keys(cached.records()) == {("www.example.org", "A", "", ("1.1.1.1",))}
    assert inner.record_calls == 3
    got = cached.records()
    got[0].targets[0] = "6.6.6.6"
    assert keys(cached.records()) == {("www.example.org", "A", "", ("1.1.1.1",))}, "callers get copies"
    assert list(cached.zones()) == ["example.org"]


def test_cached_provider_metrics_use_external_dns_names_without_total() -> None:
    from prometheus_client import REGISTRY, generate_latest

    def value(name: str, **labels: str) -> float:
        got = REGISTRY.get_sample_value(name, labels)
        return 0.0 if got is None else got

    records = "external_dns_provider_cache_records_calls"
    apply = "external_dns_provider_cache_apply_changes_calls"
    before = (value(records, from_cache="true"), value(records, from_cache="false"), value(apply))
    cached = CachedProvider(InMemoryProvider(["example.org"]), refresh_interval=60, clock=FakeClock(0.0).now)
    cached.records()
    cached.records()
    cached.records()
    cached.apply_changes(Changes())
    cached.apply_changes(Changes(create=[ep("www.example.org", "A", "1.1.1.1")]))
    assert value(records, from_cache="true") == before[0] + 2
    assert value(records, from_cache="false") == before[1] + 1
    assert value(apply) == before[2] + 1
    text = generate_latest(REGISTRY).decode()
    assert f'\n{records}{{from_cache="true"}} ' in text and f"\n{apply} " in text
    assert f"{records}_total" not in text and f"{apply}_total" not in text
