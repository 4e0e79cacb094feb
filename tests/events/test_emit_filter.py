"""--events-emit: only the listed record reasons reach the recorder; other reasons always do; empty = none of
the record reasons (as upstream)."""

from __future__ import annotations

from typing import Any

from external_dns.cmd.config import load_config
from external_dns.events import RECORD_DELETED, RECORD_ERROR, RECORD_READY
from external_dns.events.emit_filter import EmitFilter, filter_events

SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"}}


class Collect:
    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.stopped = False

    def event(self, obj: Any, type: str, reason: str, note: str, **kwargs: Any) -> bool:
        self.reasons.append(reason)
        return True

    def stop(self, timeout: float = 5.0) -> bool:
        self.stopped = True
        return True


def _send_all(recorder: Any) -> None:
    for reason in (RECORD_READY, RECORD_DELETED, RECORD_ERROR, "UnsafePlan"):
        assert recorder.event(SERVICE, "Normal", reason, "note") is True


def test_listed_reasons_only() -> None:
    inner = Collect()
    _, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync",
                          "--events-emit=RecordReady", "--events-emit=RecordError"], {})
    recorder = filter_events(inner, cfg.controller.events_emit)
    _send_all(recorder)
    assert inner.reasons == [RECORD_READY, RECORD_ERROR, "UnsafePlan"]
    assert recorder.stop(1.0) and inner.stopped  # lifecycle calls reach the wrapped recorder


def test_empty_list_emits_no_record_event() -> None:
    inner = Collect()
    _, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync"], {})
    assert cfg.controller.events_emit == ()  # the default, as upstream's
    recorder = filter_events(inner, cfg.controller.events_emit)
    _send_all(recorder)
    assert inner.reasons == ["UnsafePlan"]


def test_unknown_reason_is_refused_by_the_flag() -> None:
    import pytest

    with pytest.raises(SystemExit):
        load_config(["--source=service", "--provider=inmemory", "--policy=sync", "--events-emit=RecordCreated"], {})
    assert isinstance(EmitFilter(Collect(), ["RecordReady"]).emit, frozenset)
