"""Problems found while turning an object into endpoints: bad annotations, bad spec fields, unreadable files.

A `Problem` names where it is (`<kind>/<namespace>/<name>`, or a file and document index), the field or
annotation, the offending value and what is wrong. Object functions return problems next to their endpoints
instead of logging, so a caller can log them (`log_problems`) and later emit Kubernetes Events (`obj` keeps
the object the problem is about).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import structlog

log = structlog.get_logger(__name__)

WARNING = "warning"
ERROR = "error"
MAX_VALUE = 1024  # characters of a value kept in a problem
MAX_MESSAGE = 2048


@dataclass(frozen=True)
class Problem:
    """One piece of bad input. `severity` is "warning" (the object still produced what it could) or "error"
    (the object, document or file was skipped)."""

    ref: str
    field: str
    value: str
    message: str
    severity: str = WARNING
    obj: Mapping[str, Any] | None = dc_field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A value may be megabytes long (a 40 MB annotation): keep messages and logs bounded.
        for name, limit in (("value", MAX_VALUE), ("message", MAX_MESSAGE), ("field", MAX_VALUE)):
            text = getattr(self, name)
            if isinstance(text, str) and len(text) > limit:
                object.__setattr__(self, name, text[:limit] + f"... ({len(text)} characters)")

    def __str__(self) -> str:
        where = f"{self.ref}: {self.field}" if self.field else self.ref
        if self.value:
            where += f"={self.value!r}"
        return f"{where}: {self.message}"


def object_ref(obj: Mapping[str, Any], kind: str = "") -> str:
    """`<kind>/<namespace>/<name>` with the kind lower-cased (`service/default/web`)."""
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    k = kind or str(obj.get("kind") or "object")
    return f"{k.lower()}/{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def log_problems(problems: Iterable[Problem], logger: Any = None) -> None:
    """One log line per problem (warning or error level), with the ref, field and value as fields."""
    out = logger if logger is not None else log
    for p in problems:
        emit = out.error if p.severity == ERROR else out.warning
        # only the fields a problem has: no empty `field= value=` on the line
        emit(str(p), **{k: v for k, v in (("ref", p.ref), ("field", p.field), ("value", p.value)) if v})
