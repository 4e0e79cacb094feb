"""`--source=pod` on the shared informers: `PodInformerSource(factory, options, pod_options)`.

Informers: Pods (namespace `--namespace` or all; admitted by the `withSelectors` index: namespace,
label/annotation filters, controller annotation) and Nodes (for the addresses of hostNetwork pods), both
shared with the service source; the caches keep the union of what the sources read
(sources/informer/base.py `_shared_informer`). Events: admitted Pod changes and Node changes (a node's new
address moves the records of its hostNetwork pods). The Pod -> endpoints logic is `objects.pod`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.utils import merge_endpoints
from external_dns.informers import NODES, PODS, SharedInformerFactory
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admitted_objects,
    common_admission,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import (
    NEED_ALL,
    NEED_ANNOTATIONS,
    NEED_LABELS,
    NEED_POD_SOURCE,
    node_transformer_for,
    pod_transformer_for,
)
from external_dns.sources.objects.common import collect_objects
from external_dns.sources.objects.pod import PodOptions, pod_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem


class PodInformerSource(InformerSource):
    name = "pod"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, pod_options: PodOptions | None = None,
                 *, sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.pod_options = pod_options or PodOptions()
        self.admit = common_admission(options)
        keep = annotation_keys_read(options)
        needs: tuple[str, ...] = (NEED_ALL,) if options.any_template else (NEED_ANNOTATIONS, NEED_POD_SOURCE)
        if not options.label_selector.empty():
            needs += (NEED_LABELS,)
        self.pods = self._shared_informer(PODS, lambda n: pod_transformer_for(n, keep), needs,
                                          {WITH_SELECTORS: selector_index(self.admit)}, events=self.admit)
        # Node addresses only (no template runs on nodes here): the node source's needs cover the rest.
        self.nodes = self._shared_informer(NODES, lambda n: node_transformer_for(n, keep), (), events=True)

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        return [AccessCheck(PODS, verb, ns) for verb in ("list", "watch")] + \
            [AccessCheck(NODES, verb) for verb in ("list", "watch")]

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        nodes = self.nodes.get_store()

        def node(name: str) -> Mapping[str, Any] | None:
            return nodes.get_by_key(name)

        return collect_objects(admitted_objects(self.pods),
                               lambda pod: pod_endpoints(pod, self.options, self.pod_options, node),
                               merge_endpoints)
