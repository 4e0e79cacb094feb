"""Workqueue Prometheus metrics: client-go names, label `name`, values driven by a fake clock."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

from external_dns.workqueue import DURATION_BUCKETS, FakeClock, Queue, RateLimitingQueue, metric_value


def test_metric_values_follow_the_queue(registry: CollectorRegistry) -> None:
    clock = FakeClock()
    q: RateLimitingQueue[str] = RateLimitingQueue(name="zones", registry=registry, clock=clock)
    try:
        def value(metric: str) -> float | None:
            return metric_value(registry, metric, "zones")

        q.add("a")
        q.add("b")
        q.add("a")  # deduplicated: not counted
        assert value("workqueue_adds_total") == 2
        assert value("workqueue_depth") == 2
        clock.step(2.0)
        item, _ = q.get()
        assert item == "a"
        assert value("workqueue_depth") == 1
        assert value("workqueue_queue_duration_seconds_count") == 1
        assert value("workqueue_queue_duration_seconds_sum") == pytest.approx(2.0)
        clock.step(3.0)
        assert value("workqueue_unfinished_work_seconds") == pytest.approx(3.0)
        assert value("workqueue_longest_running_processor_seconds") == pytest.approx(3.0)
        q.get()  # "b", started 0 s ago
        clock.step(1.0)
        assert value("workqueue_unfinished_work_seconds") == pytest.approx(4.0 + 1.0)
        assert value("workqueue_longest_running_processor_seconds") == pytest.approx(4.0)
        q.done("a")
        q.done("b")
        assert value("workqueue_work_duration_seconds_count") == 2
        assert value("workqueue_work_duration_seconds_sum") == pytest.approx(5.0)
        assert value("workqueue_unfinished_work_seconds") == 0
        assert value("workqueue_longest_running_processor_seconds") == 0
        q.add_rate_limited("a")
        q.add_after("b", 0)
        assert value("workqueue_retries_total") == 2
        # histogram buckets are client-go's ExponentialBuckets(10e-9, 10, 10)
        # "a" waited 2 s, "b" 5 s
        assert registry.get_sample_value("workqueue_queue_duration_seconds_bucket",
                                         {"name": "zones", "le": "1.0"}) == 0
        assert registry.get_sample_value("workqueue_queue_duration_seconds_bucket",
                                         {"name": "zones", "le": "10.0"}) == 2
        assert len(DURATION_BUCKETS) == 10
        assert DURATION_BUCKETS[0] == pytest.approx(1e-8)
        assert DURATION_BUCKETS[-1] == pytest.approx(10.0)
    finally:
        q.shut_down()


def test_several_named_queues_share_one_registry(registry: CollectorRegistry) -> None:
    q1: Queue[str] = Queue("one", registry=registry)
    q2: Queue[str] = Queue("two", registry=registry)
    q1.add("x")
    q2.add("x")
    q2.add("y")
    assert metric_value(registry, "workqueue_depth", "one") == 1
    assert metric_value(registry, "workqueue_depth", "two") == 2
    text = generate_latest(registry).decode()
    for name in ("workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
                 "workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
                 "workqueue_longest_running_processor_seconds", "workqueue_retries_total"):
        assert name in text
    q1.shut_down()
    q2.shut_down()


def test_unnamed_queue_records_nothing(registry: CollectorRegistry) -> None:
    q: Queue[str] = Queue(registry=registry)
    q.add("x")
    assert generate_latest(registry).decode().strip() == ""


def test_default_registry_is_used_without_a_private_one() -> None:
    q: Queue[str] = Queue("test-default-registry-queue")
    q.add("x")
    q.add("y")
    assert metric_value(REGISTRY, "workqueue_adds_total", "test-default-registry-queue") == 2
