"""Per-handler buffered delivery (informers/listener.py, client-go's processorListener): notifications delivered in
order on the listener's own thread, a failing handler logged and passed over, has_synced only once the initial
adds were delivered, nothing delivered after stop, the resync schedule."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from structlog.testing import capture_logs

from external_dns.informers.keys import DeletedFinalStateUnknown
from external_dns.informers.listener import MIN_RESYNC_PERIOD, SYNCED, Kind, Listener, Notification
from tests.informers.conftest import svc


class Handler:
    def __init__(self, fail_on: str = "") -> None:
        self.seen: list[tuple[str, str]] = []
        self.threads: set[str] = set()
        self.fail_on = fail_on
        self.synced_after: list[tuple[str, str]] | None = None
        self.done = threading.Event()

    def _note(self, kind: str, name: str) -> None:
        self.threads.add(threading.current_thread().name)
        self.seen.append((kind, name))
        if name == self.fail_on:
            raise RuntimeError(f"handler broke on {name}")
        if name == "last":
            self.done.set()

    def on_add(self, obj: Any) -> None:
        self._note("add", obj["metadata"]["name"])

    def on_update(self, old: Any, new: Any) -> None:
        self._note("update", f"{old['metadata']['resourceVersion']}->{new['metadata']['resourceVersion']}")

    def on_delete(self, obj: Any) -> None:
        self._note("delete", obj.key if isinstance(obj, DeletedFinalStateUnknown) else obj["metadata"]["name"])

    def on_synced(self) -> None:
        self.synced_after = list(self.seen)


@pytest.fixture
def started() -> Iterator[tuple[Listener, Handler]]:
    handler = Handler(fail_on="broken")
    listener = Listener(handler, 0, "test")
    listener.start()
    yield listener, handler
    listener.stop()
    assert listener.join(5)


def test_delivery_in_order_on_the_listeners_thread(started: tuple[Listener, Handler]) -> None:
    listener, handler = started
    listener.add_many([Notification(Kind.ADD, svc("a")), Notification(Kind.ADD, svc("b")), SYNCED])
    listener.add(Notification(Kind.UPDATE, svc("a", rv="2"), svc("a", rv="1")))
    listener.add(Notification(Kind.DELETE, DeletedFinalStateUnknown("default/b", svc("b"))))
    listener.add(Notification(Kind.ADD, svc("last")))
    assert handler.done.wait(5)
    assert handler.seen == [("add", "a"), ("add", "b"), ("update", "1->2"), ("delete", "default/b"), ("add", "last")]
    assert handler.synced_after == [("add", "a"), ("add", "b")]  # told once every initial add was delivered
    assert handler.threads == {"informer-handler-test"} and listener.has_synced()


def test_a_failing_handler_is_logged_and_the_next_notification_delivered(started: tuple[Listener, Handler]) -> None:
    listener, handler = started
    with capture_logs() as logs:
        listener.add_many([Notification(Kind.ADD, svc("broken")), Notification(Kind.ADD, svc("last"))])
        assert handler.done.wait(5)
    assert handler.seen == [("add", "broken"), ("add", "last")]
    failed = [e for e in logs if e["event"] == "event handler failed"]
    assert [(e["handler"], e["notification"], e["log_level"]) for e in failed] == [("test", "add", "error")]
    assert "handler broke on broken" in failed[0]["error"]


def test_not_synced_until_the_synced_marker_is_delivered() -> None:
    listener = Listener(Handler(), 0, "unstarted")
    listener.add_many([Notification(Kind.ADD, svc("a")), SYNCED])
    assert listener.pending() == 2 and not listener.has_synced()
    assert not listener.wait_for_sync(0.01)  # nothing delivers: no thread was started
    listener.stop()
    assert listener.pending() == 0 and listener.join(1)


def test_nothing_is_buffered_or_delivered_after_stop() -> None:
    handler = Handler()
    listener = Listener(handler, 0, "stopped")
    listener.stop()
    listener.add(Notification(Kind.ADD, svc("a")))
    listener.add_many([Notification(Kind.ADD, svc("b"))])
    listener.start()  # a stopped listener starts no thread
    assert listener.pending() == 0 and listener.join(1) and handler.seen == []


def test_resync_schedule() -> None:
    assert Listener(Handler(), 0, "none").next_resync == float("inf")
    floored = Listener(Handler(), 0.01, "floored")
    assert floored.resync_period == MIN_RESYNC_PERIOD
    periodic = Listener(Handler(), 30, "periodic")
    periodic.schedule_next_resync(100.0)
    assert periodic.next_resync == 130.0
    assert not periodic.resync_due(129.9) and periodic.resync_due(130.0)
