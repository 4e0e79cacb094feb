"""JSON objects decoded as Go's encoding/json decodes them into a struct: a key matches a field by its exact
name or, failing that, case-insensitively (Unicode simple folding), and a later key for the same field
overwrites an earlier one. A webhook provider written in another language may send `"Create"` or
`"DNSName"`; external-dns accepts them, so we do too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def struct_fields(data: Mapping[str, Any], fields: Iterable[str]) -> dict[str, Any]:
    """`data`'s values keyed by the struct field names they decode into (unknown keys dropped)."""
    exact = {f: f for f in fields}
    folded = {f.casefold(): f for f in exact}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        field = exact.get(key) or folded.get(key.casefold())
        if field is not None:
            out[field] = value
    return out
