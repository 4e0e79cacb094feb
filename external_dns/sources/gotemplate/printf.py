"""Go's fmt.Sprintf for template values: verbs %v %s %q %d %x %X %o %b %c %t %f %e %g %%, flags
`-+# 0`, width and precision (each at most MAX_WIDTH), and Go's in-band errors (`%!d(string=x)`,
`%!s(MISSING)`, `%!(EXTRA string=x)`) instead of exceptions, as fmt does."""

from __future__ import annotations

import json
import re
from typing import Any

from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.gotemplate.values import Missing, go_float, sprint, type_name

MAX_WIDTH = 1024
_SPEC = re.compile(r"%([-+# 0]*)(\d+)?(?:\.(\d*))?(.)?", re.S)


def _bad(verb: str, value: Any) -> str:
    return f"%!{verb}({type_name(value)}={sprint(value)})"


def _quote(text: str) -> str:
    # strconv.Quote: printable Unicode kept, control characters escaped
    return json.dumps(text, ensure_ascii=False).replace("\\u007f", "\\x7f")


def _integer(verb: str, value: int, flags: str) -> str:
    base = {"d": "d", "x": "x", "X": "X", "o": "o", "b": "b"}[verb]
    body = format(abs(value), base)
    if "#" in flags and verb in "xXo":
        body = {"x": "0x", "X": "0X", "o": "0"}[verb] + body
    sign = "-" if value < 0 else "+" if "+" in flags else " " if " " in flags else ""
    return sign + body


def _one(verb: str, value: Any, flags: str, prec: int) -> str:
    """One formatted operand (before width padding)."""
    if isinstance(value, Missing):
        return _bad(verb, value)
    if verb in ("v", "s"):
        if verb == "s" and not isinstance(value, str | list | tuple | dict):
            return _bad(verb, value)
        text = sprint(value)
        return text[:prec] if prec >= 0 and isinstance(value, str) else text
    if verb == "q":
        return _quote(value) if isinstance(value, str) else _bad(verb, value)
    if verb == "t":
        return sprint(value) if isinstance(value, bool) else _bad(verb, value)
    if verb in "dxXob" and isinstance(value, int) and not isinstance(value, bool):
        return _integer(verb, value, flags)
    if verb in "xX" and isinstance(value, str):
        return value.encode().hex() if verb == "x" else value.encode().hex().upper()
    if verb == "c" and isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0x10FFFF:
        return chr(value)
    if verb in "feg" and isinstance(value, float | int) and not isinstance(value, bool):
        text = go_float(float(value), verb, prec)
        return ("+" + text) if "+" in flags and not text.startswith("-") else text
    return _bad(verb, value)


def _pad(text: str, flags: str, width: int) -> str:
    if width <= len(text):
        return text
    if "-" in flags:
        return text.ljust(width)
    if "0" in flags and text[:1] in "+- " and text[1:2].isdigit():
        return text[0] + text[1:].rjust(width - 1, "0")
    return text.rjust(width, "0" if "0" in flags and text[:1].isdigit() else " ")


def sprintf(fmt: str, args: list[Any]) -> str:
    out: list[str] = []
    used = 0
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width_text, prec_text, verb = m.group(1), m.group(2), m.group(3), m.group(4)
        if verb is None:
            out.append("%!(NOVERB)")
            continue
        if verb == "%":
            out.append("%")
            continue
        width = int(width_text) if width_text else 0
        prec = int(prec_text) if prec_text else (0 if prec_text == "" else -1)
        if width > MAX_WIDTH or prec > MAX_WIDTH:
            raise TemplateError(f"printf: width or precision larger than {MAX_WIDTH}")
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        out.append(_pad(_one(verb, args[used], flags, prec), flags, width))
        used += 1
    out.append(fmt[pos:])
    if used < len(args):
        extra = ", ".join(f"{type_name(a)}={sprint(a)}" for a in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)
