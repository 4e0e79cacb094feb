"""`--once` / `apply` write zone by zone: a zone whose write fails never stops the other zones; the failure is
raised (exit 1) after every zone was tried, naming the failed zones."""

from __future__ import annotations

import pytest

from external_dns.controller.controller import RunOnceError
from external_dns.controller.progress import Progress
from external_dns.controller.zone_plans import apply_zone_plans
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import ProviderError
from external_dns.registry import NoopRegistry


class FailingZones(InMemoryProvider):
    """Refuses every write that touches a name under one of `bad` zones."""

    def __init__(self, zones: list[str], bad: set[str]) -> None:
        super().__init__(zones)
        self.bad = bad

    def apply_changes(self, changes: Changes) -> None:
        for ep in changes.create + changes.update_new + changes.delete:
            if any(ep.dns_name.endswith(zone) for zone in self.bad):
                raise ProviderError(f"throttled writing {ep.dns_name}")
        super().apply_changes(changes)


def create(*names: str) -> Changes:
    return Changes(create=[Endpoint(n, "A", Targets(["192.0.2.1"])) for n in names])


def names(provider: InMemoryProvider, zone: str) -> list[str]:
    return sorted(ep.dns_name for ep in provider.zone_records(zone))


def test_a_failing_zone_does_not_stop_the_zones_after_it() -> None:
    provider = FailingZones(["a.org", "b.org", "c.org"], bad={"a.org"})
    works = [("a.org", create("www.a.org")), ("b.org", create("www.b.org", "api.b.org")), ("c.org", create("x.c.org"))]
    with pytest.raises(RunOnceError) as info:
        apply_zone_plans(NoopRegistry(provider), works, Progress("none"), batch_size=1)
    assert info.value.step == "applying changes"
    assert str(info.value) == "applying changes: throttled writing www.a.org"
    assert names(provider, "a.org") == []
    assert names(provider, "b.org") == ["api.b.org", "www.b.org"]
    assert names(provider, "c.org") == ["x.c.org"]


def test_every_failed_zone_is_named_and_the_good_ones_are_counted() -> None:
    provider = FailingZones(["a.org", "b.org", "c.org"], bad={"a.org", "c.org"})
    works = [("a.org", create("www.a.org")), ("b.org", create("www.b.org")), ("c.org", create("x.c.org"))]
    with pytest.raises(RunOnceError, match=r"2 zones failed \(a\.org\., c\.org\.\); the first: throttled writing www\.a\.org"):
        apply_zone_plans(NoopRegistry(provider), works, Progress("none"), batch_size=50)
    assert names(provider, "b.org") == ["www.b.org"]
    ok = FailingZones(["a.org", "b.org"], bad=set())
    assert apply_zone_plans(NoopRegistry(ok), works[:2], Progress("none"), batch_size=50) == 2
