"""`--source=service` on the shared informers: `ServiceInformerSource(factory, options)`.

Informers (`--service-type-filter` decides which exist at all): Services always; Pods, EndpointSlices and
Nodes only when ClusterIP (headless Services) or NodePort (node addresses, `externalTrafficPolicy: Local`)
is in scope, so `--service-type-filter=LoadBalancer` caches Services only. Services are admitted by the
`withSelectors` index (namespace, label/annotation filters, type filter, controller annotation);
EndpointSlices are indexed by `<namespace>/<kubernetes.io/service-name>`, Pods by namespace. Every object
is slimmed (sources/informer/slim.py). The Service -> endpoints logic is `objects.service_endpoints`,
unchanged; the merge across Services is `merge_service_endpoints`. Events: Service changes, and with
`listen_endpoint_events` (`--listen-endpoint-events`) EndpointSlice changes too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import structlog

from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.informers import (
    ENDPOINTSLICES,
    NAMESPACE_INDEX,
    NODES,
    PODS,
    SERVICES,
    FilteringResourceEventHandler,
    ResourceEventHandlerFuncs,
    SharedInformerFactory,
)
from external_dns.sources.compat import legacy_annotation_keys
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource, _differs
from external_dns.sources.informer.by_name import wait_delivered
from external_dns.sources.informer.filters import (
    BY_SERVICE_NAME,
    WITH_SELECTORS,
    admits_service,
    admitted_objects,
    selector_index,
    service_name_index,
)
from external_dns.sources.informer.slim import (
    NEED_ANNOTATIONS,
    NEED_LABELS,
    annotation_keeper,
    endpointslice_transformer,
    generic_transformer,
    node_transformer_for,
    pod_transformer_for,
    service_transformer,
)
from external_dns.sources.objects.service import merge_service_endpoints, service_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem
from external_dns.sources.rbac import service_informer_resources

log = structlog.get_logger(__name__)


def annotation_keys_read(options: SourceOptions, extra: tuple[str, ...] = ()) -> Any:
    """Which annotations the cache keeps: all when a template is set (it may read any of them: `.Object`,
    `range` over `.Metadata`, ...), else the prefix, the annotation filter's keys, the legacy annotations of
    --compatibility and `extra`."""
    if options.any_template:
        return None
    return annotation_keeper(options.annotation_prefix, set(options.annotation_selector.key_set()) | set(extra)
                             | set(legacy_annotation_keys(options.compatibility)))


class ServiceInformerSource(InformerSource):
    name = "service"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *,
                 listen_endpoint_events: bool = False, sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_service(options)
        keep = annotation_keys_read(options)
        transformer = generic_transformer(keep) if options.any_template else service_transformer(
            keep, keep_labels=not options.label_selector.empty() or options.compatibility == "molecule")
        self.services = self._informer(SERVICES, transformer, {WITH_SELECTORS: selector_index(self.admit)},
                                       events=self.admit)
        watched = service_informer_resources(options.service_type_filter)
        pod_keep = annotation_keys_read(options)  # the same keeper as the node and pod sources sharing them
        self.pods = self.slices = self.nodes = None
        if "pods" in watched:
            self.pods = self._shared_informer(PODS, lambda needs: pod_transformer_for(needs, pod_keep),
                                              (NEED_LABELS, NEED_ANNOTATIONS))
        if "endpointslices" in watched:
            self.slices = self._informer(ENDPOINTSLICES, endpointslice_transformer,
                                         {BY_SERVICE_NAME: service_name_index}, events=listen_endpoint_events)
        if "nodes" in watched:  # kOps compatibility picks nodes by their role label
            self.nodes = self._shared_informer(NODES, lambda needs: node_transformer_for(needs, pod_keep),
                                               (NEED_LABELS,) if options.compatibility == "kops-dns-controller" else ())
        self._by_name_init()

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        return [AccessCheck(informer.resource, verb, ns) for informer in self.informers.values()
                for verb in ("list", "watch")]

    # -- by name: event-sized reads (Source.endpoints_for_names / take_dirty_names) ---------------------------
    # Services whose endpoints come from the Service alone (LoadBalancer, ExternalName, ClusterIP with an IP)
    # are kept with their endpoints and indexed by DNS name, built on first use and then kept in step by the
    # Service informer's events; the others (NodePort, headless: they read Pods, Nodes, EndpointSlices) are
    # recomputed on every read. The merge across Services works name by name, so merging the endpoints of
    # every Service claiming a name gives exactly `endpoints()`'s endpoints of that name. After the first,
    # `collect` (the full passes) reads the kept entries too, with their problems (reported by `endpoints()`).
    # Memory: an entry holds the endpoints `service_endpoints` built packed into tuples (`_pack`: ~420 instead of
    # ~650 bytes a Service), unpacked into fresh endpoints on every read (the merge then reuses them instead
    # of copying); a name claimed by one Service maps to its key alone.
    def _by_name_init(self) -> None:
        self._bn_lock = threading.Lock()
        self._bn_cond = threading.Condition(self._bn_lock)  # notified when a build ends (done or failed)
        self._bn_built = False  # a build started (the first `collect`): events keep the index from then on
        # key -> (endpoints, names, problems) of each admitted Service (NodePort / headless: names only)
        self._bn_entries: dict[str, _Entry] = {}
        self._bn_ready = False  # the first `collect` finished listing: later ones read the entries
        self._bn_index: dict[str, str | set[str]] = {}  # name -> key(s) of self-contained Services claiming it
        self._bn_others: dict[str, Mapping[str, Any]] = {}  # key -> NodePort / headless Service
        self._bn_dirty: set[str] = set()
        self._bn_lost = False  # a build failed: events after it were not followed, the next take says None
        self._bn_touched: set[str] | None = None  # keys changed by events while the first `collect` lists (None: not listing)
        self._bn_handlers: list[Callable[[], None]] = []
        # One listener keeps the index and then calls the event handlers, so a sync triggered by an event
        # always finds that event's names in the index.
        self._own_events.append(self.services)
        funcs = ResourceEventHandlerFuncs(on_add=lambda obj: self._bn_event(None, obj),
                                          on_update=self._bn_event, on_delete=lambda obj: self._bn_event(obj, None))
        self._bn_registration = self.services.add_event_handler(FilteringResourceEventHandler(self.admit, funcs),
                                                                resync_period=0)

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self._bn_handlers.append(handler)
        super().add_event_handler(handler)  # the other informers' events (EndpointSlices)

    @staticmethod
    def _key(svc: Mapping[str, Any]) -> str:
        meta = svc.get("metadata") if isinstance(svc.get("metadata"), Mapping) else {}
        assert isinstance(meta, Mapping)
        return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"

    @staticmethod
    def _self_contained(svc: Mapping[str, Any]) -> bool:
        spec = svc.get("spec") if isinstance(svc.get("spec"), Mapping) else {}
        assert isinstance(spec, Mapping)
        svc_type = spec.get("type") or "ClusterIP"
        return not (svc_type == "NodePort" or (svc_type == "ClusterIP" and spec.get("clusterIP") == "None"))

    def _endpoints_of(self, svc: Mapping[str, Any]) -> tuple[list[Endpoint], list[Problem]]:
        if self._self_contained(svc):
            return service_endpoints(svc, self.options)
        return self._collect_services([svc])

    def _bn_forget(self, key: str) -> None:
        """Drop a Service from the index (call with the lock held); its names become dirty."""
        self._bn_others.pop(key, None)
        entry = self._bn_entries.pop(key, None)
        if entry is None:
            return
        for name in entry[1]:
            self._bn_dirty.add(name)
            keys = self._bn_index.get(name)
            if isinstance(keys, str):
                if keys == key:
                    del self._bn_index[name]
            elif keys is not None:
                keys.discard(key)
                if len(keys) == 1:
                    self._bn_index[name] = next(iter(keys))

    def _bn_claim(self, key: str, names: tuple[str, ...]) -> None:
        """Index a self-contained Service's names (call with the lock held)."""
        index = self._bn_index
        for name in names:
            keys = index.get(name)
            if keys is None or keys == key:
                index[name] = key
            elif isinstance(keys, str):
                index[name] = {keys, key}
            else:
                keys.add(key)

    def _bn_add(self, svc: Mapping[str, Any]) -> None:
        key = self._key(svc)
        eps, probs = self._endpoints_of(svc)
        names = _names(eps)
        with self._bn_lock:
            if not self._bn_built:
                return  # a failed build was dropped meanwhile: the next one lists the cache
            if self._bn_touched is not None:
                self._bn_touched.add(key)
            self._bn_forget(key)
            self._bn_dirty.update(names)
            if not self._self_contained(svc):
                self._bn_others[key] = svc
                self._bn_entries[key] = ((), names, ())  # names only: for the next change's dirty names
                return
            self._bn_entries[key] = (tuple(map(_pack, eps)), names, tuple(probs))
            self._bn_claim(key, names)

    def _bn_event(self, old: Any, new: Any) -> None:
        changed = new is None or old is None or _differs(old, new)
        if changed and self._bn_built:  # before, the first `collect` builds the index from the cache
            self._bn_update(old, new)
        if changed:
            for handler in list(self._bn_handlers):
                try:
                    handler()
                except Exception:  # one handler never stops the others or the informer
                    log.exception("source event handler failed", source=self.name)

    def _bn_update(self, old: Any, new: Any) -> None:
        if new is None:
            with self._bn_lock:
                if not self._bn_built:
                    return
                if self._bn_touched is not None:
                    self._bn_touched.add(self._key(old))
                self._bn_forget(self._key(old))
        else:
            self._bn_add(new)

    def _bn_build(self) -> bool:
        """Return once the index is built: build it (True) or wait for the build another thread runs (a
        half-built index lacks the not yet listed claimants of a name, so its read would not equal the full
        read)."""
        built_here = False
        while not self._bn_ready:
            with self._bn_cond:
                waiting = self._bn_built and not self._bn_ready
                if waiting:
                    self._bn_cond.wait_for(lambda: self._bn_ready or not self._bn_built)
            if not waiting and not self._bn_ready:
                self.collect()  # builds the index on its first run (or waits no longer: it failed, build again)
                built_here = True
        return built_here

    def _bn_start_build(self) -> bool:
        """True when the caller (the first `collect`) builds the index: events from now on update it, and the
        listing adds only Services no event touched meanwhile."""
        with self._bn_lock:
            if self._bn_built:
                return False
            self._bn_built = True
            self._bn_touched = set()
            return True

    def _bn_listed(self, svc: Mapping[str, Any], eps: list[Endpoint], probs: list[Problem]) -> None:
        key = self._key(svc)
        names = _names(eps)
        with self._bn_lock:
            if self._bn_touched is not None and key in self._bn_touched:
                return  # an event brought a newer version (or its deletion) already
            if key in self._bn_entries:  # an event that raced a failed build's reset
                self._bn_forget(key)
            if not self._self_contained(svc):
                self._bn_others[key] = svc
                self._bn_entries[key] = ((), names, ())
                return
            self._bn_entries[key] = (tuple(map(_pack, eps)), names, tuple(probs))
            self._bn_claim(key, names)

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        if not self._bn_ready:
            self._bn_build()
        wanted = {name_key(n) for n in names}
        with self._bn_lock:
            keys: set[str] = set()
            for n in wanted:
                claim = self._bn_index.get(n)
                if isinstance(claim, str):
                    keys.add(claim)
                elif claim is not None:
                    keys |= claim
            packed = [p for k in sorted(keys) for p in self._bn_entries[k][0]]
            problems = [p for k in sorted(keys) for p in self._bn_entries[k][2]]
            others = list(self._bn_others.values())
        found = list(map(_unpack, packed))
        if others:
            more, more_problems = self._collect_services(others)
            found.extend(more)
            problems.extend(more_problems)
        self.report(problems, partial=True)  # an event run's objects: their problems now, not at the next pass
        return [ep for ep in merge_service_endpoints(found, copy=False) if name_key(ep.dns_name) in wanted]

    def take_dirty_names(self) -> set[str] | None:
        if not self._bn_ready and self._bn_build():
            with self._bn_lock:
                self._bn_lost = False
            return None  # no baseline yet: the caller compares everything once
        with self._bn_lock:
            dirty, self._bn_dirty = self._bn_dirty, set()
            lost, self._bn_lost = self._bn_lost, False
        return None if lost else dirty  # lost: a failed build left events unfollowed, the caller compares all

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        if self._bn_ready:
            return self._collect_entries()
        wait_delivered(self.services, self._bn_registration, self.sync_timeout, self.name)
        building = self._bn_start_build()
        done = False
        try:
            eps, problems = self._collect_services(admitted_objects(self.services),
                                                   self._bn_listed if building else None)
            done = True
        finally:
            if building:
                self._bn_end_build(done)
        return merge_service_endpoints(eps, copy=False), problems  # built for this call (the index packs its own)

    def _bn_end_build(self, done: bool) -> None:
        """The first `collect` finished listing (`done`) or failed. The names events dirtied while it listed
        stay dirty: the listing may have read an object before its event, and the caller's baseline is that
        read. A failed build leaves nothing half-built: the next read builds the index again, whole."""
        with self._bn_cond:
            self._bn_touched = None
            if done:
                self._bn_ready = True
            else:
                self._bn_built = False
                self._bn_lost = True
                self._bn_entries.clear()
                self._bn_index.clear()
                self._bn_others.clear()
            self._bn_cond.notify_all()

    def _collect_entries(self) -> tuple[list[Endpoint], list[Problem]]:
        """Every Service's endpoints from the entries the events keep (self-contained Services are not
        computed again; NodePort and headless ones are, from the current Pods, Nodes and EndpointSlices)."""
        with self._bn_lock:
            keys = sorted(self._bn_entries)
            packed = [p for k in keys for p in self._bn_entries[k][0]]
            problems = [p for k in keys for p in self._bn_entries[k][2]]
            others = [self._bn_others[k] for k in keys if k in self._bn_others]
        eps = list(map(_unpack, packed))  # outside the lock: events are not kept waiting
        if others:
            more, more_problems = self._collect_services(others)
            eps.extend(more)
            problems.extend(more_problems)
        return merge_service_endpoints(eps, copy=False), problems

    def _collect_services(self, services: Iterable[Mapping[str, Any]],
                          each: Callable[[Mapping[str, Any], list[Endpoint], list[Problem]], None] | None = None,
                          ) -> tuple[list[Endpoint], list[Problem]]:
        nodes = self.nodes.get_store().list() if self.nodes is not None else []
        pod_store = self.pods.get_store() if self.pods is not None else None
        slice_store = self.slices.get_store() if self.slices is not None else None
        pods_by_ns: dict[str, list[dict[str, Any]]] = {}
        endpoints: list[Endpoint] = []
        problems: list[Problem] = []
        for svc in services:
            raw_meta, raw_spec = svc.get("metadata"), svc.get("spec")
            meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
            ns, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
            spec: Mapping[str, Any] = raw_spec if isinstance(raw_spec, Mapping) else {}
            svc_type = spec.get("type") or "ClusterIP"
            wants_pods = svc_type == "NodePort" or (svc_type == "ClusterIP" and spec.get("clusterIP") == "None")
            pods: list[dict[str, Any]] = []
            if pod_store is not None and wants_pods:
                if ns not in pods_by_ns:
                    pods_by_ns[ns] = pod_store.by_index(NAMESPACE_INDEX, ns)
                pods = pods_by_ns[ns]
            slices = slice_store.by_index(BY_SERVICE_NAME, f"{ns}/{name}") \
                if slice_store is not None and wants_pods else []
            eps, probs = service_endpoints(svc, self.options, nodes=nodes, pods=pods, endpoint_slices=slices)
            if each is not None:
                each(svc, eps, probs)
            endpoints.extend(eps)
            problems.extend(probs)
        return endpoints, problems


