"""Workqueue throughput: items/s through add -> get -> done with worker threads, plain, with metrics, and
through the rate-limited path (add_rate_limited -> delaying heap thread -> get). Prints a table."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry

from external_dns.workqueue import (
    ItemExponentialFailureRateLimiter,
    Queue,
    RateLimitingQueue,
    default_controller_rate_limiter,
)


def _workers(q: Queue[int], n: int, done_count: list[int], lock: threading.Lock,
             target: int, finished: threading.Event) -> list[threading.Thread]:
    def run() -> None:
        while True:
            item, shutdown = q.get()
            if shutdown:
                return
            assert item is not None
            q.done(item)
            with lock:
                done_count[0] += 1
                if done_count[0] >= target:
                    finished.set()

    threads = [threading.Thread(target=run, name=f"bench-worker-{i}") for i in range(n)]
    for t in threads:
        t.start()
    return threads


def _measure(q: Queue[int], produce: Callable[[int], None], items: int, workers: int,
             window: float | None = None) -> tuple[int, float]:
    done = [0]
    lock = threading.Lock()
    finished = threading.Event()
    threads = _workers(q, workers, done, lock, items, finished)
    start = time.perf_counter()
    for i in range(items):
        produce(i)
    finished.wait(window if window is not None else 120.0)
    elapsed = time.perf_counter() - start
    q.shut_down()
    for t in threads:
        t.join(10)
    with lock:
        return done[0], elapsed


def main() -> None:
    rows: list[tuple[str, int, float]] = []

    q: Queue[int] = Queue()
    n, secs = _measure(q, q.add, 200_000, 2)
    rows.append(("add/get/done, unnamed queue (no metrics), 2 workers", n, secs))

    q = Queue("bench", registry=CollectorRegistry())
    n, secs = _measure(q, q.add, 200_000, 2)
    rows.append(("add/get/done, named queue (metrics), 2 workers", n, secs))

    q = Queue("bench8", registry=CollectorRegistry())
    n, secs = _measure(q, q.add, 200_000, 8)
    rows.append(("add/get/done, named queue (metrics), 8 workers", n, secs))

    rq: RateLimitingQueue[int] = RateLimitingQueue(ItemExponentialFailureRateLimiter(1e-6, 1.0), "bench-rl",
                                                   registry=CollectorRegistry())
    n, secs = _measure(rq, rq.add_rate_limited, 50_000, 2)
    rows.append(("add_rate_limited (1 us back-off, via delay thread), 2 workers", n, secs))

    rq = RateLimitingQueue(default_controller_rate_limiter(), "bench-default", registry=CollectorRegistry())
    n, secs = _measure(rq, rq.add_rate_limited, 10_000, 2, window=3.0)
    rows.append(("add_rate_limited, default limiter (10 qps, burst 100), 3 s window", n, secs))

    print("| scenario | items processed | seconds | items/s |")
    print("|---|---:|---:|---:|")
    for name, count, seconds in rows:
        print(f"| {name} | {count} | {seconds:.2f} | {count / seconds:,.0f} |")


if __name__ == "__main__":
    main()
