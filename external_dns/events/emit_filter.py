"""`--events-emit`: which record events reach Kubernetes.

As upstream, only the record events listed in `--events-emit` (RecordReady, RecordDeleted, RecordError) are
sent; an empty list sends none of them. Events of other reasons (e.g. UnsafePlan, RecordConflict) always pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from external_dns.events import RECORD_DELETED, RECORD_ERROR, RECORD_READY

RECORD_REASONS = frozenset({RECORD_READY, RECORD_DELETED, RECORD_ERROR})


class EmitFilter:
    """Wraps a recorder (anything with `event(obj, type, reason, note, ...)`); every other attribute
    (start, stop, flush, ...) is the wrapped recorder's."""

    def __init__(self, recorder: Any, emit: Iterable[str]) -> None:
        self.recorder = recorder
        self.emit = frozenset(emit)

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str, **kwargs: Any) -> bool:
        if reason in RECORD_REASONS and reason not in self.emit:
            return True  # not wanted: dropped on purpose, not a failure
        return bool(self.recorder.event(obj, type, reason, note, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.recorder, name)


def filter_events(recorder: Any, emit: Iterable[str] | None) -> Any:
    """`recorder` limited to the record reasons in `emit` (none of them when `emit` is empty)."""
    return EmitFilter(recorder, [e for e in (emit or []) if e])
