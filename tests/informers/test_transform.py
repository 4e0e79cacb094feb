"""Unit tests: built-in and custom transformers."""

from __future__ import annotations

from typing import Any

from external_dns.informers.transform import (
    DEFAULT_TRANSFORMERS,
    LAST_APPLIED,
    chain,
    drop_fields,
    keep_annotation_prefixes,
)
from tests.informers.conftest import svc


def fat() -> dict[str, Any]:
    return svc("a", metadata={
        "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}],
        "annotations": {LAST_APPLIED: "{...}" * 100, "external-dns.alpha.kubernetes.io/hostname": "a.example",
                        "other.io/x": "1"}})


def test_default_transformers_drop_managed_fields_and_last_applied() -> None:
    run = chain(DEFAULT_TRANSFORMERS)
    assert run is not None
    obj = run(fat())
    assert "managedFields" not in obj["metadata"]
    assert obj["metadata"]["annotations"] == {"external-dns.alpha.kubernetes.io/hostname": "a.example",
                                              "other.io/x": "1"}
    assert run(obj) == obj  # idempotent


def test_keep_annotation_prefixes() -> None:
    keep = keep_annotation_prefixes("external-dns.alpha.kubernetes.io/")
    obj = keep(fat())
    assert obj["metadata"]["annotations"] == {"external-dns.alpha.kubernetes.io/hostname": "a.example"}
    none_left = keep_annotation_prefixes("nothing/")(fat())
    assert "annotations" not in none_left["metadata"]


def test_drop_fields_and_chain_order() -> None:
    obj = fat()
    obj["status"] = {"loadBalancer": {}}
    run = chain([drop_fields("status", "metadata.managedFields", "spec.missing.deep"), lambda o: {**o, "x": 1}])
    assert run is not None
    out = run(obj)
    assert "status" not in out and "managedFields" not in out["metadata"] and out["x"] == 1
    assert chain([]) is None
