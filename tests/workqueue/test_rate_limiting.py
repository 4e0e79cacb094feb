"""The rate-limiting queue (workqueue/rate_limiting.py): add_rate_limited backs off per item, forget resets it,
and sample-controller's worker loop over it."""

from __future__ import annotations

import threading

from external_dns.workqueue import (
    FakeClock,
    ItemExponentialFailureRateLimiter,
    RateLimitingQueue,
)


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