# An endpoint packed for the index: (dns_name, record_type, targets, ttl, set_identifier, labels as a flat
# (key, value, ...) tuple, provider-specific (name, value) pairs, ref_objects).
_Packed = tuple[str, str, tuple[str, ...], int, str, tuple[str, ...], tuple[tuple[str, str], ...],
                tuple[Mapping[str, Any], ...]]
_Entry = tuple[tuple[_Packed, ...], tuple[str, ...], tuple[Problem, ...]]


def _pack(ep: Endpoint) -> _Packed:
    labels = ep.labels
    return (ep.dns_name, ep.record_type, tuple(ep.targets), ep.record_ttl, ep.set_identifier,
            tuple([x for kv in labels.items() for x in kv]) if labels else (),
            tuple([(p.name, p.value) for p in ep.provider_specific]) if ep.provider_specific else (),
            tuple(ep.ref_objects))


def _unpack(packed: _Packed) -> Endpoint:
    """A fresh endpoint equal to the one packed (its own containers; the ref_objects are the cached objects)."""
    name, rtype, targets, ttl, set_identifier, labels, props, refs = packed
    ep = object.__new__(Endpoint)
    ep.dns_name = name
    ep.record_type = rtype
    ep.targets = Targets(targets)
    ep.record_ttl = ttl
    ep.set_identifier = set_identifier
    ep.labels = dict(zip(labels[::2], labels[1::2], strict=True)) if labels else {}
    ep.provider_specific = [ProviderSpecificProperty(n, v) for n, v in props] if props else []
    ep.ref_objects = list(refs)
    return ep


def _names(eps: Iterable[Endpoint]) -> tuple[str, ...]:
    """The distinct index keys of `eps`' names, in order."""
    return tuple(dict.fromkeys(name_key(ep.dns_name) for ep in eps))
