"""DNSRecords reconciled in batches (`Reconciler.reconcile_many`, a worker's keys): one provider write per zone
for the batch, each record's status from its own part of the outcome; overlapping records written one after
the other (as single passes would); a record the provider refuses fails alone (the write is split);
a provider that is down is not asked 2n-1 times; the worker takes the waiting keys as one batch."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from external_dns.controller.dnsrecord.controller import DNSRecordController
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.registry import SubtreeIndex
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import API_VERSION, KIND, RESOURCE
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.informers import SharedInformerFactory
from external_dns.plan.changes import Changes
from external_dns.providers.provider import ProviderError, SoftError
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import (
    START,
    CountingProvider,
    a_record,
    find,
    get,
    ready,
    reconciler,
    record,
    zonefile,
)
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


class Refusing(CountingProvider):
    """Refuses (as a strict provider refuses a batch) every write that holds a name in `bad`; with `partial`,
    writes the rest first (as PowerDNS applies the other requests of a change set before reporting a 422);
    with `down`, fails every write with a SoftError (a provider that cannot be reached)."""

    def __init__(self, inner: ZoneFileProvider, bad: frozenset[str] = frozenset(), *, partial: bool = False,
                 down: bool = False) -> None:
        super().__init__(inner)
        self.bad, self.partial, self.down = bad, partial, down
        self.attempts: list[int] = []  # records (A) per write attempt

    def apply_changes(self, changes: Changes) -> None:
        self.attempts.append(sum(ep.record_type == "A" for ep in changes.all_endpoints()))
        if self.down:
            raise SoftError("provider unreachable")
        refused = [ep for ep in changes.all_endpoints()
                   if any(ep.dns_name == f"{b}.example.com" or ep.dns_name.endswith(f"-{b}.example.com")
                          for b in self.bad)]
        if refused:
            if self.partial:
                rest = Changes(create=[ep for ep in changes.create if ep not in refused])
                self.inner.apply_changes(rest)
            raise ProviderError(f"refused {refused[0].dns_name}")
        super().apply_changes(changes)


def names(n: int) -> list[str]:
    return [f"r{i}" for i in range(n)]


def create_all(kubeapi: KubeAPIServer, ns: list[str], owner: str | None = None) -> None:
    for name in ns:
        kubeapi.create(record(name, f"{name}.example.com", [a_record(f"{name}.example.com", "192.0.2.1")],
                              owner=owner))


def reason(kubeapi: KubeAPIServer, name: str) -> str:
    return str(ready(get(kubeapi, name))["reason"])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=START)


def test_one_provider_write_for_a_batch(kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path,
                                        clock: FakeClock) -> None:
    provider = CountingProvider(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    ns = names(20)
    create_all(kubeapi, ns)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert {r.action for r in results.values()} == {"applied"}
    assert provider.writes == 1  # one zone-file rewrite for the 20 records (each with its ownership TXT)
    for n in ns:
        assert find(provider, f"{n}.example.com") is not None
        status = get(kubeapi, n)["status"]  # type: ignore[index]
        assert ready(get(kubeapi, n))["reason"] == "AwaitingValidation" and status["writeCounter"] == 0
    clock.step(10)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert {r.action for r in results.values()} == {"ready"}
    assert provider.writes == 1  # validation passes write nothing
    for n in ns:
        kubeapi.delete(API_VERSION, KIND, "default", n)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert {r.action for r in results.values()} == {"deleting"}
    assert provider.writes == 2
    clock.step(10)
    assert {r.action for r in rec.reconcile_many([f"default/{n}" for n in ns]).values()} == {"finalizer-removed"}
    assert all(find(provider, f"{n}.example.com") is None for n in ns)
    assert not [n for n in provider.inner.zone_snapshot("example.com").names() if n != "example.com"]


def test_a_refused_record_fails_alone(kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path,
                                      clock: FakeClock) -> None:
    provider = Refusing(zonefile(tmp_path), frozenset({"r5"}))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    ns = names(16)
    create_all(kubeapi, ns)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert results["default/r5"].error and "refused r5.example.com" in results["default/r5"].error
    assert reason(kubeapi, "r5") == "ProviderError"
    assert find(provider, "r5.example.com") is None
    for n in ns:
        if n != "r5":
            assert results[f"default/{n}"].action == "applied", n
            assert find(provider, f"{n}.example.com") is not None
    # Split in halves down to the refused record (16 -> 8 -> 4 -> 2 -> 1), the other halves written whole.
    assert provider.attempts == [16, 8, 4, 4, 2, 1, 1, 2, 8]
    clock.step(10)
    results = rec.reconcile_many([f"default/{n}" for n in ns if n != "r5"])
    assert {r.action for r in results.values()} == {"ready"}
    assert all(reason(kubeapi, n) == "ProviderSuccess" for n in ns if n != "r5")


def test_a_provider_that_applied_the_rest_before_refusing(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                          tmp_path: Path, clock: FakeClock) -> None:
    provider = Refusing(zonefile(tmp_path), frozenset({"r2"}), partial=True)
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    ns = names(4)
    create_all(kubeapi, ns)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert results["default/r2"].error
    # Planned again after the refusal, the records the provider took show no changes: their records are there.
    assert {results[f"default/{n}"].action for n in ("r0", "r1", "r3")} == {"ready"}
    assert all(reason(kubeapi, n) == "ProviderSuccess" for n in ("r0", "r1", "r3"))
    assert provider.attempts == [4, 1]  # the second attempt: r2 alone (its half-mate r3 was already in)


def test_a_provider_down_is_not_retried_per_half(kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path,
                                                 clock: FakeClock) -> None:
    provider = Refusing(zonefile(tmp_path), down=True)
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    ns = names(8)
    create_all(kubeapi, ns)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert all(r.error == "provider unreachable" for r in results.values())
    assert provider.attempts == [8]  # planned again, nothing moved: all fail with the error, no split
    for n in ns:
        status = get(kubeapi, n)["status"]  # type: ignore[index]
        assert reason(kubeapi, n) == "ProviderError" and status["writeCounter"] == 0


def test_records_claiming_one_name_are_written_one_after_the_other(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                                   tmp_path: Path, clock: FakeClock) -> None:
    """Two owners claim the same name in one batch: as with two single passes, the first writes it and the
    second is refused as another owner's record (it saw the first's write: deferred and planned again)."""
    provider = CountingProvider(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    kubeapi.create(record("first", "shared.example.com", [a_record("shared.example.com", "192.0.2.1")],
                          owner="owner-one"))
    kubeapi.create(record("other", "other.example.com", [a_record("other.example.com", "192.0.2.3")]))
    kubeapi.create(record("second", "shared.example.com", [a_record("shared.example.com", "192.0.2.2")],
                          owner="owner-two"))
    results = rec.reconcile_many(["default/first", "default/other", "default/second"])
    assert results["default/first"].action == "applied" and results["default/other"].action == "applied"
    assert "shared.example.com A is" in results["default/second"].error
    assert reason(kubeapi, "second") == "ProviderError"
    assert provider.writes == 1
    ep = find(provider, "shared.example.com")
    assert ep is not None and list(ep.targets) == ["192.0.2.1"]


def test_a_parent_root_host_is_planned_after_the_write_below_it(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                                tmp_path: Path, clock: FakeClock) -> None:
    """Same owner, rootHost `example.com` after a record under it: the parent's plan must see the child's
    write (a single pass after the child's would), so it is planned again after that write."""
    provider = CountingProvider(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    kubeapi.create(record("child", "a.example.com", [a_record("a.example.com", "192.0.2.1")], owner="same-owner"))
    kubeapi.create(record("parent", "example.com", [a_record("www.example.com", "192.0.2.2")], owner="same-owner"))
    results = rec.reconcile_many(["default/child", "default/parent"])
    assert results["default/child"].action == "applied" and results["default/parent"].action == "applied"
    assert provider.writes == 2
    # The parent's sync plan saw a.example.com (same owner, not desired by it) and deleted it, as it would have.
    assert find(provider, "a.example.com") is None and find(provider, "www.example.com") is not None


def test_worker_takes_the_waiting_keys_as_one_batch(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                    tmp_path: Path) -> None:
    provider = CountingProvider(zonefile(tmp_path))
    ns = names(30)
    create_all(kubeapi, ns)
    factory = SharedInformerFactory(kube_api_client)
    informer = factory.informer_for(RESOURCE, namespace=None)
    options = Options(min_requeue_time=1.0, requeue_time=900.0, valid_for=840.0)
    rec = Reconciler(provider, RecordAPI(kube_api_client), informer.get_store().get_by_key, options,
                     rng=random.Random(3))
    ctl = DNSRecordController(rec, informer, workers=1, batch_size=16)
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    ctl.start()
    try:
        assert ctl.wait_until(lambda: sum(o.result.action == "ready" for o in ctl.outcomes()) >= 30, 30.0)
    finally:
        assert ctl.close(5.0)
        assert factory.shutdown(5.0)
    assert all(reason(kubeapi, n) == "ProviderSuccess" for n in ns)
    # 30 keys waiting at start, batches of at most 16: two writes (without batches: 30).
    assert provider.writes == 2


def test_subtree_index_follows_the_snapshot() -> None:
    rng = random.Random(5)
    snap = ZoneSnapshot("example.com")
    index = SubtreeIndex()
    pool = ["example.com", "a.example.com", "b.a.example.com", "a-b.example.com", "x.b.a.example.com",
            "kuadrant-x-a-a.example.com", "c.example.com", "d.c.example.com", "ab.example.com"]
    for step in range(300):
        name = rng.choice(pool)
        eps = [] if rng.random() < 0.4 else [Endpoint(name, "A", Targets(["192.0.2.1"]))]
        snap.set_name(name, eps)
        if step % 50 == 49:  # a new snapshot object: rebuilt
            snap = ZoneSnapshot("example.com", snap.endpoints())
        for root in ("example.com", "a.example.com", "c.example.com", "b.a.example.com", "zz.example.com"):
            want = sorted(n for n in snap.names() if n == root or n.endswith("." + root))
            assert sorted(index.under(snap, root)) == want, (step, root)


def test_a_plan_refused_before_an_earlier_write_is_planned_again_after_it(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    """A deleting record frees a name that another owner's record claims in the same batch: the claim, refused
    against the zone before the delete, is planned again after the delete's write (as a pass after it would)."""
    provider = CountingProvider(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    kubeapi.create(record("old", "shared.example.com", [a_record("shared.example.com", "192.0.2.1")],
                          owner="owner-one"))
    assert rec.reconcile("default/old").action == "applied"
    kubeapi.delete(API_VERSION, KIND, "default", "old")
    kubeapi.create(record("new", "shared.example.com", [a_record("shared.example.com", "192.0.2.2")],
                          owner="owner-two"))
    results = rec.reconcile_many(["default/old", "default/new"])
    assert results["default/old"].action == "deleting" and results["default/new"].action == "applied"
    assert provider.writes == 3
    ep = find(provider, "shared.example.com")
    assert ep is not None and list(ep.targets) == ["192.0.2.2"]


class Unreadable(CountingProvider):
    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        self.reads += 1
        raise SoftError(f"zone {zone} unreachable")


def test_a_zone_that_cannot_be_read_is_read_once_per_batch(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                           tmp_path: Path, clock: FakeClock) -> None:
    provider = Unreadable(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    ns = names(6)
    create_all(kubeapi, ns)
    results = rec.reconcile_many([f"default/{n}" for n in ns])
    assert all(r.error == "zone example.com unreachable" for r in results.values())
    assert all(reason(kubeapi, n) == "ProviderError" for n in ns)
    assert provider.reads == 1 and provider.writes == 0  # one read for the batch, not one per record


def test_records_written_before_a_bug_in_a_later_round_keep_their_status(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    """The child's write is done when planning the parent (deferred to a second round) fails on a bug: the
    child's AwaitingValidation status is still written (the statuses are written after the zone's rounds)."""
    provider = CountingProvider(zonefile(tmp_path))
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    kubeapi.create(record("child", "a.example.com", [a_record("a.example.com", "192.0.2.1")], owner="same-owner"))
    kubeapi.create(record("parent", "example.com", [a_record("www.example.com", "192.0.2.2")], owner="same-owner"))
    rounds = rec.batcher._round

    def second_round_fails(jobs: Any) -> Any:
        if provider.writes:
            raise RuntimeError("a bug")
        return rounds(jobs)

    rec.batcher._round = second_round_fails  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        rec.reconcile_many(["default/child", "default/parent"])
    assert provider.writes == 1 and find(provider, "a.example.com") is not None
    assert reason(kubeapi, "child") == "AwaitingValidation"
