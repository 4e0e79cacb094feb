"""Admission of cached objects (the `withSelectors` indexer of external-dns) and lookup indexes.

`admits_service / admits_ingress / admits_dnsendpoint(options)` return predicates: `--namespace`,
`--label-filter`, `--annotation-filter`, the `controller` annotation, and per kind `--service-type-filter`
or `--ingress-class`. `selector_index(predicate)` is an index function giving admitted objects the value
`<namespace>/<name>` under `WITH_SELECTORS` (others get no entry), so a source lists only its objects with
`by_index`-free `admitted_objects(informer)`. `service_name_index` keys EndpointSlices by
`<namespace>/<kubernetes.io/service-name>`.

A predicate never raises: an object whose labels or annotations are malformed is admitted, so the
object -> endpoints code reports the bad field by name instead of the object vanishing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from external_dns.informers import SharedIndexInformer
from external_dns.sources.annotations import CONTROLLER_KEY, CONTROLLER_VALUE
from external_dns.sources.objects.ingress import ingress_class_matches
from external_dns.sources.options import SourceOptions

WITH_SELECTORS = "withSelectors"
BY_SERVICE_NAME = "byServiceName"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"

Predicate = Callable[[Mapping[str, Any]], bool]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = getattr(obj, "obj", None)  # a DeletedFinalStateUnknown tombstone
    if inner is not None:
        obj = inner
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    return meta if isinstance(meta, Mapping) else {}


def _strings(value: Any) -> dict[str, str] | None:
    """A label/annotation map, or None when it is malformed."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in value.items()):
        return None
    return dict(value)


def common_admission(options: SourceOptions) -> Predicate:
    """Namespace, label filter, annotation filter and the controller annotation."""
    controller_key = options.annotation_prefix + CONTROLLER_KEY

    def admit(obj: Mapping[str, Any]) -> bool:
        meta = _meta(obj)
        if options.namespace and meta.get("namespace") != options.namespace:
            return False
        labels = _strings(meta.get("labels"))
        annotations = _strings(meta.get("annotations"))
        if labels is None or annotations is None:
            return True  # malformed: let the object code report it
        if not options.label_selector.empty() and not options.label_selector.matches(labels):
            return False
        if not options.annotation_selector.empty() and not options.annotation_selector.matches(annotations):
            return False
        controller = annotations.get(controller_key)
        return controller is None or controller == CONTROLLER_VALUE

    return admit


def admits_service(options: SourceOptions) -> Predicate:
    common = common_admission(options)
    types = frozenset(options.service_type_filter)

    def admit(obj: Mapping[str, Any]) -> bool:
        if not common(obj):
            return False
        if not types:
            return True
        target = getattr(obj, "obj", obj)
        spec = target.get("spec") if isinstance(target, Mapping) else None
        if not isinstance(spec, Mapping):
            return True
        kind = spec.get("type") or "ClusterIP"
        return not isinstance(kind, str) or kind in types

    return admit


def admits_ingress(options: SourceOptions) -> Predicate:
    common = common_admission(options)
    classes = tuple(options.ingress_class_names)

    def admit(obj: Mapping[str, Any]) -> bool:
        if not common(obj):
            return False
        if not classes:
            return True
        try:
            return ingress_class_matches(getattr(obj, "obj", obj), classes)
        except ValueError:  # a malformed class field: the object code reports it
            return True

    return admit


def admits_dnsendpoint(options: SourceOptions) -> Predicate:
    return common_admission(options)


def selector_index(admit: Predicate) -> Callable[[dict[str, Any]], list[str]]:
    def index(obj: dict[str, Any]) -> list[str]:
        if not admit(obj):
            return []
        meta = _meta(obj)
        ns, name = meta.get("namespace") or "", meta.get("name") or ""
        return [f"{ns}/{name}" if ns else str(name)]

    return index


def service_name_index(obj: dict[str, Any]) -> list[str]:
    meta = _meta(obj)
    labels = meta.get("labels")
    owner = labels.get(SERVICE_NAME_LABEL) if isinstance(labels, Mapping) else None
    if not isinstance(owner, str) or not owner:
        return []
    return [f"{meta.get('namespace') or ''}/{owner}"]


def admitted_objects(informer: SharedIndexInformer) -> list[dict[str, Any]]:
    """The objects the `WITH_SELECTORS` index admits, sorted by key (a stable order for merging)."""
    store = informer.get_store()
    out: list[dict[str, Any]] = []
    for value in store.list_index_func_values(WITH_SELECTORS):  # sorted
        out.extend(store.by_index(WITH_SELECTORS, value))
    return out
