"""The rate-limiting queue (client-go `rate_limiting_queue.go`): a `DelayingQueue` plus a `RateLimiter`.

`add_rate_limited(x)` is `add_after(x, limiter.when(x))`; `forget(x)` clears the item's failure history
(it does not remove the item from the queue); `num_requeues(x)` asks the limiter.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from external_dns.workqueue.clock import REAL_CLOCK, Clock
from external_dns.workqueue.delaying import DelayingQueue
from external_dns.workqueue.limiters import RateLimiter, default_controller_rate_limiter
from external_dns.workqueue.queue import T


class RateLimitingQueue(DelayingQueue[T]):
    """Work queue with per-item retry back-off. Default limiter: `default_controller_rate_limiter()`."""

    def __init__(self, rate_limiter: RateLimiter | None = None, name: str = "", *,
                 registry: CollectorRegistry | None = None, clock: Clock = REAL_CLOCK) -> None:
        super().__init__(name, registry=registry, clock=clock)
        self.rate_limiter: RateLimiter = (rate_limiter if rate_limiter is not None
                                          else default_controller_rate_limiter(clock=clock))

    def add_rate_limited(self, item: T) -> None:
        """Add `item` after the delay the rate limiter gives it."""
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """Stop tracking `item`'s failures (call after it was processed successfully)."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self.rate_limiter.num_requeues(item)
