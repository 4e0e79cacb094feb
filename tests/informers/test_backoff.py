"""Unit tests: the reflector backoff (0.8 s doubling to 30 s, jitter, reset after 2 quiet minutes)."""

from __future__ import annotations

import threading
import time

from external_dns.informers.backoff import Backoff
from external_dns.workqueue import FakeClock


def test_doubles_to_cap_without_jitter() -> None:
    clock = FakeClock(0.0)
    backoff = Backoff(clock=clock.now, rand=lambda: 0.0)
    steps = [backoff.step() for _ in range(8)]
    assert steps == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]


def test_jitter_is_within_d_and_2d_capped() -> None:
    clock = FakeClock(0.0)
    backoff = Backoff(clock=clock.now)
    for base in (0.8, 1.6, 3.2, 6.4, 12.8):
        delay = backoff.step()
        assert base <= delay < 2 * base
    assert backoff.step() <= 30.0


def test_reset_after_two_quiet_minutes() -> None:
    clock = FakeClock(0.0)
    backoff = Backoff(clock=clock.now, rand=lambda: 0.0)
    for _ in range(4):
        backoff.step()
    clock.step(119.0)
    assert backoff.step() == 12.8  # not quiet long enough
    clock.step(121.0)
    assert backoff.step() == 0.8


def test_wait_honours_retry_after_and_stop() -> None:
    backoff = Backoff(rand=lambda: 0.0)
    stop = threading.Event()
    stop.set()  # a set stop event returns at once, but the delay is still computed
    assert backoff.wait(stop, retry_after=5.0) == 5.0
    assert backoff.wait(stop) == 1.6
    stop2 = threading.Event()
    timer = threading.Timer(0.1, stop2.set)
    timer.start()
    started = time.monotonic()
    backoff.wait(stop2, retry_after=20.0)
    assert time.monotonic() - started < 5.0
    timer.join()
