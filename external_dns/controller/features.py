"""Kubernetes Events for one pipeline, wired the same way for the long-running process and `--once`:
bad input (the in-cluster sources), name conflicts (a plan observer), refused plans (the safety gate) and
written records (the pipeline's write step, for the zone pipeline and the DNSRecord controller alike)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from external_dns.controller.controller import Controller
from external_dns.events import Recorder
from external_dns.events.emit_filter import EmitFilter
from external_dns.sources.derived import attach_recorder
from external_dns.sources.informer.hooks import ConflictReporter, informer_sources, status_after_sync

if TYPE_CHECKING:
    from external_dns.events.recorder import EventRecorder


def attach_events(controller: Controller, recorder: Recorder | None) -> None:
    """Give every part of `controller`'s pipeline the `recorder` (None: no events) and have the crd sources
    write DNSEndpoint status only after a successful sync. Call once per controller."""
    sources = list(informer_sources(controller.source))
    if sources:
        status_after_sync(controller)
    for source in sources:
        source.recorder = recorder
    attach_recorder(controller.source, recorder)  # record-type: ptr problems of the PTR wrapper
    controller.recorder = recorder
    gate = controller.safety_gate()
    if gate is not None:
        gate.recorder = recorder
    if recorder is not None and sources:
        controller.plan_observers.append(ConflictReporter(recorder, controller.managed_record_types,
                                                          controller.exclude_record_types))


def once_event_recorder(controller: Controller, dry_run: bool,
                        events_emit: Sequence[str] = ()) -> EventRecorder | EmitFilter | None:
    """`--once` with in-cluster sources (not in dry-run): a started recorder on their API client, limited to the
    record events of `--events-emit` (none when empty, as upstream). None otherwise (nothing to attach Events
    to, or nothing written)."""
    sources = list(informer_sources(controller.source))
    if not sources or dry_run:
        return None
    from external_dns.events.recorder import EventRecorder  # the Kubernetes client: only when needed

    recorder = EventRecorder(sources[0].factory.api_client)
    recorder.start()
    return EmitFilter(recorder, [e for e in events_emit if e])
