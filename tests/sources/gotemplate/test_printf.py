"""Go's fmt.Sprintf for template values (sources/gotemplate/printf.py): verbs, flags, width and precision, and Go's
in-band errors instead of exceptions."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.gotemplate.printf import sprintf


@pytest.mark.parametrize(
    ("fmt", "args", "expected"),
    [
        ("%s|%v|%d|%q", ["a", [1, "b"], 42, 'x"y'], 'a|[1 b]|42|"x\\"y"'),
        ("%5s|%-5s|%05d|%+d|%x|%X|%o|%b", ["ab", "ab", 42, 3, 255, "hi", 8, 5], "   ab|ab   |00042|+3|ff|6869|10|101"),
        ("%t|%c|%.2f|%e|%g|%v", [True, 65, 3.14159, 1e6, 0.5, 1e6], "true|A|3.14|1.000000e+06|0.5|1e+06"),
        ("%v|%v", [{"b": 1, "a": "x"}, None], "map[a:x b:1]|<nil>"),
        ("%d|%s", ["x"], "%!d(string=x)|%!s(MISSING)"),
        ("%s", ["a", 1], "a%!(EXTRA int=1)"),
        ("100%%|%.1s", ["abc"], "100%|a"),
    ],
)
def test_printf_follows_go_fmt(fmt: str, args: list[Any], expected: str) -> None:
    assert sprintf(fmt, args) == expected
