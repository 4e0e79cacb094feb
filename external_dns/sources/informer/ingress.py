"""`--source=ingress` on the shared informers: `IngressInformerSource(factory, options)`.

One informer on networking.k8s.io/v1 Ingresses, slimmed (sources/informer/slim.py; the legacy
`kubernetes.io/ingress.class` annotation is kept for `--ingress-class`), admitted by the `withSelectors`
index (namespace, label/annotation filters, `--ingress-class` on `spec.ingressClassName` or the legacy
annotation, controller annotation). The Ingress -> endpoints logic is `objects.ingress_endpoints`,
unchanged; the merge across Ingresses is `merge_ingress_endpoints`. Events: Ingress changes.
"""

from __future__ import annotations

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import INGRESSES, SharedInformerFactory
from external_dns.sources.informer.base import DEFAULT_SYNC_TIMEOUT, AccessCheck, InformerSource
from external_dns.sources.informer.filters import (
    WITH_SELECTORS,
    admits_ingress,
    admitted_objects,
    selector_index,
)
from external_dns.sources.informer.service import annotation_keys_read
from external_dns.sources.informer.slim import generic_transformer, ingress_transformer
from external_dns.sources.objects.common import collect_objects
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

    def access_checks(self) -> list[AccessCheck]:
        ns = self.options.namespace or None
        return [AccessCheck(INGRESSES, verb, ns) for verb in ("list", "watch")]

    def collect(self) -> tuple[list[Endpoint], list[Problem]]:
        return collect_objects(admitted_objects(self.ingresses), lambda ing: ingress_endpoints(ing, self.options),
                               merge_ingress_endpoints)
