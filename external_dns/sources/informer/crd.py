"""`--source=crd` on the shared informers: DNSEndpoints (externaldns.k8s.io/v1alpha1) -> endpoints through
`objects.dnsendpoint_endpoints`, and `status.observedGeneration` written back once the generation reached
DNS. The label filter goes to the server, as external-dns; the annotation filter and controller
annotation use the `withSelectors` index. By-name reads (`endpoints_for_names`, `take_dirty_names`) through a
host-name index of the DNSEndpoints (sources/informer/by_name.py); the objects a by-name read computed are
noted for their status write as a full read notes them."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.informers import DNSENDPOINTS, SharedInformerFactory
from external_dns.informers.api import call_json
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.by_name import NameIndex
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admits_dnsendpoint,
    admitted_objects,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import dnsendpoint_transformer
from external_dns.sources.objects.common import ObjectEndpoints
from external_dns.sources.objects.dnsendpoint import (
    dnsendpoint_endpoints,
    dnsendpoint_needs_status_update,
    merge_dnsendpoint_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, Problem, object_ref

log = structlog.get_logger(__name__)

STATUS_TIMEOUT = (5.0, 10.0)


class DNSEndpointInformerSource(InformerSource):
    name = "crd"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *, update_status: bool = True,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_dnsendpoint(options)
        self.update_status = update_status
        keep = annotation_keys_read(options)
        self.dnsendpoints = self._informer(DNSENDPOINTS, dnsendpoint_transformer(keep),
                                           {WITH_SELECTORS: selector_index(self.admit)},
                                           label_selector=options.label_filter or None, events=self.admit)
        self._status_lock = threading.Lock()
        self._status_written: set[tuple[str, Any]] = set()
        self.status_updates = 0
        self.status_after_sync = False
        self._pending_lock = threading.Lock()
        # (ns/name/uid, generation) -> (the object, its DNS names no successful sync has covered yet)
        self._pending: dict[tuple[str, Any], tuple[dict[str, Any], set[str]]] = {}
        self._live: set[tuple[str, Any]] = set()  # the objects the last endpoints() call saw
        self._own_events.append(self.dnsendpoints)  # the index's listener calls the handlers
        self.by_name = NameIndex(self.dnsendpoints, self.admit, self._one, merge_dnsendpoint_endpoints, self.name,
                                 self.sync_timeout)

    def _one(self, obj: Mapping[str, Any]) -> ObjectEndpoints:
        return dnsendpoint_endpoints(obj, self.options)

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.by_name.handlers.append(handler)
        super().add_event_handler(handler)

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        checks = [AccessCheck(DNSENDPOINTS, verb, ns) for verb in ("list", "watch")]
        if self.update_status:
            checks.append(AccessCheck(DNSENDPOINTS, "update", ns, "status"))
        return checks

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        building = self.by_name.start_listing()
        complete = False
        try:
            endpoints, problems, done, names = self._compute(admitted_objects(self.dnsendpoints), building)
            complete = True
        finally:
            if building:
                self.by_name.end_listing(complete)  # a failed listing leaves no half-built index
        if self.update_status:
            if self.status_after_sync:
                self._note_pending(done, names)
            else:
                self.write_status(done)
        return merge_dnsendpoint_endpoints(endpoints), problems

    def _compute(self, objs: Sequence[dict[str, Any]], listing: bool = False) -> tuple[
            list[Endpoint], list[Problem], list[dict[str, Any]], list[set[str]]]:
        """The objects' endpoints and problems, the objects read whole (no error) and their names."""
        endpoints: list[Endpoint] = []
        problems: list[Problem] = []
        done: list[dict[str, Any]] = []
        names: list[set[str]] = []
        for obj in objs:
            eps, probs = self._one(obj)
            if listing:
                self.by_name.listed(obj, eps)
            endpoints.extend(eps)
            problems.extend(probs)
            if not any(p.severity == ERROR for p in probs):
                done.append(obj)
                names.append({ep.dns_name for ep in eps})
        return endpoints, problems, done, names

    # -- by name ------------------------------------------------------------------------------------------------
    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        if not self.by_name.built:
            self.endpoints()  # the first full read builds the index
        wanted = {name_key(n) for n in names}
        objs = [dict(o) for o in self.by_name.objects_for_names(wanted)]
        endpoints, problems, done, obj_names = self._compute(objs)
        self.report(problems, partial=True)
        if self.update_status:
            if self.status_after_sync:
                self._note_pending(done, obj_names, partial=True)
            else:
                self.write_status(done, prune=False)
        return [ep for ep in merge_dnsendpoint_endpoints(endpoints) if name_key(ep.dns_name) in wanted]

    def take_dirty_names(self) -> set[str] | None:
        if not self.by_name.built:
            self.endpoints()
            return None  # no baseline yet: the caller compares everything once
        return self.by_name.take_dirty()

    # -- status after a successful sync -----------------------------------------------------------------------
    def defer_status_until_synced(self) -> None:
        """Write status only from `synced` (after a successful sync), not from `endpoints()`: a sync refused
        by the safety check or failed at the provider then writes nothing, so `observedGeneration` tells that
        the generation reached DNS. Wired for the long-running controller and `--once` alike."""
        self.status_after_sync = True

    @staticmethod
    def _status_key(obj: dict[str, Any]) -> tuple[str, Any]:
        meta = obj.get("metadata") or {}
        return f"{meta.get('namespace')}/{meta.get('name')}/{meta.get('uid')}", meta.get("generation")

    def _note_pending(self, objs: list[dict[str, Any]], names: list[set[str]], partial: bool = False) -> None:
        """Remember the objects whose status waits for a successful sync of their names: all live objects
        (a full read), or (`partial`, a by-name read) some of them, the others kept."""
        with self._pending_lock:
            if partial:
                keys = [self._status_key(obj) for obj in objs]
                self._live |= set(keys)
                held = {k[0] for k in keys}  # an older generation of these objects is superseded
                kept = {k: v for k, v in self._pending.items() if k[0] not in held}
            else:
                self._live = {self._status_key(obj) for obj in objs}
                kept = {}
            live: dict[tuple[str, Any], tuple[dict[str, Any], set[str]]] = kept
            for obj, obj_names in zip(objs, names, strict=True):
                if not dnsendpoint_needs_status_update(obj):
                    continue
                key = self._status_key(obj)
                # the same generation keeps what earlier zone syncs already covered (with the newest object,
                # whose resourceVersion the status write needs)
                before = self._pending.get(key)
                live[key] = (obj, before[1] if before is not None else set(obj_names))
            self._pending = live

    def synced(self, zone: str | None, covered: Callable[[str], bool]) -> None:
        """A `Controller.sync_observers` entry: a sync of `zone` succeeded and covered the names for which
        `covered(name)` is True; objects with nothing left uncovered get their status written."""
        del zone
        if not (self.update_status and self.status_after_sync):
            return
        with self._pending_lock:
            ready: list[dict[str, Any]] = []
            for obj, remaining in self._pending.values():
                remaining.difference_update({n for n in remaining if covered(n)})
                if not remaining:
                    ready.append(obj)
        if ready:
            self.write_status(ready, prune=False)

    # -- status -----------------------------------------------------------------------------------------------
    def write_status(self, objs: list[dict[str, Any]], *, prune: bool = True) -> None:
        """Set status.observedGeneration on the objects that lag (one writer at a time; others skip), through
        the status subresource (RBAC `update` on `dnsendpoints/status`), once per generation: a 409 is
        retried next time, a 404 ignored, anything else a warning naming the object. Objects rejected as a
        whole keep their status. With `prune`, `objs` are all live objects and the memory of objects not
        among them is dropped."""
        acquired = self._status_lock.acquire(blocking=False) if prune else self._status_lock.acquire(timeout=30.0)
        if not acquired:
            return
        try:
            live: set[tuple[str, Any]] = set()
            for obj in objs:
                meta = obj.get("metadata") or {}
                key = (f"{meta.get('namespace')}/{meta.get('name')}/{meta.get('uid')}", meta.get("generation"))
                live.add(key)
                if key in self._status_written or not dnsendpoint_needs_status_update(obj):
                    continue
                if self._put_status(obj):
                    self._status_written.add(key)
                    with self._pending_lock:
                        self._pending.pop(key, None)
            if prune:
                self._status_written &= live
            else:  # forget objects (and generations) the last endpoints() call no longer saw
                with self._pending_lock:
                    self._status_written &= self._live | live
        finally:
            self._status_lock.release()

    def _put_status(self, obj: dict[str, Any]) -> bool:
        from kubernetes.client.exceptions import ApiException

        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace") or "default", meta.get("name")
        body = {"apiVersion": DNSENDPOINTS.api_version, "kind": DNSENDPOINTS.kind,
                "metadata": {"name": name, "namespace": ns, "resourceVersion": meta.get("resourceVersion")},
                "status": {**copy.deepcopy(obj.get("status") or {}), "observedGeneration": meta.get("generation")}}
        path = f"{DNSENDPOINTS.path(ns)}/{name}/status"
        try:
            call_json(self.factory.api_client, "PUT", path, body, timeout=STATUS_TIMEOUT)
        except ApiException as exc:
            if exc.status == 409:
                log.debug("DNSEndpoint changed while updating its status; retrying on the next sync",
                          ref=object_ref(obj, "dnsendpoint"))
            elif exc.status == 404:
                return True
            elif exc.status == 403:
                log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}: forbidden; the "
                            "ClusterRole needs {apiGroups: [\"externaldns.k8s.io\"], resources: "
                            "[\"dnsendpoints/status\"], verbs: [\"update\"]}", error=str(exc.body)[:300])
            else:
                log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}",
                            status=exc.status, error=str(exc.body)[:300])
            return False
        except Exception as exc:
            log.warning(f"Could not update status of {object_ref(obj, 'dnsendpoint')}", error=repr(exc))
            return False
        self.status_updates += 1
        return True
