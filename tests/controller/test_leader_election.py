"""Leader election against the test Kubernetes API server: one leader at a time, fail-over after the leader
stops renewing, fast takeover after a release, 409 conflicts, loss of leadership on failed renewals."""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import kubernetes.client
import pytest

from external_dns.cmd.config import load_config
from external_dns.cmd.wiring import leader_election_options
from external_dns.controller.leader_election import (
    LeaderElectionRecord,
    LeaderElector,
    LeaseLock,
    leader_elector,
)
from external_dns.informers.api import format_micro_time
from tests.helpers.threads import thread_leak_check
from tests.kubeapi.server import KubeAPIServer

MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
FAST = {"lease_duration": 1.0, "renew_deadline": 0.6, "retry_period": 0.2}
LEASE = ("coordination.k8s.io/v1", "Lease", "default", "le-test")


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check(ignore_prefix="kubeapi-")


class Candidate:
    """An elector plus a log of its callbacks (monotonic timestamps)."""

    def __init__(self, config: kubernetes.client.Configuration, identity: str, **kwargs: Any) -> None:
        self.api = kubernetes.client.ApiClient(config)
        self.started = threading.Event()
        self.stopped = threading.Event()
        self.intervals: list[list[float]] = []
        self.new_leaders: list[str] = []
        options = {**FAST, **kwargs}
        self.elector = LeaderElector(self.api, name=LEASE[3], identity=identity,
                                     on_started_leading=self._on_start, on_stopped_leading=self._on_stop,
                                     on_new_leader=self.new_leaders.append, **options)

    def _on_start(self) -> None:
        self.intervals.append([time.monotonic(), float("inf")])
        self.stopped.clear()
        self.started.set()

    def _on_stop(self) -> None:
        self.intervals[-1][1] = time.monotonic()
        self.started.clear()
        self.stopped.set()

    def close(self) -> None:
        assert self.elector.stop(5.0)
        self.api.close()


@pytest.fixture
def candidates(kube_config: kubernetes.client.Configuration) -> Iterator[list[Candidate]]:
    made: list[Candidate] = []
    yield made
    for c in made:
        c.close()


def lease_spec(kubeapi: KubeAPIServer) -> dict[str, Any]:
    lease = kubeapi.get(*LEASE)
    assert lease is not None
    spec: dict[str, Any] = lease["spec"]
    return spec


def test_micro_time_always_has_six_fraction_digits() -> None:
    assert format_micro_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000000Z"
    assert format_micro_time(datetime(2026, 1, 2, 3, 4, 5, 120, tzinfo=UTC)) == "2026-01-02T03:04:05.000120Z"


def test_elector_from_flags() -> None:
    _, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync", "--leader-elect",
                          "--leader-elect-name=my-lease", "--leader-elect-namespace=dns"], environ={})
    api = kubernetes.client.ApiClient(kubernetes.client.Configuration())
    try:
        elector = leader_elector(api, leader_election_options(cfg), identity="me")
        assert (elector.lock.namespace, elector.lock.name, elector.identity) == ("dns", "my-lease", "me")
        assert (elector.lease_duration, elector.renew_deadline, elector.retry_period) == (15.0, 10.0, 2.0)
        assert not elector.is_leader() and not elector.ready()
    finally:
        api.close()


def test_timing_validation() -> None:
    api = kubernetes.client.ApiClient(kubernetes.client.Configuration())
    try:
        with pytest.raises(ValueError, match="greater than the renew deadline"):
            LeaderElector(api, name="x", lease_duration=10, renew_deadline=10, retry_period=2)
        with pytest.raises(ValueError, match="retry period"):
            LeaderElector(api, name="x", lease_duration=15, renew_deadline=2, retry_period=2)
        with pytest.raises(ValueError, match="whole number"):
            LeaderElector(api, name="x", lease_duration=1.5, renew_deadline=1, retry_period=0.2)
    finally:
        api.close()


@pytest.mark.integration
def test_acquires_writes_a_valid_lease_and_renews(kubeapi: KubeAPIServer, kube_config: Any,
                                                  candidates: list[Candidate]) -> None:
    a = Candidate(kube_config, "a")
    candidates.append(a)
    a.elector.start()
    assert a.started.wait(5)
    assert a.elector.is_leader()
    spec = lease_spec(kubeapi)
    assert spec["holderIdentity"] == "a"
    assert spec["leaseDurationSeconds"] == 1
    assert spec["leaseTransitions"] == 0
    assert MICRO_TIME.match(spec["acquireTime"]) and MICRO_TIME.match(spec["renewTime"])
    first_renew = spec["renewTime"]
    rv = kubeapi.get(*LEASE)["metadata"]["resourceVersion"]  # type: ignore[index]
    deadline = time.monotonic() + 5
    while lease_spec(kubeapi)["renewTime"] == first_renew and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    renewed = kubeapi.get(*LEASE)
    assert renewed is not None and renewed["spec"]["renewTime"] > first_renew
    assert renewed["spec"]["acquireTime"] == spec["acquireTime"], "a renewal keeps acquireTime"
    assert renewed["metadata"]["resourceVersion"] != rv
    assert a.new_leaders == ["a"]
    assert a.elector.get_leader() == "a"
    assert a.elector.ready()


