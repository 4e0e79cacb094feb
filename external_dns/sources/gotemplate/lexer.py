"""Lexer for the Go text/template subset: splits a template into text and action tokens.

Delimiters are `{{` and `}}`; `{{- ` trims the white space before the action and ` -}}` the white space
after it, as Go does (the dash must be followed / preceded by a space). `{{/* ... */}}` is a comment.
Inside an action: fields (`.A`), variables (`$x`, `$`), strings ("..." with Go escapes, `raw`), character
constants, numbers, identifiers, `(`, `)`, `|`, `,`, `:=`, `=`. Anything else is a `TemplateError`
naming the line and column.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TEMPLATE_BYTES = 64 * 1024


class TemplateError(ValueError):
    """A template that does not parse, or that fails on an object (missing field, wrong type, limits)."""


@dataclass(frozen=True)
class Token:
    kind: str  # text, left, right, field, var, string, number, char, ident, "(", ")", "|", ",", ":=", "=", eof
    value: str
    pos: int  # offset in the template
    end: int = -1  # offset after the token (fields and variables chain when one starts where one ends)


def position(text: str, pos: int) -> str:
    """`line:column` of an offset (1-based, as Go's template errors)."""
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"{line}:{col}"


_SPACE = " \t\r\n"
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
                   "b": "\b", "f": "\f", "v": "\v"}


class Lexer:
    def __init__(self, text: str) -> None:
        if len(text.encode()) > MAX_TEMPLATE_BYTES:
            raise TemplateError(f"template is longer than {MAX_TEMPLATE_BYTES} bytes")
        self.text = text
        self.tokens: list[Token] = []

    def error(self, pos: int, msg: str) -> TemplateError:
        return TemplateError(f"template: {position(self.text, pos)}: {msg}")

    def run(self) -> list[Token]:
        text, i, n = self.text, 0, len(self.text)
        trim_next = False
        while i < n:
            j = text.find("{{", i)
            chunk = text[i:] if j < 0 else text[i:j]
            if trim_next:
                chunk = chunk.lstrip(_SPACE)
            if j >= 0 and text[j + 2 : j + 3] == "-" and text[j + 3 : j + 4] in tuple(_SPACE):
                chunk = chunk.rstrip(_SPACE)
            if chunk:
                self.tokens.append(Token("text", chunk, i))
            if j < 0:
                break
            i, trim_next = self._action(j)
        self.tokens.append(Token("eof", "", n))
        return self.tokens

    def _action(self, start: int) -> tuple[int, bool]:
        """Lex one action starting at `{{`; returns the offset after `}}` and whether to trim after it."""
        text, n = self.text, len(self.text)
        i = start + 2
        if text.startswith("-", i) and i + 1 < n and text[i + 1] in " \t\r\n":
            i += 1
        probe = i
        while probe < n and text[probe] in " \t\r\n":
            probe += 1
        if text.startswith("/*", probe):
            return self._comment(start, probe)
        self.tokens.append(Token("left", "{{", start))
        while True:
            while i < n and text[i] in " \t\r\n":
                i += 1
            if i >= n:
                raise self.error(start, "unclosed action")
            if text.startswith("}}", i) or (text.startswith("-}}", i) and text[i - 1] in " \t\r\n"):
                trim = text[i] == "-"
                end = i + (3 if trim else 2)
                self.tokens.append(Token("right", "}}", i))
                return end, trim
            i = self._token(i, start)

    def _comment(self, start: int, i: int) -> tuple[int, bool]:
        end = self.text.find("*/", i + 2)
        if end < 0:
            raise self.error(start, "unclosed comment")
        k = end + 2
        trim = False
        if self.text.startswith(" -}}", k):
            trim, k = True, k + 4
        elif self.text.startswith("}}", k):
            k += 2
        else:
            raise self.error(start, "comment ends before closing delimiter")
        return k, trim

    def _token(self, i: int, start: int) -> int:
        text, n = self.text, len(self.text)
        c = text[i]
        if c in "()|,":
            self.tokens.append(Token(c, c, i, i + 1))
            return i + 1
        if text.startswith(":=", i):
            self.tokens.append(Token(":=", ":=", i))
            return i + 2
        if c == "=":
            self.tokens.append(Token("=", "=", i))
            return i + 1
        if c == '"':
            return self._quoted(i, start)
        if c == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise self.error(start, "unclosed action (unterminated raw quoted string)")
            self.tokens.append(Token("string", text[i + 1 : j], i))
            return j + 1
        if c == "'":
            return self._char(i)
        if c == "." and (i + 1 >= n or not (text[i + 1].isdigit())):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            self.tokens.append(Token("field", text[i + 1 : j], i, j))
            return j
        if c == "$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            self.tokens.append(Token("var", text[i:j], i, j))
            return j
        if c.isdigit() or (c in "+-." and i + 1 < n and (text[i + 1].isdigit() or text[i + 1] == ".")):
            return self._number(i)
        if c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            self.tokens.append(Token("ident", text[i:j], i))
            return j
        raise self.error(i, f"unexpected {c!r} in command")

    def _quoted(self, i: int, start: int) -> int:
        text, n = self.text, len(self.text)
        j, buf = i + 1, []
        while True:
            if j >= n or text[j] == "\n":
                raise self.error(start, "unterminated quoted string")
            c = text[j]
            if c == '"':
                break
            if c != "\\":
                buf.append(c)
                j += 1
                continue
            value, j = self._escape(j)
            buf.append(value)
        self.tokens.append(Token("string", "".join(buf), i))
        return j + 1

    def _escape(self, j: int) -> tuple[str, int]:
        """One backslash escape at `j` (Go's string literal rules); returns the value and the next offset."""
        text = self.text
        e = text[j + 1 : j + 2]
        if e in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[e], j + 2
        digits = {"x": 2, "u": 4, "U": 8}.get(e)
        if digits:
            raw = text[j + 2 : j + 2 + digits]
            if len(raw) == digits and all(ch in "0123456789abcdefABCDEF" for ch in raw):
                code = int(raw, 16)
                if code <= 0x10FFFF:
                    return chr(code), j + 2 + digits
        elif e and e in "01234567":
            raw = text[j + 1 : j + 4]
            if len(raw) == 3 and all(ch in "01234567" for ch in raw):
                return chr(int(raw, 8)), j + 4
        raise self.error(j, "unsupported escape in quoted string")

    def _char(self, i: int) -> int:
        text = self.text
        if text[i + 1 : i + 2] == "\\":
            value, j = self._escape(i + 1)
        elif i + 2 < len(text):
            value, j = text[i + 1], i + 2
        else:
            raise self.error(i, "unterminated character constant")
        if text[j : j + 1] != "'":
            raise self.error(i, "malformed character constant")
        self.tokens.append(Token("char", str(ord(value)), i))
        return j + 1

    def _number(self, i: int) -> int:
        text, n = self.text, len(self.text)
        j = i + 1 if text[i] in "+-" else i
        while j < n and (text[j].isalnum() or text[j] in "._" or
                         (text[j] in "+-" and text[j - 1] in "eEpP" and not text[i:j].lower().startswith("0x"))):
            j += 1
        self.tokens.append(Token("number", text[i:j], i))
        return j
