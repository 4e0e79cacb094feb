"""The functions a template may call: every Go text/template builtin (and, or, not, len, index, slice, eq, ne,
lt, le, gt, ge, print, printf, println, html, js, urlquery, call) and external-dns's own (contains,
trimPrefix, trimSuffix, trim, toLower, replace, isIPv4, isIPv6, isSource, hasKey, fromJson), plus
toUpper. Each takes already evaluated arguments (`and`/`or` are evaluated lazily, `call` by the executor,
which knows its argument's name) and builds no string longer than MAX_VALUE_BYTES. Nothing here reaches
Python objects other than the data.
"""

from __future__ import annotations

import ipaddress
import json
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.gotemplate.printf import sprintf
from external_dns.sources.gotemplate.values import MAX_VALUE_BYTES, Missing, sprint, truth, type_name

MAX_JSON_BYTES = 256 * 1024  # the most an annotation can hold


class Context(Protocol):
    source: str


Func = Callable[[Context, list[Any]], Any]


def checked(text: str) -> str:
    if len(text) > MAX_VALUE_BYTES:
        raise TemplateError(f"a value grew beyond {MAX_VALUE_BYTES} bytes")
    return text


def _string(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Missing):
        raise TemplateError(f"{name}: invalid value (map has no entry for key {value.key!r}); expected string")
    raise TemplateError(f"{name}: wrong type for value; expected string; got {type_name(value)}")


def _str_func(name: str, fn: Callable[..., Any]) -> Func:
    def call(_ctx: Context, args: list[Any]) -> Any:
        result = fn(*[_string(name, a) for a in args])
        return checked(result) if isinstance(result, str) else result
    return call


# -- comparisons (Go's eq/ne/lt/le/gt/ge: basic kinds only; int and float never compare) ------------------

def _kind(value: Any) -> str:
    if value is None or isinstance(value, Missing):
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _eq(_ctx: Context, args: list[Any]) -> bool:
    first, k1 = args[0], _kind(args[0])
    if k1 == "other":
        raise TemplateError(f"eq: non-comparable type {type_name(first)}")
    for other in args[1:]:
        k2 = _kind(other)
        if k2 == "other":
            raise TemplateError(f"eq: non-comparable type {type_name(other)}")
        if k1 == "nil" or k2 == "nil":
            if k1 == k2:
                return True
            continue  # comparing with a missing value is false, as Go
        if k1 != k2:
            raise TemplateError(f"eq: incompatible types for comparison: {type_name(first)} and "
                                f"{type_name(other)}")
        if first == other:
            return True
    return False


def _ordered(name: str, test: Callable[[Any, Any], bool]) -> Func:
    def call(_ctx: Context, args: list[Any]) -> bool:
        a, b = args
        ka, kb = _kind(a), _kind(b)
        if ka not in ("int", "float", "string") or kb not in ("int", "float", "string"):
            raise TemplateError(f"{name}: invalid type for comparison")
        if ka != kb:
            raise TemplateError(f"{name}: incompatible types for comparison")
        return test(a, b)
    return call


# -- data access ------------------------------------------------------------------------------------------

def _index(_ctx: Context, args: list[Any]) -> Any:
    item = args[0]
    for key in args[1:]:
        if isinstance(item, Mapping):
            if not isinstance(key, str):
                raise TemplateError(f"index: value has type {type_name(key)}; should be string")
            # a missing key gives the map's zero value: "" (Go's map[string]string)
            item = item.get(key, "")
        elif isinstance(item, list | tuple | str):
            if not isinstance(key, int) or isinstance(key, bool):
                raise TemplateError(f"index: cannot index slice/array with type {type_name(key)}")
            if not 0 <= key < len(item):
                raise TemplateError(f"index: index out of range: {key}")
            item = item[key] if not isinstance(item, str) else item.encode()[key]
        elif item is None or isinstance(item, Missing):
            raise TemplateError("index of untyped nil")
        else:
            raise TemplateError(f"can't index item of type {type_name(item)}")
    return item


