"""A watch stream that never ends a line is refused once the line passes the cap (memory stays bounded);
the reflector treats it as an undecodable stream and re-watches."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.informers import api


class _Endless:
    """A response body of 64 KiB chunks with no line end, for ever (counts what was read)."""

    def __init__(self) -> None:
        self.read = 0

    def read1(self, n: int) -> bytes:
        self.read += n
        return b"x" * n

    def release_conn(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


def test_a_line_without_end_is_refused_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _Endless()

    def fake_request(*_: Any, **__: Any) -> _Endless:
        return body

    monkeypatch.setattr(api, "_request", fake_request)
    monkeypatch.setattr(api, "MAX_WATCH_LINE", 1024 * 1024)
    stream = api.WatchStream(object(), "/api/v1/services", [("watch", "true")], (1.0, 1.0))
    with pytest.raises(api.WatchDecodeError, match="longer than 1048576 bytes"):
        next(iter(stream))
    assert body.read <= 1024 * 1024 + 2 * 65536


def test_events_split_across_chunks_still_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = [b'{"type": "ADDED", "object"', b': {"kind": "Service"}}\n{"type": "DEL', b'ETED", "object": {}}\n', b""]

    class _Body(_Endless):
        def read1(self, n: int) -> bytes:
            return chunks.pop(0)

    monkeypatch.setattr(api, "_request", lambda *a, **k: _Body())
    monkeypatch.setattr(api, "MAX_WATCH_LINE", 40)  # above the longest partial line: complete lines pass
    events = list(api.WatchStream(object(), "/api/v1/services", [], (1.0, 1.0)))
    assert [e["type"] for e in events] == ["ADDED", "DELETED"]
