"""A line-based reader for the plain block YAML most manifests are written in, giving exactly what the safe
loader gives, or None when the text uses anything outside that subset (the caller then uses the full loader).

The subset: printable ASCII without tabs or carriage returns; `---` document separators; block maps whose keys
are plain `[A-Za-z0-9_][A-Za-z0-9_./-]*` (up to 512 characters); block sequences (also "indentless" ones under a key, and `- key: v`
items); one-line values that are plain scalars of a conservative character set (resolved to str, int, float,
bool, null or timestamp by the loader's own implicit resolvers and constructors), single- or double-quoted
strings without escapes, `[]`, `{}` and one-line flow sequences of such scalars; whole-line comments.
Anything else - anchors, aliases, tags, block scalars, escapes, multi-line scalars, flow maps, trailing
comments, complex keys, directives, odd indentation - returns None, so the result and every error message
still come from the full loader. The subset's rules sit beside `_tokens`, `_scalar` and `_Parser`.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode

# Scalar tags built here through the safe constructor's own functions (anything else resolved: None).
_BUILT = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                    "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp"))
_UNUSUAL = re.compile(r"[^\x20-\x7e\n]")  # tabs, CR, control characters, non-ASCII: the full loader
# Keys of at most _MAX_KEY characters: libyaml refuses implicit keys over 1024, long ones go to the full loader
_MAX_KEY = 512
_KEY_RE = rf"[A-Za-z0-9_][A-Za-z0-9_./-]{{0,{_MAX_KEY - 1}}}"
_KEY_LINE = re.compile(rf"({_KEY_RE}):(?: +(.*))?")
# A plain scalar: no indicator first (`-` only before a non-space), none of `#'"` and no `: `, ` #` or
# trailing `:` (checked in `_scalar`); `[]{},` are allowed in block context but refused here for simplicity.
_PLAIN = re.compile(r"[A-Za-z0-9_./~(+=$^-][A-Za-z0-9_./~()+=$^@;%?!:<> -]*")
_FLOW_PLAIN = re.compile(r"[A-Za-z0-9_./~(+=$^-][A-Za-z0-9_./~()+=$^@;%?!<> -]*")
# `[- ]key: value` with the value's surrounding spaces left out (the value may be empty)
_COMMON_LINE = re.compile(rf"( *)(- +)?({_KEY_RE}):(?: +([^ ](?:.*[^ ])?))? *")
_DQ = re.compile(r'"([^"\\]*)"')
_SQ = re.compile(r"'([^']*)'")
_MAX_DEPTH = 64  # deeper documents go to the full loader (which enforces the manifest source's own limit)


class _Unsupported(Exception):
    pass


_MISSING: Any = object()  # a cache miss (None is a value: `null`)


def _resolvers() -> tuple[dict[str, list[tuple[str, Any]]], list[tuple[str, Any]]]:
    table = yaml.SafeLoader.yaml_implicit_resolvers
    wildcard = list(table.get(None, []))
    return {k: [*v, *wildcard] for k, v in table.items() if k is not None}, wildcard


_IMPLICIT, _WILDCARD = _resolvers()
_CONSTRUCTOR = SafeConstructor()


class _Reader:
    """One `load_block_documents` call: resolved scalars are remembered by their text for the call (they are
    immutable; manifests repeat keys and many values), lists and maps are always new objects."""

    def __init__(self) -> None:
        self.plain_cache: dict[str, Any] = {}
        self.value_cache: dict[str, Any] = {}

    def plain(self, value: str) -> Any:
        """A plain scalar resolved and built as the safe loader does."""
        out: Any = self.plain_cache.get(value, _MISSING)  # a lookup, not try/except: most names are new
        if out is not _MISSING:
            return out
        out = value
        for tag, regexp in _IMPLICIT.get(value[0], _WILDCARD):
            if regexp.match(value):
                if tag not in _BUILT:
                    raise _Unsupported
                out = _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, ScalarNode(tag, value))
                break
        self.plain_cache[value] = out
        return out

    def scalar(self, text: str, flow: bool = False) -> Any:
        """A one-line scalar (already stripped of surrounding spaces)."""
        first = text[0]
        if first == "-" and (len(text) == 1 or text[1] == " "):
            raise _Unsupported  # an entry indicator where a value belongs
        if first == '"' or first == "'":
            m = (_DQ if first == '"' else _SQ).fullmatch(text)
            if m is None:
                raise _Unsupported
            return m.group(1)
        if flow:
            if _FLOW_PLAIN.fullmatch(text) is None or " #" in text:
                raise _Unsupported
        elif _PLAIN.fullmatch(text) is None or ": " in text or " #" in text or text[-1] == ":":
            raise _Unsupported
        return self.plain(text)

    def value(self, text: str) -> Any:
        """The value after `key: ` or `- ` on one line."""
        first = text[0]
        if first != "[":  # flow sequences are new lists every time, never remembered
            out: Any = self.value_cache.get(text, _MISSING)
            if out is not _MISSING:
                return out
        if first == "[":
            if text[-1] != "]":
                raise _Unsupported
            inner = text[1:-1].strip(" ")
            if not inner:
                return []
            items = []
            for item in inner.split(","):
                item = item.strip(" ")
                if not item:
                    raise _Unsupported
                items.append(self.scalar(item, flow=True))
            return items
        if first == "{":
            if text.replace(" ", "") != "{}":
                raise _Unsupported
            return {}
        out = self.value_cache[text] = self.scalar(text)
        return out

    def document(self, tokens: list[tuple[int, int, str, str | None]]) -> Any:
        return _Parser(self, tokens).document()


# token kinds
_DASH, _KEY, _OTHER = 0, 1, 2


_Token = tuple[int, int, str, "str | None"]
_MAX_LINE_MEMO = 4096  # lines remembered per load (manifests repeat `recordType: A`-like lines)


def _tokens(lines: list[str], memo: dict[str, tuple[_Token, ...]] | None = None) -> list[_Token]:
    """(column, kind, text, value text) of one document's lines: `- ` entry indicators become their own
    tokens (_DASH) and what follows one on its line a token at the column it starts in, as YAML reads it;
    `key: value` lines are _KEY (text: the key; value text: None when nothing follows the colon). `memo`: the
    tokens of `[- ]key: value` lines already read (tuples: shared safely), filled up to _MAX_LINE_MEMO lines."""
    out: list[_Token] = []
    append, extend = out.append, out.extend
    key_line, common = _KEY_LINE.fullmatch, _COMMON_LINE.fullmatch
    if memo is None:
        memo = {}
    memo_get = memo.get
    for raw in lines:
        hit = memo_get(raw)
        if hit is not None:
            extend(hit)
            continue
        m = common(raw)
        if m is not None:  # `[- ]key: value` in one step (nearly every line of a manifest)
            indent, dash, key, value = m.groups()
            line: tuple[_Token, ...]
            if dash is None:
                line = ((len(indent), _KEY, key, value),)
            else:
                line = ((len(indent), _DASH, "", None), (len(indent) + len(dash), _KEY, key, value))
            extend(line)
            if len(memo) < _MAX_LINE_MEMO:
                memo[raw] = line
            continue
        content = raw.lstrip(" ")
        if not content or content[0] == "#":
            continue
        indent_n = len(raw) - len(content)
        content = content.rstrip(" ")
        while content[0] == "-" and (len(content) == 1 or content[1] == " "):
            append((indent_n, _DASH, "", None))
            rest = content[1:].lstrip(" ")
            if not rest:
                break
            indent_n += len(content) - len(rest)
            content = rest
        else:
            km = key_line(content)
            if km is None:
                append((indent_n, _OTHER, content, None))
            else:
                append((indent_n, _KEY, km.group(1), km.group(2)))
    return out


class _Parser:
    """Recursive descent over the tokens of one document."""

    def __init__(self, reader: _Reader, tokens: list[tuple[int, int, str, str | None]]) -> None:
        self.reader = reader
        self.tokens = tokens
        self.i = 0
        self.n = len(tokens)

    def node(self, depth: int) -> Any:
        """The block node starting at the current token."""
        if depth > _MAX_DEPTH:
            raise _Unsupported
        indent, kind, _text, _value = self.tokens[self.i]
        if kind == _DASH:
            return self.sequence(indent, depth)
        if kind == _KEY:
            return self.mapping(indent, depth)
        raise _Unsupported  # a scalar on a line of its own (or not one we read)

    def mapping(self, indent: int, depth: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        tokens, n = self.tokens, self.n
        plain, value_of = self.reader.plain, self.reader.value
        keys, values = self.reader.plain_cache, self.reader.value_cache  # the two readers' memos, looked up here
        missing = _MISSING
        i = self.i
        while i < n:
            col, kind, key_text, text = tokens[i]
            if col < indent:
                break
            if col > indent or kind != _KEY:
                raise _Unsupported
            i += 1
            if text is not None:
                value = values.get(text, missing)
                if value is missing:
                    value = value_of(text)
                if i < n and tokens[i][0] > indent:
                    raise _Unsupported  # a continuation line (multi-line scalar) or an error
            elif i < n and (tokens[i][0] > indent or (tokens[i][0] == indent and tokens[i][1] == _DASH)):
                self.i = i
                value = self.node(depth + 1)  # nested, or an indentless sequence at the key's column
                i = self.i
            else:
                value = None
            key = keys.get(key_text, missing)
            out[plain(key_text) if key is missing else key] = value
        self.i = i
        return out

    def sequence(self, indent: int, depth: int) -> list[Any]:
        out: list[Any] = []
        tokens, n = self.tokens, self.n
        while self.i < n:
            col, kind, _text, _value = tokens[self.i]
            if col != indent or kind != _DASH:
                if col > indent:
                    raise _Unsupported
                break
            self.i += 1
            if self.i < n and tokens[self.i][0] > indent:
                nxt_col, nxt_kind, nxt, _nxt_value = tokens[self.i]
                if nxt_kind == _KEY and depth < _MAX_DEPTH:  # `- key: ...`: what `node` would do, one call less
                    out.append(self.mapping(nxt_col, depth + 1))
                elif nxt_kind != _OTHER:
                    out.append(self.node(depth + 1))
                else:
                    self.i += 1
                    out.append(self.reader.value(nxt))
                    if self.i < n and tokens[self.i][0] > indent:
                        raise _Unsupported  # a continuation line (multi-line scalar) or an error
            else:
                out.append(None)
        return out

    def document(self) -> Any:
        if not self.tokens:
            return None
        if self.tokens[0][0] != 0:
            raise _Unsupported
        data = self.node(1)
        if self.i != self.n:
            raise _Unsupported
        return data


_MARKER = re.compile(r"^(?:---|\.\.\.|%)[^\n]*", re.MULTILINE)


def load_block_documents(text: str) -> list[Any] | None:
    """The documents of `text` as `yaml.load_all(text, Loader=<safe loader>)` returns them, or None when the
    text is outside the subset of the module docstring."""
    if _UNUSUAL.search(text) is not None:
        return None
    reader = _Reader()
    memo: dict[str, tuple[_Token, ...]] = {}
    docs: list[Any] = []
    explicit = False  # the current document began with `---`
    pos = 0
    try:
        for m in _MARKER.finditer(text):
            if m.group().rstrip(" ") != "---":
                return None  # `--- value`, `...`, `----`, a directive: the full loader
            tokens = _tokens(text[pos:m.start()].split("\n"), memo)
            if explicit or tokens:
                docs.append(reader.document(tokens))
            explicit = True
            pos = m.end()
        tokens = _tokens(text[pos:].split("\n"), memo)
        if explicit or tokens:
            docs.append(reader.document(tokens))
    except Exception:  # outside the subset, or a constructor refusing a value: the full loader reports it
        return None
    return docs
