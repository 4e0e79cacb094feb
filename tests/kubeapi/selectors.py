"""labelSelector and fieldSelector parsing and matching, with the API server's syntax and errors.

`parse_label_selector("a=b,c in (x,y),!d")` and `parse_field_selector("metadata.name=x", allowed)` return
matchers; syntax errors raise `ApiError` 400 BadRequest naming the offending selector.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.kubeapi.errors import ApiError, bad_request

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_KEY_RE = re.compile(rf"^({_PREFIX}/)?{_NAME}$")
_VALUE_RE = re.compile(rf"^({_NAME})?$")

Matcher = Callable[[dict[str, str]], bool]


def _lex(sel: str) -> list[tuple[str, str]]:
    """Tokens: ("id", text), ("op", one of = == != ! > < in notin), ("(",), (")",), (",",)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(sel)
    while i < n:
        c = sel[i]
        if c.isspace():
            i += 1
        elif c in "(),":
            out.append((c, c))
            i += 1
        elif sel.startswith("==", i) or sel.startswith("!=", i):
            out.append(("op", sel[i:i + 2]))
            i += 2
        elif c in "=!<>":
            out.append(("op", c))
            i += 1
        else:
            j = i
            while j < n and not sel[j].isspace() and sel[j] not in "(),=!<>":
                j += 1
            word = sel[i:j]
            out.append(("op", word) if word in ("in", "notin") else ("id", word))
            i = j
    return out


def _check_key(key: str, sel: str) -> None:
    if not _KEY_RE.match(key) or len(key.split("/")[-1]) > 63:
        raise bad_request(f'unable to parse requirement: values[0][{key}]: Invalid value: "{key}": name part '
                          f"must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                          f"with an alphanumeric character (in selector {sel!r})")


def _check_value(value: str, sel: str) -> None:
    if not _VALUE_RE.match(value) or len(value) > 63:
        raise bad_request(f'unable to parse requirement: values[0]: Invalid value: "{value}": a valid label '
                          f"must be an empty string or consist of alphanumeric characters, '-', '_' or '.' "
                          f"(in selector {sel!r})")


def parse_label_selector(sel: str) -> Matcher:
    """Parse a labelSelector into a function of an object's labels; 400 BadRequest on bad syntax."""
    toks = _lex(sel)
    reqs: list[Matcher] = []
    pos = 0

    def err(msg: str) -> ApiError:
        return bad_request(f"unable to parse requirement: {msg} in labelSelector {sel!r}")

    def take() -> tuple[str, str]:
        nonlocal pos
        if pos >= len(toks):
            raise err("unexpected end of selector")
        t = toks[pos]
        pos += 1
        return t

    while pos < len(toks):
        t = take()
        if t == ("op", "!"):
            k = take()
            if k[0] != "id":
                raise err(f"expected a key after '!', found {k[1]!r}")
            _check_key(k[1], sel)
            key = k[1]
            reqs.append(_absent(key))
        elif t[0] == "id":
            key = t[1]
            _check_key(key, sel)
            if pos >= len(toks) or toks[pos][0] == ",":
                reqs.append(_present(key))
            else:
                op = take()
                if op[0] != "op" or op[1] == "!":
                    raise err(f"unexpected {op[1]!r} after key {key!r}")
                if op[1] in ("in", "notin"):
                    if take()[0] != "(":
                        raise err(f"expected '(' after {op[1]}")
                    values: set[str] = set()
                    while True:
                        v = take()
                        if v[0] == ")":
                            break
                        if v[0] == ",":
                            continue
                        if v[0] != "id":
                            raise err(f"unexpected {v[1]!r} in value list")
                        _check_value(v[1], sel)
                        values.add(v[1])
                    # `tier in ()` parses (the real server: in matches nothing, notin everything), though
                    # apimachinery's NewRequirement refuses an empty set when a selector is built in Go
                    if op[1] == "in":
                        reqs.append(_in(key, frozenset(values)))
                    else:
                        reqs.append(_notin(key, frozenset(values)))
                else:
                    value = ""
                    if pos < len(toks) and toks[pos][0] == "id":
                        value = take()[1]
                    elif op[1] in (">", "<"):
                        raise err(f"expected an integer after {op[1]!r}")
                    if op[1] in ("=", "=="):
                        _check_value(value, sel)
                        reqs.append(_eq(key, value))
                    elif op[1] == "!=":
                        _check_value(value, sel)
                        reqs.append(_ne(key, value))
                    else:
                        try:
                            bound = int(value)
                        except ValueError:
                            raise err(f"for 'Gt', 'Lt' operators, the value must be an integer: {value!r}") from None
                        gt = op[1] == ">"
                        reqs.append(_cmp(key, bound, gt))
        else:
            raise err(f"unexpected {t[1]!r}")
        if pos < len(toks):
            if toks[pos][0] != ",":
                raise err(f"expected ',' found {toks[pos][1]!r}")
            pos += 1
            if pos >= len(toks):
                raise err("trailing ','")
    return lambda labels: all(r(labels) for r in reqs)


def _absent(key: str) -> Matcher:
    return lambda labels: key not in labels


def _present(key: str) -> Matcher:
    return lambda labels: key in labels


def _in(key: str, values: frozenset[str]) -> Matcher:
    return lambda labels: labels.get(key) in values


def _notin(key: str, values: frozenset[str]) -> Matcher:
    return lambda labels: key not in labels or labels[key] not in values


def _eq(key: str, value: str) -> Matcher:
    return lambda labels: labels.get(key) == value


def _ne(key: str, value: str) -> Matcher:
    return lambda labels: labels.get(key) != value


def _cmp(key: str, bound: int, gt: bool) -> Matcher:
    def match(labels: dict[str, str]) -> bool:
        value = labels.get(key)
        if value is None:
            return False
        try:
            v = int(value)
        except ValueError:
            return False
        return v > bound if gt else v < bound

    return match


FieldMatcher = Callable[[dict[str, Any]], bool]


def field_value(obj: dict[str, Any], path: str) -> str:
    """The string form of a dotted field of `obj` as field selectors see it ("" when absent)."""
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(sel: str, allowed: tuple[str, ...]) -> FieldMatcher:
    """Parse a fieldSelector (`f=v`, `f==v`, `f!=v`, comma = AND) over the `allowed` field labels."""
    reqs: list[tuple[str, bool, str]] = []
    for raw in sel.split(","):
        term = raw.strip()
        if not term:
            continue
        m = re.match(r"^([^=!]+)(==|=|!=)(.*)$", term)
        if not m:
            raise bad_request(f"invalid selector: '{sel}'; can't understand '{term}'")
        fld, op, value = m.group(1).strip(), m.group(2), m.group(3).strip()
        if fld not in allowed:
            raise bad_request(f'field label not supported: {fld}')
        reqs.append((fld, op != "!=", value))

    def match(obj: dict[str, Any]) -> bool:
        return all((field_value(obj, f) == v) == eq for f, eq, v in reqs)

    return match