def _slice_index(value: Any, cap: int) -> int:
    """Go's indexArg: an integer in 0..cap."""
    if value is None or isinstance(value, Missing):
        raise TemplateError("cannot index slice/array with nil")
    if not isinstance(value, int) or isinstance(value, bool):
        raise TemplateError(f"cannot index slice/array with type {type_name(value)}")
    if not 0 <= value <= cap:
        raise TemplateError(f"index out of range: {value}")
    return value


def _slice(_ctx: Context, args: list[Any]) -> Any:
    """Go's `slice x i j k`: x[i:j:k] of a string (by bytes, as Go's strings; never 3 indexes) or a list."""
    item, indexes = args[0], args[1:]
    if item is None or isinstance(item, Missing):
        raise TemplateError("slice of untyped nil")
    if len(indexes) > 3:
        raise TemplateError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise TemplateError("cannot 3-index slice a string")
        data: Any = item.encode()
    elif isinstance(item, list | tuple):
        data = item
    else:
        raise TemplateError(f"can't slice item of type {type_name(item)}")
    idx = [0, len(data), len(data)]
    for i, index in enumerate(indexes):
        idx[i] = _slice_index(index, len(data))
    if idx[0] > idx[1]:
        raise TemplateError(f"invalid slice index: {idx[0]} > {idx[1]}")
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise TemplateError(f"invalid slice index: {idx[1]} > {idx[2]}")
    part = data[idx[0]:idx[1]]
    # a cut inside a multi-byte character: Go keeps the bytes, a name or target can only show U+FFFD there
    return part.decode("utf-8", "replace") if isinstance(item, str) else list(part)


