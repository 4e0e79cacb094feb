"""Process wiring of the in-cluster sources (a `controller.process.PROCESS_HOOKS` entry: `install`).

`install(cfg, process)` runs before the informers start. It finds every `InformerSource` in the
controller's source pipeline and gives it the process's Kubernetes event recorder (None in `--dry-run` or
without cluster access), so bad input becomes a Warning Event on the object. With a recorder it also adds a
`ConflictReporter` as a pre-apply check.

`ConflictReporter(recorder)(zone, changes, current, desired)`: when one name (and set identifier) is
claimed by endpoints of several objects (`resource` labels), the plan's conflict resolver keeps one; the
reporter finds the kept endpoint among the changes about to be written and sends one Warning Event
(`RecordConflict`) to each losing object, once per (name, set identifier, loser, winner) for the life of
the process. It never raises (it must not block a write).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import structlog

from external_dns.controller.record_events import Recorder, objects_of
from external_dns.endpoint.endpoint import RESOURCE_LABEL_KEY, Endpoint
from external_dns.plan.changes import Changes
from external_dns.sources.informer.base import InformerSource
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

RECORD_CONFLICT = "RecordConflict"
_MAX_REMEMBERED = 100_000


def informer_sources(source: Source) -> Iterator[InformerSource]:
    """The InformerSources inside a pipeline of wrappers (`source` / `sources` attributes)."""
    stack: list[Any] = [source]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, InformerSource):
            yield node
        stack.append(getattr(node, "source", None))
        stack.extend(getattr(node, "sources", None) or [])


class ConflictReporter:
    """Pre-apply check reporting the objects whose endpoints lost a name conflict (see the module docstring)."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self._lock = threading.Lock()
        self._reported: set[tuple[str, str, str, str]] = set()
        self.sent = 0

    def __call__(self, zone: str | None, changes: Changes, current: Sequence[Endpoint],
                 desired: Sequence[Endpoint]) -> None:
        try:
            self._check(changes, desired)
        except Exception:  # reporting must never refuse a write
            log.exception("conflict reporting failed", zone=zone)

    def _check(self, changes: Changes, desired: Sequence[Endpoint]) -> None:
        winners: dict[tuple[str, str], Endpoint] = {}
        for ep in [*changes.create, *changes.update_new]:
            winners[(ep.dns_name.rstrip(".").lower(), ep.set_identifier)] = ep
        if not winners:
            return
        claims: dict[tuple[str, str], list[Endpoint]] = {}
        for ep in desired:
            key = (ep.dns_name.rstrip(".").lower(), ep.set_identifier)
            if key in winners:
                claims.setdefault(key, []).append(ep)
        for key, candidates in claims.items():
            winner = winners[key]
            won_by = winner.labels.get(RESOURCE_LABEL_KEY, "")
            if not won_by:
                continue
            for ep in candidates:
                loser = ep.labels.get(RESOURCE_LABEL_KEY, "")
                if not loser or loser == won_by:
                    continue
                if ep.record_type == winner.record_type and ep.targets == winner.targets:
                    continue
                mark = (key[0], key[1], loser, won_by)
                with self._lock:
                    if mark in self._reported:
                        continue
                    if len(self._reported) >= _MAX_REMEMBERED:
                        self._reported.clear()
                    self._reported.add(mark)
                self._send(ep, winner, loser, won_by)

    def _send(self, ep: Endpoint, winner: Endpoint, loser: str, won_by: str) -> None:
        ident = f" [{ep.set_identifier}]" if ep.set_identifier else ""
        note = (f"{ep.dns_name}{ident} is also claimed by {won_by}, which keeps it "
                f"({winner.record_type} {','.join(winner.targets)}); this object's {ep.record_type} "
                f"{','.join(ep.targets)} is not published")
        log.warning(f"Conflict: {loser}: {note}", loser=loser, winner=won_by, dns_name=ep.dns_name)
        for obj in objects_of(ep):
            if not isinstance(obj, Mapping):
                continue
            try:
                self.recorder.event(obj, "Warning", RECORD_CONFLICT, note)
                self.sent += 1
            except ValueError as exc:
                log.debug("cannot record event", reason=RECORD_CONFLICT, error=str(exc))


def install(cfg: argparse.Namespace, process: Any) -> None:
    """PROCESS_HOOKS entry: recorder for the informer sources, conflict reporting (see the module docstring)."""
    del cfg
    sources = list(informer_sources(process.controller.source))
    if not sources:
        return
    recorder = getattr(process, "recorder", None)
    for source in sources:
        source.recorder = recorder
    if recorder is not None:
        process.controller.add_pre_apply_check(ConflictReporter(recorder))
