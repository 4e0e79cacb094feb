"""Kubernetes Events about DNS records, on the objects the records come from: one `Recorder` protocol that
sources and controllers send through (the Kubernetes sender is `events.recorder.EventRecorder`).

After a zone's changes were written: `RecordReady` (Normal) for every created or updated record and
`RecordDeleted` (Normal) for every deleted one; when writing failed: `RecordError` (Warning) for every
record of the batch, with the error. Invalid input found by the sources (their `problems` with an object)
gives `RecordError` too (`emit_problem_events`, called by the in-cluster sources once per object version).

The object an event is about: the endpoint's `ref_objects` (set by the sources), else the object named by
its `resource` label (`service/<ns>/<name>`, `ingress/<ns>/<name>`, `crd/<ns>/<name>`), which is how a
deleted record read back from the registry still finds its Service. Records with neither get no event.
Deduplication and rate limiting are the recorder's (events/recorder.py); `recorder` is anything with
`event(obj, type, reason, note) -> bool`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import structlog

from external_dns.endpoint.endpoint import RESOURCE_LABEL_KEY, Endpoint
from external_dns.plan.changes import Changes

log = structlog.get_logger(__name__)

NORMAL = "Normal"
WARNING = "Warning"
RECORD_READY = "RecordReady"
RECORD_DELETED = "RecordDeleted"
RECORD_ERROR = "RecordError"

# resource label prefix -> (apiVersion, kind)
RESOURCE_KINDS: dict[str, tuple[str, str]] = {
    "service": ("v1", "Service"),
    "ingress": ("networking.k8s.io/v1", "Ingress"),
    "crd": ("externaldns.k8s.io/v1alpha1", "DNSEndpoint"),
    "dnsendpoint": ("externaldns.k8s.io/v1alpha1", "DNSEndpoint"),
    "httproute": ("gateway.networking.k8s.io/v1", "HTTPRoute"),
    "grpcroute": ("gateway.networking.k8s.io/v1", "GRPCRoute"),
    "tlsroute": ("gateway.networking.k8s.io/v1alpha2", "TLSRoute"),
    "tcproute": ("gateway.networking.k8s.io/v1alpha2", "TCPRoute"),
    "udproute": ("gateway.networking.k8s.io/v1alpha2", "UDPRoute"),
}


class Recorder(Protocol):
    """Anything that records a Kubernetes Event about `obj`; ValueError when `obj` cannot be referenced."""

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool: ...


def object_from_resource_label(label: str) -> dict[str, Any] | None:
    """`service/default/web` -> a minimal Service object (None for an unknown or malformed label); the node
    source's `node/<name>` -> a Node."""
    parts = label.split("/")
    if len(parts) == 2 and parts[0] == "node" and parts[1]:
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": parts[1]}}
    if len(parts) != 3 or not parts[2]:
        return None
    found = RESOURCE_KINDS.get(parts[0].lower())
    if found is None:
        return None
    api_version, kind = found
    meta = {"name": parts[2]}
    if parts[1]:
        meta["namespace"] = parts[1]
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def objects_of(ep: Endpoint) -> list[Mapping[str, Any]]:
    """The Kubernetes objects `ep` comes from (see the module docstring)."""
    if ep.ref_objects:
        return list(ep.ref_objects)
    obj = object_from_resource_label(ep.labels.get(RESOURCE_LABEL_KEY, ""))
    return [obj] if obj is not None else []


def describe(ep: Endpoint) -> str:
    targets = ",".join(ep.targets)
    ident = f" [{ep.set_identifier}]" if ep.set_identifier else ""
    return f"{ep.dns_name} {ep.record_type}{ident} {targets}".rstrip()


def _emit(recorder: Recorder, endpoints: Iterable[Endpoint], type: str, reason: str, note: str) -> int:
    sent = 0
    for ep in endpoints:
        for obj in objects_of(ep):
            try:
                recorder.event(obj, type, reason, note.format(record=describe(ep)))
                sent += 1
            except ValueError as exc:  # an object without kind/name: nothing to attach the event to
                log.debug("cannot record event", reason=reason, record=describe(ep), error=str(exc))
    return sent


def emit_applied_events(recorder: Recorder, changes: Changes) -> int:
    """RecordReady for creates and updates, RecordDeleted for deletes. Returns the events queued."""
    sent = _emit(recorder, changes.create, NORMAL, RECORD_READY, "Record {record} created")
    sent += _emit(recorder, changes.update_new, NORMAL, RECORD_READY, "Record {record} updated")
    sent += _emit(recorder, changes.delete, NORMAL, RECORD_DELETED, "Record {record} deleted")
    return sent


def emit_error_events(recorder: Recorder, changes: Changes, error: BaseException | str) -> int:
    """RecordError for every record of a batch that could not be written."""
    text = str(error).replace("{", "{{").replace("}", "}}")
    eps = [*changes.create, *changes.update_new, *changes.delete]
    return _emit(recorder, eps, WARNING, RECORD_ERROR, "Failed to apply {record}: " + text)


def emit_problem_events(recorder: Recorder, problems: Iterable[Any]) -> int:
    """RecordError for every source problem that carries its object (`Problem.obj`)."""
    sent = 0
    for problem in problems:
        obj = getattr(problem, "obj", None)
        if not isinstance(obj, Mapping):
            continue
        try:
            recorder.event(obj, WARNING, RECORD_ERROR, f"Invalid endpoint: {problem}")
            sent += 1
        except ValueError as exc:
            log.debug("cannot record event", reason=RECORD_ERROR, error=str(exc))
    return sent

