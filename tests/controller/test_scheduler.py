"""Scheduler: external-dns's ShouldRunOnce / ScheduleRunOnce maths and the blocking wait."""

from __future__ import annotations

import threading
import time

import pytest

from external_dns.controller.scheduler import EVENT_BATCH_DELAY, Scheduler
from external_dns.workqueue import FakeClock

MIN = 60.0


def test_upstream_should_run_once_timeline() -> None:
    """controller_test.go TestShouldRunOnce: interval 10m, min event sync interval 15s."""
    clock = FakeClock(0.0).now
    s = Scheduler(10 * MIN, 15.0, clock=clock)
    assert s.should_run_once(0.0)
    assert s.next_run_at == 10 * MIN
    assert not s.should_run_once(0.0)
    # two events at 10s: max(0 + 15s, min(10s + 5s, 10m)) = 15s
    s.schedule_run_once(10.0)
    s.schedule_run_once(10.0)
    assert s.next_run_at == 15.0
    assert not s.should_run_once(10.0)
    assert not s.should_run_once(10.0001)
    assert s.should_run_once(15.0)  # the batched events give one run
    assert s.next_run_at == 10 * MIN + 15.0
    assert not s.should_run_once(15.0)
    assert not s.should_run_once(10 * MIN + 14.0)
    assert s.should_run_once(10 * MIN + 15.0)


def test_first_run_is_due_at_once() -> None:
    s = Scheduler(MIN, 5.0, clock=FakeClock(100.0).now)
    assert s.should_run_once(100.0)
    assert s.last_run_at == 100.0
    assert not s.should_run_once(100.5)


def test_event_never_sooner_than_min_interval_after_previous_start() -> None:
    s = Scheduler(MIN, 5.0, clock=FakeClock(0.0).now)
    assert s.should_run_once(0.0)
    s.schedule_run_once(0.5)  # min(0.5 + 5, 60) = 5.5 vs 0 + 5 -> 5.5
    assert s.next_run_at == 5.5
    assert s.should_run_once(5.5)
    s.schedule_run_once(6.0)  # max(5.5 + 5, min(11, 65.5)) = 11
    assert s.next_run_at == 11.0


def test_event_never_later_than_periodic_run() -> None:
    s = Scheduler(10.0, 5.0, clock=FakeClock(0.0).now)
    assert s.should_run_once(0.0)
    s.schedule_run_once(8.0)  # min(13, 10) = 10; max(5, 10) = 10
    assert s.next_run_at == 10.0


def test_min_event_sync_interval_caps_batching_delay() -> None:
    s = Scheduler(MIN, 0.0, clock=FakeClock(0.0).now)
    assert s.event_delay == 0.0
    assert s.should_run_once(0.0)
    s.schedule_run_once(0.25)
    assert s.next_run_at == 0.25  # synced as soon as the event arrives
    s2 = Scheduler(MIN, 2.0, clock=FakeClock(0.0).now)
    assert s2.event_delay == 2.0
    s3 = Scheduler(MIN, 30.0, clock=FakeClock(0.0).now)
    assert s3.event_delay == EVENT_BATCH_DELAY


@pytest.mark.parametrize("interval, min_event", [(0.0, 5.0), (-1.0, 5.0), (60.0, -1.0)])
def test_bad_durations_are_named(interval: float, min_event: float) -> None:
    with pytest.raises(ValueError, match=r"--interval|--min-event-sync-interval"):
        Scheduler(interval, min_event)


def test_wait_due_wakes_on_schedule_and_stop() -> None:
    s = Scheduler(3600.0, 0.0)
    assert s.wait_due(timeout=1.0)  # first run: due at once
    started = time.monotonic()
    assert not s.wait_due(timeout=0.05)  # next run in an hour
    assert time.monotonic() - started >= 0.04
    woke = threading.Event()

    def waiter() -> None:
        if s.wait_due(timeout=10.0):
            woke.set()

    t = threading.Thread(target=waiter)
    t.start()
    s.schedule_run_once()
    t.join(5.0)
    assert woke.is_set()

    results: list[bool] = []
    t2 = threading.Thread(target=lambda: results.append(s.wait_due(timeout=10.0)))
    t2.start()
    s.stop()
    t2.join(5.0)
    assert not t2.is_alive()
    assert results == [False]
    assert s.stopped


def test_burst_of_events_collapses_into_one_run() -> None:
    clock = FakeClock(0.0).now
    s = Scheduler(MIN, 5.0, clock=clock)
    assert s.should_run_once(0.0)
    for i in range(100):
        s.schedule_run_once(1.0 + i * 0.01)
    runs = sum(s.should_run_once(t / 10) for t in range(10, 200))
    assert runs == 1
    assert s.scheduled == 100


def test_reason_tells_event_runs_from_periodic_ones() -> None:
    from external_dns.controller.scheduler import EVENT, PERIODIC

    s = Scheduler(10.0, 1.0, clock=FakeClock(0.0).now)
    assert s.should_run_once(0.0) and s.last_reason == PERIODIC
    s.schedule_run_once(3.0)
    assert s.should_run_once(4.0) and s.last_reason == EVENT
    assert s.should_run_once(14.0) and s.last_reason == PERIODIC
    s.schedule_run_once(23.9)  # min(24.9, 24) = 24: the periodic run absorbs the event
    assert s.next_run_at == 24.0
    assert s.should_run_once(24.0) and s.last_reason == PERIODIC