def _eval_args(args: list[Any]) -> str:
    """Go's evalArgs: one string as it is, else fmt.Sprint of the arguments."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return _sprint_args(args)


_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_JS = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


def _html(_ctx: Context, args: list[Any]) -> str:
    """Go's HTMLEscaper: `"'&<>` as character references, NUL as U+FFFD."""
    return checked("".join(_HTML.get(c, c) for c in _eval_args(args)))


def _js_char(c: str) -> str:
    if c in _JS:
        return _JS[c]
    if c < " ":
        return f"\\u00{ord(c):02X}"
    if c >= "\x80" and not c.isprintable():  # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols
        return f"\\u{ord(c):04X}"
    return c


def _js(_ctx: Context, args: list[Any]) -> str:
    """Go's JSEscaper: backslash, quote and apostrophe backslash-escaped; `<>&=`, control characters and other
    non-printable characters as `\\uXXXX`."""
    return checked("".join(_js_char(c) for c in _eval_args(args)))


def _urlquery(_ctx: Context, args: list[Any]) -> str:
    """Go's URLQueryEscaper (url.QueryEscape): space as `+`, all but letters, digits and `-_.~` as %XX."""
    return checked(urllib.parse.quote_plus(_eval_args(args), safe=""))


def _len(_ctx: Context, args: list[Any]) -> int:
    value = args[0]
    if isinstance(value, str):
        return len(value.encode())  # Go counts bytes
    if isinstance(value, list | tuple | Mapping):
        return len(value)
    raise TemplateError(f"len of type {type_name(value)}")


def _has_key(_ctx: Context, args: list[Any]) -> bool:
    mapping, key = args
    if not isinstance(mapping, Mapping):
        raise TemplateError(f"hasKey: wrong type for value; expected map; got {type_name(mapping)}")
    return _string("hasKey", key) in mapping


def _from_json(_ctx: Context, args: list[Any]) -> Any:
    text = _string("fromJson", args[0])
    if len(text) > MAX_JSON_BYTES:
        raise TemplateError(f"fromJson: input larger than {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None  # as external-dns: not JSON gives nil


def _is_ip(version: int) -> Func:
    def call(_ctx: Context, args: list[Any]) -> bool:
        text = _string("isIPv4" if version == 4 else "isIPv6", args[0])
        try:
            return ipaddress.ip_address(text).version == version
        except ValueError:
            return False
    return call


def _print(_ctx: Context, args: list[Any]) -> str:
    return _sprint_args(args)


def _sprint_args(args: list[Any]) -> str:
    # fmt.Sprint: a space between operands when neither is a string
    out: list[str] = []
    for i, a in enumerate(args):
        if i and not isinstance(a, str) and not isinstance(args[i - 1], str):
            out.append(" ")
        out.append(sprint(a))
    return checked("".join(out))


def _println(_ctx: Context, args: list[Any]) -> str:
    return checked(" ".join(sprint(a) for a in args) + "\n")


def _printf(_ctx: Context, args: list[Any]) -> str:
    return checked(sprintf(_string("printf", args[0]), args[1:]))


def _replace(old: str, new: str, target: str) -> str:
    if old == "" and len(new) * (len(target) + 1) > MAX_VALUE_BYTES:
        raise TemplateError(f"a value grew beyond {MAX_VALUE_BYTES} bytes")
    if old and target.count(old) * max(len(new) - len(old), 0) > MAX_VALUE_BYTES:
        raise TemplateError(f"a value grew beyond {MAX_VALUE_BYTES} bytes")
    return target.replace(old, new)


def _trim_prefix(s: str, prefix: str) -> str:
    return s[len(prefix):] if prefix and s.startswith(prefix) else s


def _trim_suffix(s: str, suffix: str) -> str:
    return s[: -len(suffix)] if suffix and s.endswith(suffix) else s


def arity_problem(name: str, got: int) -> str | None:
    """Go's complaint about calling function `name` with `got` arguments (None when the count fits). The one
    arity check: the parser applies it to every call it can see (a command, or a function given as an
    argument, which Go calls with none), and the executor again right before any call, so no function
    body ever reads an argument that is not there."""
    low, high = FUNCS[name][1], FUNCS[name][2]
    if got < low or (high is not None and got > high):
        want = str(low) if high == low else f"at least {low}" if high is None else f"{low} to {high}"
        return f"wrong number of args for {name}: want {want} got {got}"
    return None


# name -> (implementation, least arguments, most arguments or None): Go's signatures (a variadic one has
# no most), except eq, which Go lets through with one argument and then fails ("missing argument for
# comparison"): refused here when parsed. A body may index args below the least count without checking.
FUNCS: dict[str, tuple[Func, int, int | None]] = {
    "and": (lambda _c, a: a[-1], 1, None),  # evaluated lazily by the executor
    "or": (lambda _c, a: a[-1], 1, None),
    "not": (lambda _c, a: not truth(a[0]), 1, 1),
    "len": (_len, 1, 1),
    "index": (_index, 1, None),
    "slice": (_slice, 1, None),
    "html": (_html, 0, None),
    "js": (_js, 0, None),
    "urlquery": (_urlquery, 0, None),
    "call": (lambda _c, a: a[0], 1, None),  # evaluated by the executor (it names the function argument)
    "eq": (_eq, 2, None),
    "ne": (lambda c, a: not _eq(c, a), 2, 2),
    "lt": (_ordered("lt", lambda a, b: a < b), 2, 2),
    "le": (_ordered("le", lambda a, b: a <= b), 2, 2),
    "gt": (_ordered("gt", lambda a, b: a > b), 2, 2),
    "ge": (_ordered("ge", lambda a, b: a >= b), 2, 2),
    "print": (_print, 0, None),
    "printf": (_printf, 1, None),
    "println": (_println, 0, None),
    "contains": (_str_func("contains", lambda s, sub: sub in s), 2, 2),
    "trimPrefix": (_str_func("trimPrefix", _trim_prefix), 2, 2),
    "trimSuffix": (_str_func("trimSuffix", _trim_suffix), 2, 2),
    "trim": (_str_func("trim", str.strip), 1, 1),
    "toLower": (_str_func("toLower", str.lower), 1, 1),
    "toUpper": (_str_func("toUpper", str.upper), 1, 1),
    "replace": (_str_func("replace", _replace), 3, 3),
    "isIPv4": (_is_ip(4), 1, 1),
    "isIPv6": (_is_ip(6), 1, 1),
    "isSource": (lambda c, a: bool(c.source) and _string("isSource", a[0]) == c.source, 1, 1),
    "hasKey": (_has_key, 2, 2),
    "fromJson": (_from_json, 1, 1),
}
LAZY = frozenset({"and", "or"})
CALL = "call"
