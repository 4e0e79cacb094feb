"""What the in-cluster sources add to a pipeline: finding them inside wrappers (`informer_sources`), the
`ConflictReporter` plan observer (a Warning `RecordConflict` Event to each object that lost a name), and
DNSEndpoint status written only after a successful sync (`status_after_sync`). controller/features.py wires
them in."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import structlog

from external_dns.endpoint.endpoint import (
    DEFAULT_MANAGED_RECORD_TYPES,
    RECORD_TYPE_CNAME,
    RESOURCE_LABEL_KEY,
    Endpoint,
)
from external_dns.endpoint.names import name_key
from external_dns.events import Recorder, objects_of
from external_dns.plan.changes import Changes
from external_dns.plan.conflict import PerResource
from external_dns.sources.source import Source, pipeline_nodes

if TYPE_CHECKING:  # imported at run time only by the builders of in-cluster sources (it loads the informers)
    from external_dns.sources.informer.base import InformerSource

log = structlog.get_logger(__name__)

RECORD_CONFLICT = "RecordConflict"
_MAX_REMEMBERED = 100_000


def informer_sources(source: Source) -> Iterator[InformerSource]:
    """The InformerSources inside a pipeline of wrappers (`source` / `sources` attributes)."""
    base = sys.modules.get("external_dns.sources.informer.base")
    if base is None:  # no in-cluster source was built in this process (a --once manifest run): none to find
        return
    informer_source: type[InformerSource] = base.InformerSource
    yield from (node for node in pipeline_nodes(source) if isinstance(node, informer_source))


class ConflictReporter:
    """Plan observer: when one name (and set identifier) of a managed type is claimed by endpoints of several
    objects, resolve the claim as the plan does (`PerResource`: the holder keeps it, else the smallest
    targets win; CNAMEs lose to other types) and send one Warning `RecordConflict` Event to each losing
    object whose endpoint differs from the winner's, once per (name, set identifier, loser, winner) for the
    life of the process. Never raises."""

    def __init__(self, recorder: Recorder, managed_record_types: Sequence[str] = DEFAULT_MANAGED_RECORD_TYPES,
                 exclude_record_types: Sequence[str] = ()) -> None:
        self.recorder = recorder
        self.managed = frozenset(managed_record_types) - frozenset(exclude_record_types)
        self.resolver = PerResource()
        self._lock = threading.Lock()
        self._reported: set[tuple[str, str, str, str]] = set()
        self.sent = 0

    def __call__(self, zone: str | None, changes: Changes, current: Sequence[Endpoint],
                 desired: Sequence[Endpoint]) -> None:
        try:
            self._check(current, desired)
        except Exception:  # reporting must never break a sync
            log.exception("conflict reporting failed", zone=zone)

    def _check(self, current: Sequence[Endpoint], desired: Sequence[Endpoint]) -> None:
        rows: dict[tuple[str, str], dict[str, list[Endpoint]]] = {}
        for ep in desired:
            if ep.record_type in self.managed and ep.labels.get(RESOURCE_LABEL_KEY):
                key = (name_key(ep.dns_name), ep.set_identifier)
                rows.setdefault(key, {}).setdefault(ep.record_type, []).append(ep)
        contested = {key: by_type for key, by_type in rows.items()
                     if len({e.labels[RESOURCE_LABEL_KEY] for eps in by_type.values() for e in eps}) > 1}
        if not contested:
            return
        held: dict[tuple[str, str, str], Endpoint] = {}
        for ep in current:
            key = (name_key(ep.dns_name), ep.set_identifier)
            if key in contested:
                held[(*key, ep.record_type)] = ep
        for key, by_type in contested.items():
            winners: dict[str, Endpoint] = {}
            for rtype, candidates in by_type.items():
                now = held.get((*key, rtype))
                winners[rtype] = (self.resolver.resolve_update(now, candidates) if now is not None
                                  else self.resolver.resolve_create(candidates))
            mixed = RECORD_TYPE_CNAME in by_type and len(by_type) > 1
            if mixed:  # the plan discards CNAME candidates next to other types
                winners.pop(RECORD_TYPE_CNAME)
                other = winners[sorted(winners)[0]]
                for ep in by_type[RECORD_TYPE_CNAME]:
                    self._maybe_report(key, ep, other)
            for rtype, winner in winners.items():
                for ep in by_type[rtype]:
                    self._maybe_report(key, ep, winner)

    def _maybe_report(self, key: tuple[str, str], ep: Endpoint, winner: Endpoint) -> None:
        loser, won_by = ep.labels.get(RESOURCE_LABEL_KEY, ""), winner.labels.get(RESOURCE_LABEL_KEY, "")
        if not loser or not won_by or loser == won_by:
            return
        if ep.record_type == winner.record_type and ep.targets == winner.targets:
            return  # they agree: nothing lost
        mark = (key[0], key[1], loser, won_by)
        with self._lock:
            if mark in self._reported:
                return
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


class SyncedPipeline(Protocol):
    """What `status_after_sync` uses of a controller (controller/controller.Controller): its source and the
    observers it calls after each successful sync."""

    source: Source
    sync_observers: list[Callable[[str | None, Callable[[str], bool]], None]]


def status_after_sync(controller: SyncedPipeline) -> int:
    """Wire the crd sources of `controller`'s pipeline to its `sync_observers` (once per source); returns
    how many were wired."""
    from external_dns.sources.informer.crd import DNSEndpointInformerSource

    wired = 0
    for source in informer_sources(controller.source):
        if isinstance(source, DNSEndpointInformerSource) and not source.status_after_sync:
            source.defer_status_until_synced()
            controller.sync_observers.append(source.synced)
            wired += 1
    return wired
