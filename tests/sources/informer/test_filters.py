"""The informer sources' admission predicates and indexes (sources/informer/filters.py): namespace, label, annotation,
type, controller and ingress-class filters; the selector and Service-name indexes."""

from __future__ import annotations

from typing import Any

from external_dns.informers import DeletedFinalStateUnknown
from external_dns.sources.informer.filters import (
    admits_ingress,
    admits_service,
    selector_index,
    service_name_index,
)
from external_dns.sources.options import SourceOptions

PREFIX = "external-dns.kubernetes.io/"


def obj(name: str = "web", ns: str = "default", labels: Any = None, annotations: Any = None,
        spec: Any = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": spec if spec is not None else {}}


def test_service_admission() -> None:
    admit = admits_service(SourceOptions(namespace="default", label_filter="team=x",
                                         annotation_filter="scope", service_type_filter=["LoadBalancer"]))
    ok = obj(labels={"team": "x"}, annotations={"scope": "a"}, spec={"type": "LoadBalancer"})
    assert admit(ok)
    assert not admit({**ok, "metadata": {**ok["metadata"], "namespace": "other"}})
    assert not admit(obj(labels={"team": "y"}, annotations={"scope": "a"}, spec={"type": "LoadBalancer"}))
    assert not admit(obj(labels={"team": "x"}, annotations={}, spec={"type": "LoadBalancer"}))
    assert not admit(obj(labels={"team": "x"}, annotations={"scope": "a"}, spec={"type": "NodePort"}))
    assert not admit(obj(labels={"team": "x"}, annotations={"scope": "a", PREFIX + "controller": "other"},
                         spec={"type": "LoadBalancer"}))
    assert admit(obj(labels={"team": "x"}, annotations={"scope": "a", PREFIX + "controller": "dns-controller"},
                     spec={"type": "LoadBalancer"}))
    # malformed labels: admitted so the object code reports the field; tombstones are looked through
    assert admit(obj(labels={"team": 5}, spec={"type": "LoadBalancer"}))
    assert admit(DeletedFinalStateUnknown("default/web", ok))  # type: ignore[arg-type]
    assert not admits_service(SourceOptions())(obj(annotations={PREFIX + "controller": "x"}))


def test_ingress_class_admission() -> None:
    admit = admits_ingress(SourceOptions(ingress_class_names=["nginx"]))
    assert admit(obj(spec={"ingressClassName": "nginx"}))
    assert admit(obj(annotations={"kubernetes.io/ingress.class": "nginx"}))
    assert not admit(obj(spec={"ingressClassName": "traefik"}, annotations={"kubernetes.io/ingress.class": "nginx"}))
    assert not admit(obj())
    assert admit(obj(spec={"ingressClassName": 7}))  # malformed: the object code reports it


def test_indexes() -> None:
    index = selector_index(admits_service(SourceOptions(label_filter="a=b")))
    assert index(obj(labels={"a": "b"})) == ["default/web"]
    assert index(obj(labels={"a": "c"})) == []
    es = {"metadata": {"name": "web-x", "namespace": "ns", "labels": {"kubernetes.io/service-name": "web"}}}
    assert service_name_index(es) == ["ns/web"]
    assert service_name_index({"metadata": {"name": "x", "namespace": "ns"}}) == []
