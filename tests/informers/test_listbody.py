"""listbody.ListBody: a LIST body parsed piece by piece gives what `json.loads` of the whole gives, whatever
the pieces' boundaries (inside a name, a number, a multi-byte character, white space)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from external_dns.informers.listbody import ListBody

DOCS: list[dict[str, Any]] = [
    {"kind": "ServiceList", "apiVersion": "v1", "metadata": {"resourceVersion": "12", "continue": "x"},
     "items": [{"a": i, "b": "é€" * i, "c": [1, 2.5, None, True, False], "d": {}} for i in range(40)]},
    {"items": []},
    {},
    {"items": [{"x": 1}], "metadata": {"resourceVersion": "5"}},  # the list's metadata after its items
    {"items": [1, 2, 30000, "s", None, -1.5e10]},
]


def parse(data: bytes, piece: int) -> tuple[dict[str, Any], list[Any]]:
    items: list[Any] = []
    body = ListBody(items.append)
    for i in range(0, len(data), piece):
        body.feed(data[i:i + piece])
    return body.finish(), items


@pytest.mark.parametrize("doc", DOCS)
@pytest.mark.parametrize("spaced", [False, True])
def test_any_split_gives_what_the_whole_body_gives(doc: dict[str, Any], spaced: bool) -> None:
    data = json.dumps(doc, separators=(", ", ": ") if spaced else (",", ":"), ensure_ascii=False).encode()
    if spaced:
        data = b" \n" + data.replace(b"[", b"[ \n ") + b"\n"
    want = dict(doc)
    want_items = want.pop("items", [])
    for piece in (1, 2, 3, 7, 64, 1000, len(data)):
        assert parse(data, piece) == (want, want_items), piece


@pytest.mark.parametrize("data", [b'{"items":[{"a":1}', b'{"items":[{"a":1},]}', b'[1]', b'{"a":1}x',
                                  b'{"items":[{"a":1}]', b'', b'{"items":[{"a":}]}', b'{"a" 1}'])
def test_a_malformed_or_cut_body_is_a_value_error(data: bytes) -> None:
    for piece in (1, 5, 100):
        with pytest.raises(ValueError):
            parse(data, piece)


def test_an_item_is_handed_over_as_soon_as_it_is_complete() -> None:
    seen: list[Any] = []
    body = ListBody(seen.append)
    body.feed(b'{"metadata":{"continue":"t"},"items":[{"n":1},{"n":')
    assert body.head == {"metadata": {"continue": "t"}} and seen == [{"n": 1}]
    body.feed(b'2}]}')
    assert body.finish() == {"metadata": {"continue": "t"}} and seen == [{"n": 1}, {"n": 2}]
