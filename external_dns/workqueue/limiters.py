"""Rate limiters for the rate-limiting queue (client-go `default_rate_limiters.go` semantics).

A limiter answers `when(item)` (seconds to wait before the item may be retried; it records the attempt),
`num_requeues(item)` and `forget(item)` (clear the item's failure history). All are thread-safe and take an
injectable clock where time matters.

* `ItemExponentialFailureRateLimiter(base, max)`: `base * 2**failures`, capped at `max`.
* `ItemFastSlowRateLimiter(fast, slow, max_fast_attempts)`: `fast` for the first attempts, then `slow`.
* `BucketRateLimiter(qps, burst)`: one token bucket for all items (starts full; a reservation may go into
  debt, the debt is the delay), like `golang.org/x/time/rate` `Reserve().Delay()`.
* `MaxOfRateLimiter(*limiters)`: the largest answer; every limiter is asked, so each updates its state.
* `WithMaxWaitRateLimiter(limiter, max_delay)`: caps another limiter's delay.
* `default_controller_rate_limiter()`: MaxOf(ItemExponentialFailure(5 ms, 1000 s), Bucket(10 qps, 100)).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Protocol

from external_dns.workqueue.clock import REAL_CLOCK, Clock


class RateLimiter(Protocol):
    def when(self, item: Hashable) -> float: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...


class _PerItemFailures:
    """The failure count per item of the per-item limiters, with their `num_requeues` and `forget`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[Hashable, int] = {}

    def _count_failure(self, item: Hashable) -> int:
        """Counts one more failure of `item`; returns the number of failures before this one."""
        with self._lock:
            before = self._failures.get(item, 0)
            self._failures[item] = before + 1
        return before

    def num_requeues(self, item: Hashable) -> int:
        with self._lock:
            return self._failures.get(item, 0)

    def forget(self, item: Hashable) -> None:
        with self._lock:
            self._failures.pop(item, None)


class ItemExponentialFailureRateLimiter(_PerItemFailures):
    """Per-item exponential back-off: `base`, `2*base`, `4*base`, ... capped at `max_delay` seconds."""

    def __init__(self, base: float = 0.005, max_delay: float = 1000.0) -> None:
        if base < 0 or max_delay < 0:
            raise ValueError("ItemExponentialFailureRateLimiter: base and max_delay must be >= 0")
        self.base = base
        self.max_delay = max_delay
        super().__init__()

    def when(self, item: Hashable) -> float:
        exp = self._count_failure(item)
        if exp >= 1024:  # 2**exp would overflow a float: client-go answers max on overflow too
            return self.max_delay
        return min(self.base * float(2**exp), self.max_delay)


class ItemFastSlowRateLimiter(_PerItemFailures):
    """`fast` seconds for the first `max_fast_attempts` attempts of an item, `slow` afterwards."""

    def __init__(self, fast: float, slow: float, max_fast_attempts: int) -> None:
        self.fast = fast
        self.slow = slow
        self.max_fast_attempts = max_fast_attempts
        super().__init__()

    def when(self, item: Hashable) -> float:
        n = self._count_failure(item) + 1
        return self.fast if n <= self.max_fast_attempts else self.slow


class BucketRateLimiter:
    """Overall token bucket: `qps` tokens per second, at most `burst` saved; starts full."""

    def __init__(self, qps: float = 10.0, burst: int = 100, *, clock: Clock = REAL_CLOCK) -> None:
        if qps <= 0:
            raise ValueError(f"BucketRateLimiter: qps must be > 0, got {qps}")
        if burst < 1:
            raise ValueError(f"BucketRateLimiter: burst must be >= 1, got {burst}")
        self.qps = float(qps)
        self.burst = burst
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._last = clock.now()

    def reserve(self) -> float:
        """Take one token now; returns the seconds to wait until that token is actually available."""
        with self._lock:
            now = self._clock.now()
            if now > self._last:
                self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
                self._last = now
            self._tokens -= 1.0
            return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def when(self, item: Hashable) -> float:
        return self.reserve()

    def num_requeues(self, item: Hashable) -> int:
        return 0

    def forget(self, item: Hashable) -> None:
        return None


class MaxOfRateLimiter:
    """The worst (largest) answer of several limiters."""

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self.limiters = limiters

    def when(self, item: Hashable) -> float:
        return max(limiter.when(item) for limiter in list(self.limiters))

    def num_requeues(self, item: Hashable) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)


class WithMaxWaitRateLimiter:
    """Another limiter's delay, capped at `max_delay` seconds."""

    def __init__(self, limiter: RateLimiter, max_delay: float) -> None:
        self.limiter = limiter
        self.max_delay = max_delay

    def when(self, item: Hashable) -> float:
        return min(self.limiter.when(item), self.max_delay)

    def num_requeues(self, item: Hashable) -> int:
        return self.limiter.num_requeues(item)

    def forget(self, item: Hashable) -> None:
        self.limiter.forget(item)


# Short aliases of the limiters above.
ItemExponentialFailure = ItemExponentialFailureRateLimiter
ItemFastSlow = ItemFastSlowRateLimiter
Bucket = BucketRateLimiter
MaxOf = MaxOfRateLimiter
WithMaxWait = WithMaxWaitRateLimiter


def default_controller_rate_limiter(*, clock: Clock = REAL_CLOCK) -> MaxOfRateLimiter:
    """client-go's DefaultControllerRateLimiter: exponential 5 ms .. 1000 s per item, 10 qps / burst 100."""
    return MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.005, 1000.0),
                            BucketRateLimiter(10.0, 100, clock=clock))


def default_item_based_rate_limiter() -> ItemExponentialFailureRateLimiter:
    """client-go's DefaultItemBasedRateLimiter: exponential 1 ms .. 1000 s per item."""
    return ItemExponentialFailureRateLimiter(0.001, 1000.0)
