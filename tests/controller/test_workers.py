"""WorkerLoop (controller/workers.py): keys in batches from a rate-limited queue, settled as each key's Done
says (back-off on failure, forget and optional requeue on success, a failure no retry can fix handed to
on_fatal once per batch), the history, restarts, a bounded stop, and a stop from inside a worker."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping

import pytest

from external_dns.controller.workers import Done, Term, WorkerLoop
from external_dns.errors import ConfigError
from external_dns.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue
from tests.helpers.threads import thread_leak_check


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


def limiter() -> ItemExponentialFailureRateLimiter:
    return ItemExponentialFailureRateLimiter(base=0.01, max_delay=0.05)


class Recorder:
    """A handle that records the batches it got and ends each key as `plan` says."""

    def __init__(self, plan: Mapping[str, Done[str]] | None = None) -> None:
        self.batches: list[list[str]] = []
        self.plan = dict(plan or {})
        self.lock = threading.Lock()

    def __call__(self, keys: list[str]) -> dict[str, Done[str]]:
        with self.lock:
            self.batches.append(list(keys))
            return {k: self.plan.pop(k, Done(k)) for k in keys}


def test_a_worker_takes_what_waits_as_one_batch_and_settles_each_key() -> None:
    handle = Recorder({"b": Done("b", error=RuntimeError("boom")), "c": Done("c", requeue_after=0.0)})
    loop: WorkerLoop[str] = WorkerLoop("test", handle, workers=1, queue_name="test-batch", batch_size=8,
                                       rate_limiter_factory=limiter)
    assert loop.start(["a", "b", "c"])
    try:
        # b failed: retried with back-off; c asked to come back: queued again; a is done
        assert loop.history.wait_until(lambda: loop.history.items().count("b") >= 2, 5)
        assert loop.history.wait_until(lambda: loop.history.items().count("c") >= 2, 5)
    finally:
        assert loop.stop(5)
    assert handle.batches[0] == ["a", "b", "c"]
    assert loop.history.items().count("a") == 1


def test_a_failure_no_retry_can_fix_goes_to_on_fatal_once_per_batch_and_is_not_requeued() -> None:
    refused = ConfigError("the provider refused our credentials")
    handle = Recorder({k: Done(k, error=refused, zone="example.org") for k in ("a", "b")})
    loop: WorkerLoop[str] = WorkerLoop("test", handle, workers=1, queue_name="test-fatal", batch_size=8,
                                       rate_limiter_factory=limiter)
    calls: list[tuple[str, BaseException]] = []
    loop.on_fatal = lambda zone, exc: calls.append((zone, exc))
    queue: RateLimitingQueue[str] = RateLimitingQueue(limiter(), name="test-fatal-q")
    try:
        loop.work(["a", "b"], queue)
        assert calls == [("example.org", refused)]
        assert len(queue) == 0 and queue.num_requeues("a") == 0
        # without a hook the same failure is an ordinary one: retried with back-off
        loop.on_fatal = None
        handle.plan = {"a": Done("a", error=refused)}
        loop.work(["a"], queue)
        assert queue.num_requeues("a") == 1
    finally:
        queue.shut_down()


def test_a_broken_handle_or_hook_never_ends_the_worker() -> None:
    def broken(keys: list[str]) -> dict[str, Done[str]]:
        raise RuntimeError("a bug")

    loop: WorkerLoop[str] = WorkerLoop("test", broken, workers=1, queue_name="test-broken",
                                       rate_limiter_factory=limiter)
    queue: RateLimitingQueue[str] = RateLimitingQueue(limiter(), name="test-broken-q")
    try:
        loop.work(["a"], queue)
        assert queue.num_requeues("a") == 1  # retried with back-off
    finally:
        queue.shut_down()

    def hook(zone: str, exc: BaseException) -> None:
        raise RuntimeError("hook broken")

    fatal = WorkerLoop("test", Recorder({"a": Done("a", error=ConfigError("refused"))}), workers=1,
                       queue_name="test-hook", rate_limiter_factory=limiter)
    fatal.on_fatal = hook
    queue = RateLimitingQueue(limiter(), name="test-hook-q")
    try:
        fatal.work(["a"], queue)  # logged, not raised
    finally:
        queue.shut_down()


def test_after_sees_each_batch_once_its_keys_are_done_and_restarts_run_a_fresh_term() -> None:
    seen: list[tuple[Term, list[str], list[str]]] = []
    ended = threading.Event()

    def after(term: Term, keys: list[str], done: Mapping[str, Done[str]]) -> None:
        assert term.queue.processing() == 0  # its keys are done before `after`
        seen.append((term, keys, sorted(done)))
        ended.set()

    loop: WorkerLoop[str] = WorkerLoop("test", Recorder(), workers=2, queue_name="test-after",
                                       rate_limiter_factory=limiter, after=after)
    assert loop.start(["a"])
    assert not loop.start(["b"])  # already running
    first = loop.term
    try:
        assert ended.wait(5)
    finally:
        assert loop.stop(5)
    assert loop.term is None and not loop.running()
    loop.add("dropped")  # stopped: nothing queued
    assert loop.start(["c"])
    try:
        assert loop.history.wait_until(lambda: "c" in loop.history.items(), 5)
    finally:
        assert loop.stop(5)
    assert seen[0] == (first, ["a"], ["a"])
    assert "dropped" not in loop.history.items() and "b" not in loop.history.items()


def test_stop_from_inside_a_worker_returns_and_the_other_threads_end() -> None:
    stopped: list[bool] = []
    loop: WorkerLoop[str]

    def handle(keys: list[str]) -> dict[str, Done[str]]:
        stopped.append(loop.stop(5))  # as a fatal hook stopping the process does
        return {k: Done(k) for k in keys}

    loop = WorkerLoop("test", handle, workers=2, queue_name="test-self-stop", rate_limiter_factory=limiter)
    loop.start(["a"])
    term = loop.term
    assert term is not None
    for thread in term.threads:
        thread.join(10)
    assert stopped == [True] and not any(t.is_alive() for t in term.threads)


def test_bad_sizes_are_named() -> None:
    with pytest.raises(ValueError, match="zone workers must be at least 1, got 0"):
        WorkerLoop("zone", Recorder(), workers=0, queue_name="x")
    with pytest.raises(ValueError, match="batch size must be at least 1"):
        WorkerLoop("dnsrecord", Recorder(), workers=1, queue_name="x", batch_size=0)
