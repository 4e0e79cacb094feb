"""`--source=ingress` on the shared informers: `IngressInformerSource(factory, options)`.

One informer on networking.k8s.io/v1 Ingresses, slimmed (sources/informer/slim.py; the legacy
`kubernetes.io/ingress.class` annotation is kept for `--ingress-class`), admitted by the `withSelectors`
index (namespace, label/annotation filters, `--ingress-class` on `spec.ingressClassName` or the legacy
annotation, controller annotation). The Ingress -> endpoints logic is `objects.ingress_endpoints`,
unchanged; the merge across Ingresses is `merge_ingress_endpoints`. Events: Ingress changes. By-name reads
(`endpoints_for_names`, `take_dirty_names`) through a host-name index of the Ingresses
(sources/informer/by_name.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import INGRESSES, SharedInformerFactory
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.by_name import NameIndex
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admits_ingress,
    admitted_objects,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import generic_transformer, ingress_transformer
from external_dns.sources.objects.common import ObjectEndpoints, collect_objects
from external_dns.sources.objects.ingress import (
    INGRESS_CLASS_ANNOTATION,
    ingress_endpoints,
    merge_ingress_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem


class IngressInformerSource(InformerSource):
    name = "ingress"

    def __init__(self, factory: SharedInformerFactory, options: SourceOptions, *,
                 sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> None:
        super().__init__(factory, options, sync_timeout=sync_timeout)
        self.admit = admits_ingress(options)
        keep = annotation_keys_read(options, (INGRESS_CLASS_ANNOTATION,))
        transformer = generic_transformer(keep) if options.any_template else ingress_transformer(keep)
        self.ingresses = self._informer(INGRESSES, transformer, {WITH_SELECTORS: selector_index(self.admit)},
                                        events=self.admit)
        self._own_events.append(self.ingresses)  # the index's listener calls the handlers
        self.by_name = NameIndex(self.ingresses, self.admit, self._one, merge_ingress_endpoints, self.name,
                                 self.sync_timeout)

    def _one(self, ing: Mapping[str, Any]) -> ObjectEndpoints:
        return ingress_endpoints(ing, self.options)

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.by_name.handlers.append(handler)
        super().add_event_handler(handler)

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        return [AccessCheck(INGRESSES, verb, ns) for verb in ("list", "watch")]

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        if not self.by_name.start_listing():
            return collect_objects(admitted_objects(self.ingresses), self._one, merge_ingress_endpoints)

        def one(ing: Mapping[str, Any]) -> ObjectEndpoints:
            found = self._one(ing)
            self.by_name.listed(ing, found.endpoints)
            return found

        complete = False
        try:
            found = collect_objects(admitted_objects(self.ingresses), one, merge_ingress_endpoints)
            complete = True
            return found
        finally:
            self.by_name.end_listing(complete)  # a failed listing leaves no half-built index

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        if not self.by_name.built:
            self.endpoints()  # the first full read builds the index
        endpoints, problems = self.by_name.endpoints_for_names(names)
        self.report(problems, partial=True)
        return endpoints

    def take_dirty_names(self) -> set[str] | None:
        if not self.by_name.built:
            self.endpoints()
            return None  # no baseline yet: the caller compares everything once
        return self.by_name.take_dirty()
