"""Rate limiter maths (workqueue/limiters.py; client-go default_rate_limiters_test.go re-expressed)."""

from __future__ import annotations

import pytest

from external_dns.workqueue import (
    BucketRateLimiter,
    FakeClock,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
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
