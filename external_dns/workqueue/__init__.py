"""Thread-based rate-limited work queue with client-go semantics and client-go's Prometheus metrics.

`Queue` (dedupe + exclusivity), `DelayingQueue` (`add_after`), `RateLimitingQueue` (`add_rate_limited`,
`forget`, `num_requeues`) and the rate limiters. Typical worker loop::

    q: RateLimitingQueue[str] = RateLimitingQueue(name="zones")
    while True:
        key, shutdown = q.get()
        if shutdown:
            return
        try:
            sync(key)
            q.forget(key)
        except Exception:
            q.add_rate_limited(key)
        finally:
            q.done(key)
"""

from external_dns.workqueue.clock import REAL_CLOCK, Clock, FakeClock, RealClock
from external_dns.workqueue.delaying import DelayingQueue
from external_dns.workqueue.limiters import (
    Bucket,
    BucketRateLimiter,
    ItemExponentialFailure,
    ItemExponentialFailureRateLimiter,
    ItemFastSlow,
    ItemFastSlowRateLimiter,
    MaxOf,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWait,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)
from external_dns.workqueue.metrics import DURATION_BUCKETS, metric_value
from external_dns.workqueue.queue import Queue
from external_dns.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "DURATION_BUCKETS",
    "REAL_CLOCK",
    "Bucket",
    "BucketRateLimiter",
    "Clock",
    "DelayingQueue",
    "FakeClock",
    "ItemExponentialFailure",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlow",
    "ItemFastSlowRateLimiter",
    "MaxOf",
    "MaxOfRateLimiter",
    "Queue",
    "RateLimiter",
    "RateLimitingQueue",
    "RealClock",
    "WithMaxWait",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
    "metric_value",
]
