"""Prometheus metrics of the workqueue, with client-go's names (`workqueue_*`, label `name`).

Metric objects are created lazily, once per CollectorRegistry (the default registry unless a private one is
given), so any number of queues with different names share them through the `name` label. Metrics are only
recorded for queues with a non-empty name (as in client-go). The two "unfinished work" gauges are computed
when scraped (a callback per queue) instead of by a 500 ms updater thread.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

# client-go: ExponentialBuckets(10e-9, 10, 10) -> 1e-8 ... 10 seconds.
DURATION_BUCKETS: tuple[float, ...] = tuple(10e-9 * 10**i for i in range(10))


@dataclass(frozen=True)
class _MetricSet:
    depth: Gauge
    adds: Counter
    latency: Histogram
    work_duration: Histogram
    unfinished_work: Gauge
    longest_running: Gauge
    retries: Counter


_sets: weakref.WeakKeyDictionary[CollectorRegistry, _MetricSet] = weakref.WeakKeyDictionary()
_sets_lock = threading.Lock()


def _metric_set(registry: CollectorRegistry) -> _MetricSet:
    with _sets_lock:
        found = _sets.get(registry)
        if found is None:
            found = _MetricSet(
                depth=Gauge("workqueue_depth", "Current depth of workqueue", ["name"], registry=registry),
                adds=Counter("workqueue_adds", "Total number of adds handled by workqueue", ["name"],
                             registry=registry),
                latency=Histogram("workqueue_queue_duration_seconds",
                                  "How long in seconds an item stays in workqueue before being requested.",
                                  ["name"], buckets=DURATION_BUCKETS, registry=registry),
                work_duration=Histogram("workqueue_work_duration_seconds",
                                        "How long in seconds processing an item from workqueue takes.",
                                        ["name"], buckets=DURATION_BUCKETS, registry=registry),
                unfinished_work=Gauge(
                    "workqueue_unfinished_work_seconds",
                    "How many seconds of work has done that is in progress and hasn't been observed by "
                    "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
                    "threads by observing the rate at which this increases.", ["name"], registry=registry),
                longest_running=Gauge(
                    "workqueue_longest_running_processor_seconds",
                    "How many seconds has the longest running processor for workqueue been running.",
                    ["name"], registry=registry),
                retries=Counter("workqueue_retries", "Total number of retries handled by workqueue", ["name"],
                                registry=registry),
            )
            _sets[registry] = found
        return found


class QueueMetrics:
    """Per-queue metric recorder; all methods are called with the queue's lock held."""

    def __init__(self, name: str, registry: CollectorRegistry | None, now: Callable[[], float]) -> None:
        self.name = name
        self._now = now
        self._enabled = bool(name)
        self._add_times: dict[Hashable, float] = {}
        self._processing_start: dict[Hashable, float] = {}
        self._lock = threading.Lock()
        if not self._enabled:
            return
        ms = _metric_set(registry if registry is not None else REGISTRY)
        self._depth = ms.depth.labels(name=name)
        self._adds = ms.adds.labels(name=name)
        self._latency = ms.latency.labels(name=name)
        self._work = ms.work_duration.labels(name=name)
        self._retries = ms.retries.labels(name=name)
        ref = weakref.ref(self)

        def unfinished() -> float:
            me = ref()
            return me.unfinished_work_seconds() if me is not None else 0.0

        def longest() -> float:
            me = ref()
            return me.longest_running_processor_seconds() if me is not None else 0.0

        ms.unfinished_work.labels(name=name).set_function(unfinished)
        ms.longest_running.labels(name=name).set_function(longest)

    def add(self, item: Hashable) -> None:
        if not self._enabled:
            return
        self._adds.inc()
        self._depth.inc()
        with self._lock:
            self._add_times.setdefault(item, self._now())

    def get(self, item: Hashable) -> None:
        if not self._enabled:
            return
        self._depth.dec()
        now = self._now()
        with self._lock:
            start = self._add_times.pop(item, None)
            self._processing_start[item] = now
        if start is not None:
            self._latency.observe(max(0.0, now - start))

    def done(self, item: Hashable) -> None:
        if not self._enabled:
            return
        with self._lock:
            start = self._processing_start.pop(item, None)
        if start is not None:
            self._work.observe(max(0.0, self._now() - start))

    def retry(self) -> None:
        if self._enabled:
            self._retries.inc()

    def unfinished_work_seconds(self) -> float:
        now = self._now()
        with self._lock:
            return sum(max(0.0, now - t) for t in self._processing_start.values())

    def longest_running_processor_seconds(self) -> float:
        now = self._now()
        with self._lock:
            if not self._processing_start:
                return 0.0
            return max(0.0, now - min(self._processing_start.values()))


def metric_value(registry: CollectorRegistry, metric: str, queue_name: str, **extra: Any) -> float | None:
    """Read one sample (e.g. `workqueue_depth`, `workqueue_adds_total`) for a queue; for tests and health."""
    labels = {"name": queue_name, **{k: str(v) for k, v in extra.items()}}
    return registry.get_sample_value(metric, labels)
