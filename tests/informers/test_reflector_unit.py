"""The reflector against a scripted ListerWatcher (no API server): resume from the last bookmark, relist
with resourceVersion unset after a 410, paged lists."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from external_dns.informers.api import ApiStatusError, Params, Timeout
from external_dns.informers.backoff import Backoff
from external_dns.informers.reflector import Closable, Reflector, ReflectorOptions, Watch
from external_dns.informers.resource import BY_NAME


def svc(name: str, rv: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default", "resourceVersion": rv}}


class ScriptedWatch:
    def __init__(self, events: list[dict[str, Any]] | ApiStatusError) -> None:
        self.events = events
        self.closed = threading.Event()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if isinstance(self.events, ApiStatusError):
            raise self.events
        yield from self.events

    def close(self) -> None:
        self.closed.set()

    def release(self) -> None:
        pass


class Script:
    """Answers lists with `pages` in turn and watches with `watches` in turn; when the script runs out the
    watch blocks until the reflector stops, and `done` is set."""

    def __init__(self, pages: list[dict[str, Any]], watches: list[list[dict[str, Any]] | ApiStatusError]) -> None:
        self.pages, self.watches = list(pages), list(watches)
        self.lists: list[dict[str, str]] = []
        self.watch_calls: list[dict[str, str]] = []
        self.done = threading.Event()
        self.stop = threading.Event()

    def list(self, params: Params, timeout: Timeout,
             in_flight: Callable[[Closable | None], None] | None = None,
             prepare: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        self.lists.append(dict(params))
        got = self.pages.pop(0)
        return {**got, "items": [prepare(i) if prepare else i for i in got.get("items") or []]}

    def watch(self, params: Params, timeout: Timeout) -> Watch:
        self.watch_calls.append(dict(params))
        if self.watches:
            return ScriptedWatch(self.watches.pop(0))
        self.done.set()
        self.stop.wait(5.0)
        return ScriptedWatch([])


class Sink:
    def __init__(self) -> None:
        self.replaced: list[tuple[list[str], str]] = []
        self.applied: list[tuple[str, str]] = []

    def list_item(self, item: dict[str, Any]) -> str:
        return str(item["metadata"]["name"])

    def replace_listed(self, entries: list[str], resource_version: str) -> None:
        self.replaced.append((entries, resource_version))

    def apply(self, event_type: str, obj: dict[str, Any]) -> None:
        self.applied.append((event_type, obj["metadata"]["name"]))


def run(script: Script, page_size: int = 500) -> Sink:
    sink = Sink()
    options = ReflectorOptions(page_size=page_size, backoff_factory=lambda: Backoff(initial=0.001, cap=0.001))
    reflector = Reflector(None, BY_NAME["services"], sink, options=options, lister_watcher=script)
    thread = threading.Thread(target=reflector.run, daemon=True)
    thread.start()
    assert script.done.wait(5.0), "the script was not played to the end"
    reflector.stop()
    script.stop.set()
    thread.join(5.0)
    assert not thread.is_alive()
    return sink


def page(rv: str, *names: str, token: str = "") -> dict[str, Any]:
    meta = {"resourceVersion": rv, **({"continue": token} if token else {})}
    return {"metadata": meta, "items": [svc(n, rv) for n in names]}


def test_rewatch_resumes_from_the_last_bookmark() -> None:
    script = Script([page("10", "a")], [
        [{"type": "ADDED", "object": svc("b", "11")}, {"type": "BOOKMARK", "object": svc("", "15")}],
    ])
    sink = run(script)
    assert sink.replaced == [(["a"], "10")]
    assert sink.applied == [("ADDED", "b")]
    assert [w["resourceVersion"] for w in script.watch_calls] == ["10", "15"]
    assert script.lists == [{"resourceVersion": "0", "limit": "500"}]


def test_expired_watch_relists_with_resource_version_unset() -> None:
    gone = ApiStatusError(410, "Expired", "too old resource version")
    script = Script([page("10", "a"), page("20", "a", "c")], [gone])
    sink = run(script)
    assert sink.replaced == [(["a"], "10"), (["a", "c"], "20")]
    assert script.lists[1] == {"limit": "500"}  # no resourceVersion: the latest state
    assert script.watch_calls[-1]["resourceVersion"] == "20"


def test_paged_list_follows_continue_tokens() -> None:
    script = Script([page("10", "a", token="t1"), page("10", "b")], [])
    sink = run(script, page_size=1)
    assert sink.replaced == [(["a", "b"], "10")]
    assert script.lists == [{"resourceVersion": "0", "limit": "1"}, {"limit": "1", "continue": "t1"}]
