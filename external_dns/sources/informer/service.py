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

from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import (
    ENDPOINTSLICES,
    NAMESPACE_INDEX,
    NODES,
    PODS,
    SERVICES,
    SharedInformerFactory,
)
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
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


def annotation_keys_read(options: SourceOptions, extra: tuple[str, ...] = ()) -> Any:
    """Which annotations the cache keeps: all when a template is set (it may read any of them: `.Object`,
    `range` over `.Metadata`, ...), else the prefix, the annotation filter's keys and `extra`."""
    if options.any_template:
        return None
    return annotation_keeper(options.annotation_prefix, set(options.annotation_selector.key_set()) | set(extra))


class ServiceInformerSource(InformerSource):
    name = "service"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *,
                 listen_endpoint_events: bool = False, sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_service(options)
        keep = annotation_keys_read(options)
        transformer = generic_transformer(keep) if options.any_template else service_transformer(
            keep, keep_labels=not options.label_selector.empty())
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
        if "nodes" in watched:
            self.nodes = self._shared_informer(NODES, lambda needs: node_transformer_for(needs, pod_keep), ())

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        return [AccessCheck(informer.resource, verb, ns) for informer in self.informers.values()
                for verb in ("list", "watch")]

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        nodes = self.nodes.get_store().list() if self.nodes is not None else []
        pod_store = self.pods.get_store() if self.pods is not None else None
        slice_store = self.slices.get_store() if self.slices is not None else None
        pods_by_ns: dict[str, list[dict[str, Any]]] = {}
        endpoints: list[Endpoint] = []
        problems: list[Problem] = []
        for svc in admitted_objects(self.services):
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
            endpoints.extend(eps)
            problems.extend(probs)
        return merge_service_endpoints(endpoints), problems
