"""Basic queue semantics (client-go queue_test.go re-expressed): order, dedupe, exclusivity, shutdown."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from external_dns.workqueue import Queue


def test_fifo_order_and_dedupe() -> None:
    q: Queue[str] = Queue()
    for item in ["a", "b", "a", "c", "b"]:
        q.add(item)
    assert len(q) == 3
    got = [q.get()[0] for _ in range(3)]
    assert got == ["a", "b", "c"]
    for done in ["a", "b", "c"]:
        q.done(done)
    assert len(q) == 0


def test_add_while_processing_requeues_once_after_done() -> None:
    q: Queue[str] = Queue()
    q.add("x")
    item, shutdown = q.get()
    assert (item, shutdown) == ("x", False)
    q.add("x")
    q.add("x")
    assert len(q) == 0, "an item being processed must not be handed out again before done()"
    assert q.get(timeout=0.05) == (None, False)
    q.done("x")
    assert len(q) == 1
    assert q.get(timeout=1) == ("x", False)
    q.done("x")
    assert len(q) == 0


def test_get_timeout_returns_none_not_shutdown() -> None:
    q: Queue[int] = Queue()
    assert q.get(timeout=0.01) == (None, False)


def test_none_items_are_rejected() -> None:
    q: Queue[str] = Queue()
    with pytest.raises(ValueError, match="None"):
        q.add(None)  # type: ignore[arg-type]


def test_shutdown_wakes_blocked_getters_and_ignores_adds() -> None:
    q: Queue[str] = Queue()
    results: list[tuple[str | None, bool]] = []

    def getter() -> None:
        results.append(q.get())

    threads = [threading.Thread(target=getter) for _ in range(3)]
    for t in threads:
        t.start()
    q.shut_down()
    for t in threads:
        t.join(5)
        assert not t.is_alive()
    assert results == [(None, True)] * 3
    q.add("late")
    assert len(q) == 0
    assert q.shutting_down()


def test_queued_items_are_still_handed_out_after_shutdown() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    q.add("b")
    q.shut_down()
    assert q.get() == ("a", False)
    assert q.get() == ("b", False)
    assert q.get() == (None, True)


def test_exclusivity_under_eight_threads() -> None:
    q: Queue[int] = Queue()
    n_items, rounds = 20, 50
    lock = threading.Lock()
    in_flight: set[int] = set()
    violations: list[int] = []
    processed: Counter[int] = Counter()
    start = threading.Barrier(9)

    def worker() -> None:
        start.wait(5)
        while True:
            item, shutdown = q.get()
            if shutdown:
                return
            assert item is not None
            with lock:
                if item in in_flight:
                    violations.append(item)
                in_flight.add(item)
            q.add(item)  # added while processing: handed out again only after done()
            time.sleep(0)  # let other workers run while this item is held
            with lock:
                in_flight.discard(item)
                processed[item] += 1
            q.done(item)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    start.wait(5)
    for _ in range(rounds):
        for i in range(n_items):
            q.add(i)
    q.shut_down()  # queued items are still handed out; re-adds are now ignored; workers exit when empty
    for t in threads:
        t.join(10)
        assert not t.is_alive()
    assert violations == []
    assert set(processed) == set(range(n_items))
    assert len(q) == 0 and q.processing() == 0


def test_shut_down_with_drain_waits_for_processing_only() -> None:
    q: Queue[str] = Queue()
    q.add("busy")
    q.add("queued")
    item, _ = q.get()
    assert item == "busy"
    drained: list[bool] = []
    t = threading.Thread(target=lambda: drained.append(q.shut_down_with_drain(timeout=10)))
    t.start()
    t.join(0.1)
    assert t.is_alive(), "drain must wait for the item being processed"
    q.done("busy")
    t.join(5)
    assert drained == [True]
    # the queued-but-not-taken item did not block the drain, and is still handed out
    assert q.get() == ("queued", False)


def test_shut_down_with_drain_timeout_and_cancel() -> None:
    q: Queue[str] = Queue()
    q.add("stuck")
    q.get()
    assert q.shut_down_with_drain(timeout=0.05) is False
    result: list[bool] = []
    t = threading.Thread(target=lambda: result.append(q.shut_down_with_drain(timeout=30)))
    t.start()
    t.join(0.1)
    assert t.is_alive()
    q.shut_down()  # cancels the drain wait
    t.join(5)
    assert result == [False]
    q.done("stuck")
