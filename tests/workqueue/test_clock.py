"""The workqueue's clocks (workqueue/clock.py): the fake clock moves only when stepped and wakes its waiters when
it does; the real clock's wait is bounded by its timeout."""

from __future__ import annotations

import threading
import time

import pytest

from external_dns.workqueue import clock as clock_module
from external_dns.workqueue.clock import REAL_CLOCK, FakeClock


def test_fake_clock_moves_only_when_stepped_or_set() -> None:
    clock = FakeClock(start=50.0)
    assert clock.now() == 50.0
    clock.step(2.5)
    assert clock.now() == 52.5
    clock.set(100.0)
    assert clock.now() == 100.0
    clock.set(90.0)  # set is a step by the difference: a fake clock may be moved back by a test
    assert clock.now() == 90.0


def test_a_step_wakes_a_waiter_and_unregisters_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock_module, "_FAKE_WAIT_REAL_CAP", 60.0)  # only the step can wake the waiter in time
    clock = FakeClock()
    cond = threading.Condition()
    holding, woke = threading.Event(), threading.Event()

    def wait() -> None:
        with cond:
            holding.set()
            clock.wait(cond, 10.0)
        woke.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    assert holding.wait(5)
    with cond:  # acquired once the waiter released it inside wait(), registered by then
        assert clock.has_waiters()
    clock.step(1.0)
    assert woke.wait(5)
    waiter.join(5)
    assert not clock.has_waiters()


def test_a_wait_without_time_left_returns_at_once_unregistered() -> None:
    clock = FakeClock()
    cond = threading.Condition()
    started = time.monotonic()
    with cond:
        clock.wait(cond, 0.0)
        clock.wait(cond, -1.0)
    assert time.monotonic() - started < 0.5
    assert not clock.has_waiters()


def test_an_unstepped_fake_wait_is_still_bounded_in_real_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock_module, "_FAKE_WAIT_REAL_CAP", 0.01)
    clock = FakeClock()
    cond = threading.Condition()
    with cond:
        clock.wait(cond, None)  # nobody steps the clock: the waiter returns after its real-time cap to re-check
    assert clock.now() == 1000.0 and not clock.has_waiters()


def test_real_clock_is_monotonic_and_its_wait_times_out() -> None:
    cond = threading.Condition()
    first = REAL_CLOCK.now()
    with cond:
        REAL_CLOCK.wait(cond, 0.05)
    assert REAL_CLOCK.now() - first >= 0.04
