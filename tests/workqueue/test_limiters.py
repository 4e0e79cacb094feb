"""Rate limiter maths (client-go default_rate_limiters_test.go re-expressed) and the rate-limiting queue."""

from __future__ import annotations

import threading

import pytest

from external_dns.workqueue import (
    BucketRateLimiter,
    FakeClock,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimitingQueue,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
)


def test_exponential_failure_doubles_per_item_and_caps() -> None:
    lim = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    assert [lim.when("a") for _ in range(5)] == pytest.approx([0.005, 0.010, 0.020, 0.040, 0.080])
    assert lim.when("b") == pytest.approx(0.005), "failures are counted per item"
    assert lim.num_requeues("a") == 5
    lim.forget("a")
    assert lim.num_requeues("a") == 0
    assert lim.when("a") == pytest.approx(0.005)


def test_exponential_failure_reaches_cap_on_19th_failure_and_survives_overflow() -> None:
    lim = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    delays = [lim.when("x") for _ in range(19)]
    assert delays[17] == pytest.approx(0.005 * 2**17)  # 655 s
    assert delays[18] == 1000.0
    for _ in range(3000):
        last = lim.when("x")
    assert last == 1000.0


def test_fast_slow() -> None:
    lim = ItemFastSlowRateLimiter(0.005, 10.0, 3)
    assert [lim.when("a") for _ in range(5)] == [0.005, 0.005, 0.005, 10.0, 10.0]
    assert lim.num_requeues("a") == 5
    lim.forget("a")
    assert lim.when("a") == 0.005


def test_bucket_starts_full_then_charges_debt_and_refills() -> None:
    clock = FakeClock()
    lim = BucketRateLimiter(10.0, 100, clock=clock)
    assert all(lim.when(i) == 0.0 for i in range(100))
    assert lim.when("x") == pytest.approx(0.1)
    assert lim.when("y") == pytest.approx(0.2)
    clock.step(1.0)  # +10 tokens: balance -2 -> 8
    assert all(lim.when(i) == 0.0 for i in range(8))
    assert lim.when("z") == pytest.approx(0.1)
    clock.step(1000.0)  # never more than burst
    assert sum(1 for i in range(150) if lim.when(i) == 0.0) == 100
    assert lim.num_requeues("x") == 0


def test_bucket_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="qps"):
        BucketRateLimiter(0, 10)
    with pytest.raises(ValueError, match="burst"):
        BucketRateLimiter(1, 0)


def test_max_of_asks_every_limiter() -> None:
    clock = FakeClock()
    exp = ItemExponentialFailureRateLimiter(0.001, 1.0)
    bucket = BucketRateLimiter(1.0, 1, clock=clock)
    lim = MaxOfRateLimiter(exp, bucket)
    assert lim.when("a") == pytest.approx(0.001)  # bucket had a token
    assert lim.when("a") == pytest.approx(1.0)  # bucket debt 1 s > 2 ms
    assert exp.num_requeues("a") == 2, "the exponential limiter was asked both times"
    assert lim.num_requeues("a") == 2
    lim.forget("a")
    assert lim.num_requeues("a") == 0


def test_default_controller_rate_limiter() -> None:
    clock = FakeClock()
    lim = default_controller_rate_limiter(clock=clock)
    assert lim.when("one") == pytest.approx(0.005)
    assert lim.when("one") == pytest.approx(0.010)
    for i in range(98):
        lim.when(i)
    assert lim.when("fresh") == pytest.approx(0.1)  # 101st reservation: bucket debt


def test_with_max_wait() -> None:
    lim = WithMaxWaitRateLimiter(ItemExponentialFailureRateLimiter(1.0, 100.0), 3.0)
    assert [lim.when("a") for _ in range(4)] == [1.0, 2.0, 3.0, 3.0]
    assert lim.num_requeues("a") == 4


def test_rate_limiting_queue_backs_off_and_forgets() -> None:
    clock = FakeClock()
    q: RateLimitingQueue[str] = RateLimitingQueue(ItemExponentialFailureRateLimiter(1.0, 60.0), clock=clock)
    try:
        q.add_rate_limited("k")  # 1 s
        q.add_rate_limited("k")  # 2 s, dedupe keeps the earlier 1 s
        assert q.num_requeues("k") == 2
        assert q.waiting() == 1
        clock.step(1.0)
        assert q.get(timeout=5) == ("k", False)
        q.forget("k")
        assert q.num_requeues("k") == 0
        q.done("k")
        assert len(q) == 0, "forget does not add or remove"
    finally:
        q.shut_down()


def test_sample_controller_worker_loop_retries_then_forgets() -> None:
    """processNextWorkItem: failure -> add_rate_limited, success -> forget; done() always."""
    q: RateLimitingQueue[str] = RateLimitingQueue(ItemExponentialFailureRateLimiter(0.001, 0.01))
    attempts: dict[str, int] = {}
    requeues_seen: list[int] = []
    finished = threading.Event()

    def sync(key: str) -> None:
        attempts[key] = attempts.get(key, 0) + 1
        if key == "flaky" and attempts[key] <= 3:
            raise RuntimeError("transient")

    def worker() -> None:
        while True:
            key, shutdown = q.get()
            if shutdown:
                return
            assert key is not None
            try:
                sync(key)
                q.forget(key)
                if key == "flaky":
                    finished.set()
            except RuntimeError:
                requeues_seen.append(q.num_requeues(key))
                q.add_rate_limited(key)
            finally:
                q.done(key)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    q.add("flaky")
    q.add("fine")
    assert finished.wait(5)
    q.shut_down()
    for t in threads:
        t.join(5)
    assert attempts == {"flaky": 4, "fine": 1}
    assert requeues_seen == [0, 1, 2]
    assert q.num_requeues("flaky") == 0
