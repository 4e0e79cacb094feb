"""Values a template works on (JSON data: str, int, float, bool, None, list, dict, plus `Missing`) and how
Go's text/template and fmt see them: truth, type names, `%v` formatting, field lookup on objects."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from external_dns.sources.gotemplate.lexer import TemplateError

MAX_VALUE_BYTES = 64 * 1024  # any string a template builds, and the whole output


class Missing:
    """A map key that is not there (Go's invalid reflect.Value): false in if/and/or, an error when printed."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return "<no value>"


NO_METHOD = object()


class Methods:
    """Data that also answers Go methods: `method(name)` gives the result of the niladic method `name` (a
    Kubernetes object's getters, `.GetName`), or NO_METHOD. Go looks methods up before fields."""

    def method(self, name: str) -> Any:
        return NO_METHOD


class StrMap(dict[str, Any]):
    """A map with user keys (labels, annotations, selectors, data): looked up exactly, never by Go field
    name (struct fields are found case-insensitively, `.Spec.Type` -> spec["type"])."""


def truth(value: Any) -> bool:
    """Go's template truth: false, 0, nil, missing, and empty strings, lists and maps are false."""
    if value is None or isinstance(value, Missing):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | tuple | dict):
        return len(value) > 0
    return True


def type_name(value: Any) -> str:
    """The Go type of a value as fmt names it."""
    if isinstance(value, Missing):
        return "<no value>"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "[]interface {}"
    if isinstance(value, StrMap):
        return "map[string]string"
    if isinstance(value, Mapping):
        return "map[string]interface {}"
    return type(value).__name__


def go_float(value: float, verb: str = "v", prec: int = -1) -> str:
    """strconv.FormatFloat as fmt's %v (shortest 'g', exponent from 1e+06 and below 1e-04), %e, %f, %g use it."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if verb in ("f", "e") or (verb == "g" and prec >= 0):
        return f"{value:.{6 if prec < 0 else prec}{verb}}"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    parts = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in parts.digits)
    point = len(digits) + int(parts.exponent)  # digits before the decimal point
    exp = point - 1
    if exp < -4 or exp >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def sprint(value: Any) -> str:
    """fmt's %v of a value: strings as they are, lists `[a b]`, maps `map[k:v]` with sorted keys."""
    if isinstance(value, str):
        return value
    if isinstance(value, Missing):
        return "<no value>"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(sprint(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{sprint(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def printable(value: Any) -> str:
    """The text an action writes. Unlike Go (which prints `<no value>`, `[a b]`, `map[...]`), a missing
    key, nil, a list or a map is an error: such text is never a host name or a target."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return sprint(value)
    if isinstance(value, Missing):
        raise TemplateError(f"map has no entry for key {value.key!r}")
    if value is None:
        raise TemplateError("value is nil, not a string")
    kind = "list" if isinstance(value, list | tuple) else "map" if isinstance(value, Mapping) else "value"
    raise TemplateError(f"value is a {kind}, not a string")


def lookup(value: Any, name: str) -> Any:
    """`.name` on a value: a map key (a Go struct field name matches its JSON key case-insensitively, so
    `.Spec.ClusterIP` reads spec["clusterIP"]), or a method the value declares (`Methods`, looked up first as
    Go does); a missing key is `Missing`, anything else an error."""
    if isinstance(value, Methods):
        result = value.method(name)
        if result is not NO_METHOD:
            return result
    if isinstance(value, Mapping):
        if name in value:
            return value[name]
        if not isinstance(value, StrMap) and name[:1].isupper():
            folded = name.lower()
            for key in sorted(k for k in value if isinstance(k, str)):
                if key.lower() == folded:
                    return value[key]
        return Missing(name)
    if value is None or isinstance(value, Missing):
        raise TemplateError(f"nil pointer evaluating {type_name(value)}.{name}")
    raise TemplateError(f"can't evaluate field {name} in type {type_name(value)}")
