"""Kubernetes label selectors: parsing and matching with the syntax of `labels.Parse` (apimachinery).

Owns `--label-filter` and `--annotation-filter` (the latter is the same syntax matched against
annotations). Requirements are separated by `,` (commas inside `( )` belong to a value set):

    key            exists              !key           does not exist
    key=value      equals (also ==)    key!=value     not equal (or key absent)
    key in (a,b)   one of              key notin (a,b) none of (or key absent)
    key>3 / key<3  integer comparison (key present and numeric)

Keys are qualified names (`[prefix/]name`, name <= 63 chars, prefix a DNS subdomain <= 253 chars), values are
label values (<= 63 chars, may be empty). An empty selector matches everything. Syntax errors raise
`SelectorError` naming the selector and what is wrong. Usable on its own by informer indexers and by the
test API server (no dependency on the rest of the package).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_NAME_RE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_PREFIX_LABEL_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_INT_RE = re.compile(r"[-+]?[0-9]+\Z")

OPERATORS = ("exists", "!", "=", "==", "!=", "in", "notin", ">", "<")


class SelectorError(ValueError):
    """A selector that does not parse; the message names the selector and the problem."""


def _key_problem(key: str) -> str | None:
    if not key:
        return "empty key"
    prefix, sep, name = key.rpartition("/")
    if sep:
        if not prefix:
            return f"key {key!r}: prefix part must be non-empty"
        if len(prefix) > 253:
            return f"key {key!r}: prefix part must be no more than 253 characters"
        if not all(_PREFIX_LABEL_RE.match(lbl) for lbl in prefix.split(".")):
            return f"key {key!r}: prefix part must be a lowercase DNS subdomain"
    if not name:
        return f"key {key!r}: name part must be non-empty"
    if len(name) > 63:
        return f"key {key!r}: name part must be no more than 63 characters"
    if not _NAME_RE.match(name):
        return (
            f"key {key!r}: name part must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character"
        )
    return None


def _value_problem(value: str) -> str | None:
    if value == "":
        return None
    if len(value) > 63:
        return f"value {value!r}: must be no more than 63 characters"
    if not _NAME_RE.match(value):
        return (
            f"value {value!r}: must consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character"
        )
    return None


@dataclass(frozen=True)
class Requirement:
    """One requirement: `key <operator> values`."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op == "exists":
            return present
        if op == "!":
            return not present
        if op in ("=", "==", "in"):
            return present and labels[self.key] in self.values
        if op in ("!=", "notin"):
            return not present or labels[self.key] not in self.values
        # > and <: the label must be an integer.
        if not present or not _INT_RE.match(labels[self.key]):
            return False
        have = int(labels[self.key])
        want = int(self.values[0])
        return have > want if op == ">" else have < want

    def __str__(self) -> str:
        op = self.operator
        if op == "exists":
            return self.key
        if op == "!":
            return "!" + self.key
        if op in ("in", "notin"):
            return f"{self.key} {op} ({','.join(sorted(self.values))})"
        return f"{self.key}{op}{self.values[0]}"


@dataclass(frozen=True)
class Selector:
    """A conjunction of requirements; the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        data = labels or {}
        return all(r.matches(data) for r in self.requirements)

    def empty(self) -> bool:
        return not self.requirements

    def key_set(self) -> set[str]:
        return {r.key for r in self.requirements}

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


EVERYTHING = Selector()


# -- lexer ------------------------------------------------------------------------------------------------

_SPECIAL = "(),=!<>"


def _lex(text: str) -> list[tuple[str, str, int]]:
    """Tokens (kind, text, position): kinds id, op, (, ), ','."""
    out: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "(),":
            out.append((c, c, i))
            i += 1
        elif text.startswith("==", i) or text.startswith("!=", i):
            out.append(("op", text[i : i + 2], i))
            i += 2
        elif c in "=!<>":
            out.append(("op", c, i))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in _SPECIAL:
                j += 1
            word = text[i:j]
            out.append(("op" if word in ("in", "notin") else "id", word, i))
            i = j
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _lex(text)
        self.pos = 0

    def error(self, msg: str) -> SelectorError:
        return SelectorError(f"invalid selector {self.text!r}: {msg}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise self.error("unexpected end of selector")
        self.pos += 1
        return tok

    def parse(self) -> Selector:
        reqs: list[Requirement] = []
        if not self.tokens:
            return EVERYTHING
        while True:
            reqs.append(self.requirement())
            tok = self.peek()
            if tok is None:
                break
            if tok[0] != ",":
                raise self.error(f"found {tok[1]!r} at position {tok[2]}, expected ','")
            self.pos += 1
            if self.peek() is None:
                raise self.error("trailing ','")
        return Selector(tuple(reqs))

    def key(self) -> str:
        kind, text, at = self.take()
        if kind != "id":
            raise self.error(f"found {text!r} at position {at}, expected a key")
        problem = _key_problem(text)
        if problem:
            raise self.error(problem)
        return text

    def value(self) -> str:
        tok = self.peek()
        if tok is None or tok[0] in (",", ")"):
            return ""  # `k=` means the empty value
        kind, text, at = self.take()
        if kind != "id":
            raise self.error(f"found {text!r} at position {at}, expected a value")
        problem = _value_problem(text)
        if problem:
            raise self.error(problem)
        return text

    def requirement(self) -> Requirement:
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] == "!":
            self.pos += 1
            return Requirement(self.key(), "!")
        key = self.key()
        tok = self.peek()
        if tok is None or tok[0] == ",":
            return Requirement(key, "exists")
        kind, op, at = self.take()
        if kind != "op":
            raise self.error(f"found {op!r} at position {at}, expected an operator")
        if op in ("in", "notin"):
            return Requirement(key, op, self.value_set())
        if op == "!":
            raise self.error(f"found '!' at position {at} after key {key!r}, expected '!='")
        value = self.value()
        if op in (">", "<") and not _INT_RE.match(value):
            raise self.error(f"for '{op}' operator, the value must be an integer, got {value!r}")
        return Requirement(key, op, (value,))

    def value_set(self) -> tuple[str, ...]:
        kind, text, at = self.take()
        if kind != "(":
            raise self.error(f"found {text!r} at position {at}, expected '('")
        values: list[str] = []
        while True:
            values.append(self.value())
            kind, text, at = self.take()
            if kind == ")":
                break
            if kind != ",":
                raise self.error(f"found {text!r} at position {at}, expected ',' or ')'")
        if values == [""]:
            raise self.error("a value set must not be empty")
        return tuple(sorted(set(values)))


def parse_selector(text: str | None) -> Selector:
    """Parse a selector string; `""`/None -> the selector matching everything. Raises SelectorError."""
    if text is None:
        return EVERYTHING
    return _Parser(text).parse()


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """The equality selector of a `matchLabels`-style map (e.g. a Service's `spec.selector`).
    An empty or missing map gives the selector matching everything."""
    return Selector(tuple(Requirement(k, "=", (v,)) for k, v in sorted((labels or {}).items())))

