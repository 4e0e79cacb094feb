"""Event handlers (informers/handlers.py): a handler from optional callables, and client-go's filtering handler,
where an update that starts matching is an add and one that stops matching is a delete."""

from __future__ import annotations

from typing import Any

from external_dns.informers.handlers import FilteringResourceEventHandler, ResourceEventHandlerFuncs
from external_dns.informers.keys import DeletedFinalStateUnknown


def obj(name: str, team: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"team": team}}}


class Recording:
    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []

    def on_add(self, o: Any) -> None:
        self.seen.append(("add", o["metadata"]["name"]))

    def on_update(self, old: Any, new: Any) -> None:
        self.seen.append(("update", old["metadata"]["labels"]["team"], new["metadata"]["labels"]["team"]))

    def on_delete(self, o: Any) -> None:
        self.seen.append(("delete", o.key if isinstance(o, DeletedFinalStateUnknown) else o["metadata"]["name"]))


def test_funcs_call_what_was_given_and_ignore_the_rest() -> None:
    calls: list[tuple[str, Any]] = []
    full = ResourceEventHandlerFuncs(on_add=lambda o: calls.append(("add", o)),
                                     on_update=lambda old, new: calls.append(("update", (old, new))),
                                     on_delete=lambda o: calls.append(("delete", o)),
                                     on_synced=lambda: calls.append(("synced", None)))
    a, b = obj("a", "x"), obj("a", "y")
    full.on_add(a)
    full.on_update(a, b)
    full.on_delete(b)
    full.on_synced()
    assert calls == [("add", a), ("update", (a, b)), ("delete", b), ("synced", None)]
    empty = ResourceEventHandlerFuncs()
    empty.on_add(a)
    empty.on_update(a, b)
    empty.on_delete(b)
    empty.on_synced()  # nothing to call: no error


def test_filtering_handler_turns_updates_across_the_filter_into_adds_and_deletes() -> None:
    inner = Recording()
    handler = FilteringResourceEventHandler(lambda o: isinstance(o, dict) and o["metadata"]["labels"]["team"] == "dns",
                                            inner)
    handler.on_add(obj("in", "dns"))
    handler.on_add(obj("out", "web"))
    handler.on_update(obj("in", "dns"), obj("in", "dns"))  # matches before and after: an update
    handler.on_update(obj("join", "web"), obj("join", "dns"))  # starts matching: an add of the new object
    handler.on_update(obj("leave", "dns"), obj("leave", "web"))  # stops matching: a delete of the old object
    handler.on_update(obj("never", "web"), obj("never", "app"))  # never matches: nothing
    handler.on_delete(obj("in", "dns"))
    handler.on_delete(obj("out", "web"))
    assert inner.seen == [("add", "in"), ("update", "dns", "dns"), ("add", "join"), ("delete", "leave"),
                          ("delete", "in")]


def test_filtering_handler_asks_its_filter_about_a_tombstone() -> None:
    inner = Recording()
    stone = DeletedFinalStateUnknown("default/gone", obj("gone", "dns"))
    FilteringResourceEventHandler(lambda o: isinstance(o, DeletedFinalStateUnknown), inner).on_delete(stone)
    FilteringResourceEventHandler(lambda o: False, inner).on_delete(stone)
    assert inner.seen == [("delete", "default/gone")]
