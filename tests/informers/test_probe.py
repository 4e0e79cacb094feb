"""The CLI probe's handler (informers/probe.py): one JSON object per event and line, flushed, resyncs left out, the
count of initial adds when synced, and a closed stream noted instead of raised."""

from __future__ import annotations

import io
import json

from external_dns.informers.keys import DeletedFinalStateUnknown
from external_dns.informers.probe import JsonLinesHandler
from tests.informers.conftest import svc


class Flushes(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[int] = []

    def flush(self) -> None:
        self.flushed.append(len(self.getvalue().splitlines()))


def test_one_flushed_line_per_event_and_the_synced_count() -> None:
    out = Flushes()
    handler = JsonLinesHandler(out)
    handler.on_add(svc("a", rv="1"))
    handler.on_add(svc("b", rv="2"))
    handler.on_synced()
    handler.on_update(svc("a", rv="1"), svc("a", rv="1"))  # a resync: nothing changed, nothing written
    handler.on_update(svc("a", rv="1"), svc("a", rv="3"))
    handler.on_add(svc("c", rv="4"))
    handler.on_delete(DeletedFinalStateUnknown("default/b", svc("b", rv="2")))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines == [
        {"event": "add", "key": "default/a", "resourceVersion": "1"},
        {"event": "add", "key": "default/b", "resourceVersion": "2"},
        {"event": "synced", "count": 2},  # the adds before the marker only
        {"event": "update", "key": "default/a", "resourceVersion": "3"},
        {"event": "add", "key": "default/c", "resourceVersion": "4"},
        {"event": "delete", "key": "default/b", "resourceVersion": "2"},
    ]
    assert out.flushed == [1, 2, 3, 4, 5, 6]  # each line flushed as it is written
    assert not handler.broken.is_set()


def test_a_closed_stream_sets_broken_instead_of_raising() -> None:
    out = io.StringIO()
    handler = JsonLinesHandler(out)
    out.close()
    handler.on_add(svc("a"))
    assert handler.broken.is_set()
