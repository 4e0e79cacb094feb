"""Re-export: the record events moved to the `external_dns.events` package."""

from external_dns.events import (
    NORMAL,
    RECORD_DELETED,
    RECORD_ERROR,
    RECORD_READY,
    RESOURCE_KINDS,
    WARNING,
    Recorder,
    describe,
    emit_applied_events,
    emit_error_events,
    emit_problem_events,
    object_from_resource_label,
    objects_of,
)

__all__ = ["NORMAL", "RECORD_DELETED", "RECORD_ERROR", "RECORD_READY", "RESOURCE_KINDS", "WARNING", "Recorder",
           "describe", "emit_applied_events", "emit_error_events", "emit_problem_events",
           "object_from_resource_label", "objects_of"]
