"""A LIST answer parsed while it arrives: `ListBody.feed(chunk)` as each piece of the body is read, `finish()`
at its end.

The top-level object's members are decoded one by one and the `items` array element by element (the
standard library's JSON scanner, one call per element), each item handed to `on_item` as soon as its closing
brace is in: the objects are decoded (and, by the informer, slimmed) while the API server is still encoding and
sending the rest, instead of after the whole body, and the raw items never need to be held all at once. The
members other than `items` (`kind`, `apiVersion`, `metadata`) are kept in `head`, wherever they come.

A piece that is not complete yet is decoded again once more of the body is in: never before the text after
it has grown by the piece's own length (at least 64 KiB), so a large object costs a bounded number of tries.
Malformed JSON raises `ValueError` at the latest at `finish()`; so does a body that is not one JSON object.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# the decoder's C scanner: (value, end) of the JSON value at an index (untyped in typeshed's JSONDecoder)
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_WS = " \t\n\r"
_MIN_RETRY = 64 * 1024


class _Incomplete(Exception):
    """More of the body is needed (or, at its end, the body is malformed)."""


class ListBody:
    """The incremental parser of one LIST body (a JSON object whose `items` member is streamed)."""

    def __init__(self, on_item: Callable[[Any], None]) -> None:
        self.on_item = on_item
        self.head: dict[str, Any] = {}
        self.count = 0  # items handed to on_item
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._text = ""
        self._pos = 0
        self._state = "start"  # start, first_member, member, first_item, items, member_sep, end
        self._retry_at = 0  # length of the text at which decoding is worth trying again

    def feed(self, data: bytes) -> None:
        """Take the next piece of the body; decodes whatever it completes."""
        text = self._utf8.decode(data)
        if not text:
            return
        if self._pos:
            self._text = self._text[self._pos:] + text
            self._retry_at -= self._pos
            self._pos = 0
        else:
            self._text += text
        if len(self._text) >= self._retry_at:
            self._advance(final=False)

    def finish(self) -> dict[str, Any]:
        """The end of the body: the members other than `items`; ValueError unless it was one JSON object."""
        self._text = self._text[self._pos:] + self._utf8.decode(b"", final=True)
        self._pos = 0
        self._advance(final=True)
        if self._state != "end" or _SPACE.match(self._text, self._pos).end() != len(self._text):  # type: ignore[union-attr]
            raise ValueError("LIST body is not one complete JSON object")
        return self.head

    def _advance(self, final: bool) -> None:
        try:
            while self._state != "end":
                mark = self._pos
                try:
                    self._step()
                except _Incomplete:
                    if self._state != "items":  # (items keep their place: each one is handed over once)
                        self._pos = mark  # the unfinished step is taken again from its start
                    raise
        except _Incomplete:
            if final:
                raise ValueError(f"LIST body malformed or cut short near character {self._pos}") from None
            # Try again only once the text after the unfinished piece has grown by the piece's own length.
            self._retry_at = len(self._text) + max(_MIN_RETRY, len(self._text) - self._pos)

    def _skip(self) -> str:
        """The next character after white space (position left on it); _Incomplete at the end of the text."""
        pos = _SPACE.match(self._text, self._pos).end()  # type: ignore[union-attr]
        self._pos = pos
        if pos >= len(self._text):
            raise _Incomplete
        return self._text[pos]

    def _value(self) -> Any:
        """The JSON value at the position, only when what follows it is in too (a number or literal at the end
        of the text may continue in the next piece)."""
        self._skip()
        try:
            value, end = _DECODER.raw_decode(self._text, self._pos)
        except ValueError:
            raise _Incomplete from None
        if _SPACE.match(self._text, end).end() >= len(self._text):  # type: ignore[union-attr]
            raise _Incomplete
        self._pos = end
        return value

    def _items(self) -> None:
        """As many items as the text holds complete, each followed by its ',' or ']' (the hot loop: one scanner
        call per item; white space, which the API server does not write between items, only when present)."""
        text, pos, end_of_text = self._text, self._pos, len(self._text)
        scan, on_item = _SCAN, self.on_item
        while True:  # self._pos: where the next item (or the white space before it) starts
            if pos >= end_of_text:
                raise _Incomplete
            if text[pos] in _WS:
                pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
                if pos >= end_of_text:
                    raise _Incomplete
            try:
                item, end = scan(text, pos)
            except (StopIteration, ValueError):
                raise _Incomplete from None
            if end < end_of_text and text[end] in _WS:
                end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            if end >= end_of_text:
                raise _Incomplete
            sep = text[end]
            if sep not in ",]":
                raise ValueError(f"LIST body: expected ',' or ']' at character {end}, found {sep!r}")
            pos = self._pos = end + 1
            self.count += 1
            on_item(item)
            if sep == "]":
                self._state = "member_sep"
                return

    def _next(self, expected: str) -> str:
        """The next character, consumed, which must be one of `expected`."""
        char = self._skip()
        if char not in expected:
            raise ValueError(f"LIST body: expected one of {expected!r} at character {self._pos}, found {char!r}")
        self._pos += 1
        return char

    def _step(self) -> None:
        """One step of the state machine; every step either completes or raises _Incomplete having changed
        nothing but the position (which `_advance` puts back)."""
        state = self._state
        if state == "start":
            self._next("{")
            self._state = "first_member"
        elif state == "first_member":
            if self._skip() == "}":
                self._pos += 1
                self._state = "end"
            else:
                self._state = "member"
        elif state == "member":
            if self._skip() != '"':
                raise ValueError(f"LIST body: expected a member name at character {self._pos}")
            key = self._value()
            self._next(":")
            if key == "items" and self._skip() == "[":
                self._pos += 1
                self._state = "first_item"
            else:
                self.head[key] = self._value()
                self._state = "member_sep"
        elif state == "first_item":
            if self._skip() == "]":
                self._pos += 1
                self._state = "member_sep"
            else:
                self._state = "items"
        elif state == "items":
            self._items()
        else:  # member_sep
            self._state = "member" if self._next(",}") == "," else "end"
