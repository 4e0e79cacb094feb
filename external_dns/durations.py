"""Go durations (`time.ParseDuration` / `Duration.String`), the one parser for flags, annotations and
DNSRecord status fields. Values are float seconds; parsing works in integer nanoseconds as Go does."""

from __future__ import annotations

import re

_NS_PER_UNIT = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000,
                "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
# One `[digits][.digits]unit` element; Go needs a digit on at least one side of the dot.
_ELEMENT = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
# Plain seconds for flags (`90`, `1.5`): decimal only, so `nan` and `inf` stay invalid.
_PLAIN_SECONDS = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z")
_MAX_NS = (1 << 63) - 1


def parse_go_duration(text: str) -> float:
    """Seconds of a Go duration (`300ms`, `1h30m`, `.5s`, `-5s`, `0`); ValueError otherwise. A unit is
    required except for `0`, as in Go."""
    s, sign = text, 1
    if s[:1] in ("+", "-"):
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueError(f"invalid duration {text!r}")
    total, pos = 0, 0
    while pos < len(s):
        m = _ELEMENT.match(s, pos)
        assert m is not None  # every group may be empty, so the pattern always matches
        whole, frac, unit = m.group(1), m.group(2) or "", m.group(3)
        if not whole and not frac:
            raise ValueError(f"invalid duration {text!r}")
        if not unit:
            raise ValueError(f"missing unit in duration {text!r}")
        if unit not in _NS_PER_UNIT:
            raise ValueError(f"unknown unit {unit!r} in duration {text!r}")
        scale = _NS_PER_UNIT[unit]
        # Go keeps the fraction in integer arithmetic too: digits past nanosecond precision are dropped.
        total += int(whole or "0") * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
        if total > _MAX_NS:
            raise ValueError(f"invalid duration {text!r}")
        pos = m.end()
    return sign * total / 1e9


def parse_duration(text: str) -> float:
    """A flag duration: a Go duration (`1m30s`, `.5s`) or plain seconds (`90`, `1.5`), surrounding blanks
    ignored."""
    value = text.strip()
    if not value:
        raise ValueError("empty duration")
    if _PLAIN_SECONDS.match(value):
        return float(value)
    try:
        return parse_go_duration(value)
    except ValueError:
        raise ValueError(f"invalid duration {text!r} (use e.g. 30s, 1m, 1h30m, 500ms)") from None


def _fraction(value: int, digits: int) -> str:
    """`value / 10**digits` printed with trailing zeros (and a bare dot) removed."""
    whole, frac = divmod(value, 10 ** digits)
    text = f"{frac:0{digits}d}".rstrip("0")
    return f"{whole}.{text}" if text else str(whole)


def format_go_duration(seconds: float) -> str:
    """Go's `Duration.String`: `1h0m0s`, `14m0s`, `3.2s`, `500ms`, `1.5µs`, `0s`."""
    ns = round(seconds * 1e9)
    sign, ns = ("-" if ns < 0 else ""), abs(ns)
    if ns == 0:
        return "0s"
    if ns < 1_000:
        return f"{sign}{ns}ns"
    if ns < 1_000_000:
        return f"{sign}{_fraction(ns, 3)}µs"
    if ns < 1_000_000_000:
        return f"{sign}{_fraction(ns, 6)}ms"
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    secs = _fraction(rest, 9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}"
    if minutes:
        return f"{sign}{minutes}m{secs}"
    return sign + secs
