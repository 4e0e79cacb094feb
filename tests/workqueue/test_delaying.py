"""Delaying queue: add_after ordering, dedupe to the earlier time, shutdown drops waiting items."""

from __future__ import annotations

import threading
import time

from external_dns.workqueue import DelayingQueue, FakeClock


def test_add_after_waits_for_the_fake_clock() -> None:
    clock = FakeClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    try:
        q.add_after("a", 5.0)
        assert q.waiting() == 1
        clock.step(4.0)
        assert q.get(timeout=0.1) == (None, False)
        clock.step(1.0)
        assert q.get(timeout=5) == ("a", False)
        assert q.waiting() == 0
        q.done("a")
    finally:
        q.shut_down()


def test_due_items_come_out_in_ready_time_order() -> None:
    clock = FakeClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    try:
        q.add_after("late", 3.0)
        q.add_after("early", 1.0)
        q.add_after("middle", 2.0)
        clock.step(3.0)
        got = [q.get(timeout=5)[0] for _ in range(3)]
        assert got == ["early", "middle", "late"]
    finally:
        q.shut_down()


def test_waiting_item_keeps_the_earlier_ready_time() -> None:
    clock = FakeClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    try:
        q.add_after("x", 10.0)
        q.add_after("x", 2.0)   # earlier: replaces
        q.add_after("x", 20.0)  # later: ignored
        assert q.waiting() == 1
        clock.step(2.0)
        assert q.get(timeout=5) == ("x", False)
        q.done("x")
        clock.step(30.0)
        assert q.get(timeout=0.1) == (None, False), "the superseded entries must not fire"
    finally:
        q.shut_down()


def test_non_positive_delay_adds_at_once_without_a_thread() -> None:
    q: DelayingQueue[str] = DelayingQueue()
    before = threading.active_count()
    q.add_after("now", 0)
    q.add_after("neg", -1)
    assert threading.active_count() == before
    assert len(q) == 2
    q.shut_down()


def test_real_clock_delay_is_honoured() -> None:
    q: DelayingQueue[str] = DelayingQueue()
    try:
        start = time.monotonic()
        q.add_after("r", 0.05)
        assert q.get(timeout=5) == ("r", False)
        assert time.monotonic() - start >= 0.045
    finally:
        q.shut_down()


def test_shutdown_drops_waiting_items_and_stops_the_thread() -> None:
    clock = FakeClock()
    q: DelayingQueue[str] = DelayingQueue(clock=clock)
    q.add_after("w", 1.0)
    q.shut_down()
    assert q.waiting() == 0
    clock.step(5.0)
    assert q.get(timeout=0.05) == (None, True)
    q.add_after("after", 1.0)  # ignored after shutdown, no new thread
    assert q.waiting() == 0
