"""`--source=node` on the shared informers: `NodeInformerSource(factory, options)`.

One informer on Nodes (cluster-scoped; shared with the service source, the cache keeps what both read:
sources/informer/base.py `_shared_informer`), slimmed to names, labels (with `--label-filter`), prefix
annotations, `spec.unschedulable` and `status.addresses` (the whole object with an `--fqdn-template`).
Nodes are admitted by the `withSelectors` index (label/annotation filters, controller annotation).
Events: admitted Node changes (an address or cordon change moves the records). The Node -> endpoints logic
is `objects.node`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.utils import merge_endpoints
from external_dns.informers import NODES, SharedInformerFactory
from external_dns.sources.annotations import CONTROLLER_KEY, CONTROLLER_VALUE
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.filters import WITH_SELECTORS, Predicate, admitted_objects, selector_index
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import NEED_ALL, NEED_ANNOTATIONS, NEED_LABELS, node_transformer_for
from external_dns.sources.objects.common import collect_objects
from external_dns.sources.objects.node import node_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem


def admits_node(options: SourceOptions) -> Predicate:
    """Label filter, annotation filter, controller annotation (a malformed map is admitted: the object
    code reports it)."""
    controller_key = options.annotation_prefix + CONTROLLER_KEY

    def admit(obj: Mapping[str, Any]) -> bool:
        target = getattr(obj, "obj", obj)
        meta = target.get("metadata") if isinstance(target, Mapping) else None
        meta = meta if isinstance(meta, Mapping) else {}
        labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
        if not isinstance(labels, Mapping) or not isinstance(annotations, Mapping):
            return True
        if not options.label_selector.empty() and not options.label_selector.matches(dict(labels)):
            return False
        if not options.annotation_selector.empty() and not options.annotation_selector.matches(dict(annotations)):
            return False
        controller = annotations.get(controller_key)
        return controller is None or controller == CONTROLLER_VALUE

    return admit


def node_needs(options: SourceOptions) -> tuple[str, ...]:
    """What the node (and pod) source needs cached of a Node."""
    if options.any_template:
        return (NEED_ALL,)
    return (NEED_ANNOTATIONS, NEED_LABELS) if not options.label_selector.empty() else (NEED_ANNOTATIONS,)


class NodeInformerSource(InformerSource):
    name = "node"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_node(options)
        keep = annotation_keys_read(options)
        self.nodes = self._shared_informer(NODES, lambda needs: node_transformer_for(needs, keep),
                                           node_needs(options), {WITH_SELECTORS: selector_index(self.admit)},
                                           events=self.admit)

    def access_checks(self) -> list[AccessCheck]:
        return [AccessCheck(NODES, verb) for verb in ("list", "watch")]

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        return collect_objects(admitted_objects(self.nodes), lambda node: node_endpoints(node, self.options),
                               merge_endpoints)
