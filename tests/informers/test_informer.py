"""Unit tests of SharedIndexInformer driven through its reflector sink (`replace`, `apply`): handler
delivery, store-before-handlers, relist semantics, late handlers, resync, mutation detection, shutdown."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from external_dns.informers import (
    SERVICES,
    DeletedFinalStateUnknown,
    FilteringResourceEventHandler,
    InformerStartedError,
    ResourceEventHandlerFuncs,
    SharedIndexInformer,
    deletion_handling_key,
    drop_managed_fields,
)
from external_dns.informers.keys import resource_version
from tests.informers.conftest import UnreachableApi, svc
from tests.informers.helpers import wait_until


class Recorder:
    """Records (event, key, rv) and checks what the store held when each event arrived."""

    def __init__(self, informer: SharedIndexInformer | None = None, delay: float = 0.0) -> None:
        self.events: list[tuple[str, str, str]] = []
        self.store_seen: list[bool] = []
        self.informer = informer
        self.delay = delay
        self.cond = threading.Condition()
        self.synced_at: int | None = None

    def _record(self, kind: str, obj: Any) -> None:
        if self.delay:
            time.sleep(self.delay)
        with self.cond:
            self.events.append((kind, deletion_handling_key(obj), resource_version(obj)))
            self.cond.notify_all()

    def on_add(self, obj: dict[str, Any]) -> None:
        if self.informer is not None:
            self.store_seen.append(self.informer.get_store().get(obj) is not None)
        self._record("add", obj)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self._record("update", new)

    def on_delete(self, obj: Any) -> None:
        self._record("delete", obj)

    def on_synced(self) -> None:
        with self.cond:
            self.synced_at = len(self.events)
            self.cond.notify_all()

    def wait_for(self, n: int, timeout: float = 5.0) -> list[tuple[str, str, str]]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.events) >= n, timeout), self.events
            return list(self.events)


@pytest.fixture
def informer() -> Iterator[SharedIndexInformer]:
    inf = SharedIndexInformer(UnreachableApi(), SERVICES, transformers=[drop_managed_fields])
    yield inf
    assert inf.shutdown(5.0)


def test_initial_list_then_events_in_order_store_first(informer: SharedIndexInformer) -> None:
    rec = Recorder(informer)
    reg = informer.add_event_handler(rec)
    informer.start()
    assert not reg.has_synced() and not informer.has_synced()
    informer.replace([svc("a", rv="1"), svc("b", rv="2")], "2")
    assert informer.wait_for_cache_sync(2) and reg.wait_for_sync(2)
    assert rec.synced_at == 2
    informer.apply("MODIFIED", svc("a", rv="3"))
    informer.apply("ADDED", svc("c", rv="4"))
    informer.apply("DELETED", svc("b", rv="5"))
    informer.apply("DELETED", svc("never-known", rv="6"))  # nothing to tell
    informer.apply("MODIFIED", svc("a", rv="3"))  # same version again: not delivered
    events = rec.wait_for(5)
    assert events == [("add", "default/a", "1"), ("add", "default/b", "2"), ("update", "default/a", "3"),
                      ("add", "default/c", "4"), ("delete", "default/b", "5")]
    assert all(rec.store_seen)
    assert sorted(informer.get_store().list_keys()) == ["default/a", "default/c"]


def test_relist_adds_updates_and_tombstones(informer: SharedIndexInformer) -> None:
    deleted: list[Any] = []
    rec = Recorder()
    informer.add_event_handler(rec)
    informer.add_event_handler(ResourceEventHandlerFuncs(on_delete=deleted.append))
    informer.start()
    informer.replace([svc("a", rv="1"), svc("b", rv="2"), svc("c", rv="3")], "3")
    rec.wait_for(3)
    informer.replace([svc("a", rv="1"), svc("b", rv="7"), svc("d", rv="8")], "8")
    events = rec.wait_for(6)
    assert events[3:] == [("delete", "default/c", "3"), ("update", "default/b", "7"), ("add", "default/d", "8")]
    assert wait_until(lambda: bool(deleted), 2)
    assert isinstance(deleted[0], DeletedFinalStateUnknown) and deleted[0].obj is not None
    assert deleted[0].obj["metadata"]["name"] == "c"


def test_transformer_applies_before_store_and_bad_objects_are_skipped(informer: SharedIndexInformer) -> None:
    rec = Recorder()
    informer.add_event_handler(rec)
    informer.start()
    fat = svc("a", metadata={"managedFields": [{"manager": "x"}]})
    informer.replace([fat, {"kind": "Service", "metadata": {}}, "junk", svc("b")], "1")  # type: ignore[list-item]
    rec.wait_for(2)
    cached = informer.get_store().get_by_key("default/a")
    assert cached is not None and "managedFields" not in cached["metadata"]
    assert informer.get_store().list_keys() == ["default/a", "default/b"]


def test_slow_handler_does_not_block_others_or_the_sink(informer: SharedIndexInformer) -> None:
    slow, fast = Recorder(delay=0.2), Recorder()
    informer.add_event_handler(slow)
    informer.add_event_handler(fast)
    informer.start()
    started = time.monotonic()
    informer.replace([svc(f"s{i}", rv=str(i)) for i in range(10)], "10")
    assert time.monotonic() - started < 0.5  # the sink only queued notifications
    fast.wait_for(10, timeout=1.0)
    assert len(slow.events) < 10


def test_failing_handler_gets_later_events(informer: SharedIndexInformer) -> None:
    seen: list[str] = []

    def on_add(obj: dict[str, Any]) -> None:
        seen.append(obj["metadata"]["name"])
        if obj["metadata"]["name"] == "a":
            raise RuntimeError("handler bug")

    reg = informer.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
    informer.start()
    informer.replace([svc("a"), svc("b")], "1")
    assert reg.wait_for_sync(2)
    assert seen == ["a", "b"]


def test_late_handler_gets_synthetic_adds_then_synced(informer: SharedIndexInformer) -> None:
    informer.start()
    informer.replace([svc("a", rv="1"), svc("b", rv="2")], "2")
    assert informer.wait_for_cache_sync(2)
    late = Recorder()
    reg = informer.add_event_handler(late)
    assert reg.wait_for_sync(2)
    assert sorted(late.events) == [("add", "default/a", "1"), ("add", "default/b", "2")]
    assert late.synced_at == 2
    informer.apply("MODIFIED", svc("a", rv="9"))
    assert late.wait_for(3)[-1] == ("update", "default/a", "9")


def test_per_handler_resync(informer: SharedIndexInformer) -> None:
    resyncing, quiet = Recorder(), Recorder()
    informer.add_event_handler(resyncing, resync_period=1.0)
    informer.add_event_handler(quiet, resync_period=0)
    informer.start()
    informer.replace([svc("a", rv="1")], "1")
    events = resyncing.wait_for(3, timeout=4.0)
    assert events[1:3] == [("update", "default/a", "1")] * 2
    assert quiet.events == [("add", "default/a", "1")]


def test_indexers_and_transform_refused_after_start(informer: SharedIndexInformer) -> None:
    informer.add_indexers({"name": lambda o: [o["metadata"]["name"]]})
    informer.start()
    with pytest.raises(InformerStartedError):
        informer.add_indexers({"late": lambda o: []})
    with pytest.raises(InformerStartedError):
        informer.set_transform(drop_managed_fields)
    informer.replace([svc("a"), svc("b", ns="other")], "1")
    assert [o["metadata"]["name"] for o in informer.get_indexer().by_index("name", "b")] == ["b"]
    assert informer.get_indexer().index_keys("namespace", "other") == ["other/b"]


def test_filtering_handler() -> None:
    rec = Recorder()
    handler = FilteringResourceEventHandler(lambda o: o["metadata"].get("labels", {}).get("dns") == "yes", rec)
    on, off = svc("a", rv="2", metadata={"labels": {"dns": "yes"}}), svc("a", rv="1")
    handler.on_update(off, on)
    handler.on_update(on, off)
    handler.on_update(off, off)
    handler.on_add(off)
    assert [e[0] for e in rec.events] == ["add", "delete"]


def test_mutation_detector_reports_handler_mutation() -> None:
    inf = SharedIndexInformer(UnreachableApi(), SERVICES, detect_mutation=True)

    def evil(obj: dict[str, Any]) -> None:
        obj["metadata"]["labels"] = {"mutated": "yes"}

    reg = inf.add_event_handler(ResourceEventHandlerFuncs(on_add=evil))
    inf.start()
    inf.replace([svc("a")], "1")
    assert reg.wait_for_sync(2)
    detector = inf.mutation_detector
    assert detector is not None
    assert detector.check_all() == ["default/a"]
    assert detector.check_all() == []  # reported once
    assert inf.shutdown(5)


def test_shutdown_is_bounded_with_a_blocked_handler() -> None:
    inf = SharedIndexInformer(UnreachableApi(), SERVICES)
    release, entered = threading.Event(), threading.Event()

    def block(obj: dict[str, Any]) -> None:
        entered.set()
        release.wait(3)

    inf.add_event_handler(ResourceEventHandlerFuncs(on_add=block))
    inf.start()
    inf.replace([svc("a"), svc("b")], "1")
    assert entered.wait(2)
    started = time.monotonic()
    ok = inf.shutdown(0.5)
    assert time.monotonic() - started < 1.5
    assert not ok  # the handler thread is still inside on_add
    release.set()
    with pytest.raises(RuntimeError, match="has stopped"):
        inf.add_event_handler(Recorder())