@pytest.mark.integration
def test_two_electors_never_lead_at_once_and_release_makes_takeover_fast(
        kubeapi: KubeAPIServer, kube_config: Any, candidates: list[Candidate]) -> None:
    a, b, c = (Candidate(kube_config, name) for name in ("a", "b", "c"))
    candidates.extend([a, b, c])
    overlaps: list[tuple[str, ...]] = []
    sampling = threading.Event()

    def sample() -> None:  # independent check of is_leader() every 10 ms
        while not sampling.wait(0.01):
            leaders = tuple(x.elector.identity for x in (a, b, c) if x.elector.is_leader())
            if len(leaders) > 1:
                overlaps.append(leaders)

    sampler = threading.Thread(target=sample, name="test-sampler")
    sampler.start()
    try:
        for cand in (a, b, c):
            cand.elector.start()
        deadline = time.monotonic() + 5
        while not any(x.started.is_set() for x in (a, b, c)) and time.monotonic() < deadline:
            threading.Event().wait(0.02)
        leader = next(x for x in (a, b, c) if x.started.is_set())
        threading.Event().wait(1.5)  # several lease durations: standbys keep standing by
        assert [x for x in (a, b, c) if x.started.is_set()] == [leader]
        standbys = [x for x in (a, b, c) if x is not leader]
        assert all(s.elector.standing_by() and s.elector.ready() for s in standbys)

        stop_at = time.monotonic()
        leader.elector.stop(5)  # releases the Lease
        assert leader.stopped.is_set()
        deadline = time.monotonic() + 5
        while not any(s.started.is_set() for s in standbys) and time.monotonic() < deadline:
            threading.Event().wait(0.01)
        new = next(s for s in standbys if s.started.is_set())
        takeover = new.intervals[-1][0] - stop_at
        print(f"\ntakeover after the leader released the Lease: {takeover:.2f}s (retry 0.2 s)")
        # released: next retry (<= 2.2 x retry period) instead of a full lease duration (1 s)
        assert takeover < 0.8, f"takeover after release took {takeover:.2f}s"
        spec = lease_spec(kubeapi)
        assert spec["holderIdentity"] == new.elector.identity
        assert spec["leaseTransitions"] == 1
    finally:
        sampling.set()
        sampler.join(5)
    assert overlaps == []
    spans = sorted(i for x in (a, b, c) for i in x.intervals)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end <= start, "two candidates were leading at the same time (callbacks overlap)"


@pytest.mark.integration
def test_takeover_after_the_leader_stops_renewing(kubeapi: KubeAPIServer, kube_config: Any,
                                                  candidates: list[Candidate]) -> None:
    a = Candidate(kube_config, "a", release_on_cancel=False)
    b = Candidate(kube_config, "b")
    candidates.extend([a, b])
    a.elector.start()
    assert a.started.wait(5)
    b.elector.start()
    threading.Event().wait(0.5)
    assert not b.started.is_set()
    stop_at = time.monotonic()
    a.elector.stop(5)  # "crash": no release, the Lease still names a
    assert lease_spec(kubeapi)["holderIdentity"] == "a"
    assert b.started.wait(5)
    failover = b.intervals[-1][0] - stop_at
    print(f"\nfail-over after the leader stopped renewing: {failover:.2f}s (lease 1 s, retry 0.2 s)")
    # the last renewal was at most one retry period before the stop; b waits a full lease after seeing it
    assert 0.6 <= failover <= 3.0
    spec = lease_spec(kubeapi)
    assert spec["holderIdentity"] == "b" and spec["leaseTransitions"] == 1
    assert b.new_leaders == ["a", "b"]


@pytest.mark.integration
def test_leader_gives_up_when_renewals_fail_for_the_renew_deadline(kubeapi: KubeAPIServer, kube_config: Any,
                                                                   candidates: list[Candidate]) -> None:
    a = Candidate(kube_config, "a")
    candidates.append(a)
    a.elector.start()
    assert a.started.wait(5)
    kubeapi.fail_next(1000, 500, path_contains="/leases/le-test")
    broke_at = time.monotonic()
    assert a.stopped.wait(5)
    lost_after = a.intervals[-1][1] - broke_at
    assert not a.elector.is_leader()
    assert 0.3 <= lost_after <= 1.5, f"gave up after {lost_after:.2f}s (renew deadline 0.6 s)"
    kubeapi.faults.reset()
    assert a.started.wait(5), "the same identity re-acquires its own Lease once the API answers again"
    assert len(a.intervals) == 2


@pytest.mark.integration
def test_conflict_409_is_retried_later(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    """Someone changes the Lease between our GET and PUT: the server answers 409; we must not claim
    leadership in that round, and must win a later round."""

    class RacingLock(LeaseLock):
        conflicts = 0

        def update(self, lease: dict[str, Any], record: LeaderElectionRecord, timeout: float) -> dict[str, Any]:
            if RacingLock.conflicts == 0:
                current = kubeapi.get(*LEASE)
                assert current is not None
                current["metadata"].setdefault("annotations", {})["touched"] = "yes"
                kubeapi.update(current)  # bumps resourceVersion: our PUT is now stale
            try:
                return super().update(lease, record, timeout)
            except kubernetes.client.ApiException as exc:
                if exc.status == 409:
                    RacingLock.conflicts += 1
                raise

    now = format_micro_time(datetime.now(UTC))
    kubeapi.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": LEASE[3], "namespace": "default"},
                    "spec": {"holderIdentity": "", "leaseDurationSeconds": 1, "renewTime": now,
                             "acquireTime": now, "leaseTransitions": 3}})
    cand = Candidate(kube_config, "a")
    cand.elector.lock = RacingLock(cand.api, "default", LEASE[3])
    try:
        cand.elector.start()
        assert cand.started.wait(5)
        assert RacingLock.conflicts == 1
        puts = [r for r in kubeapi.requests if r[0] == "PUT" and "/leases/" in r[1]]
        assert [r[3] for r in puts[:2]] == [409, 200]
        spec = lease_spec(kubeapi)
        assert spec["holderIdentity"] == "a"
        assert spec["leaseTransitions"] == 4
        assert kubeapi.get(*LEASE)["metadata"]["annotations"] == {"touched": "yes"}  # type: ignore[index]
    finally:
        cand.close()
