"""Object keys and the deletion tombstone (informers/keys.py), as client-go's MetaNamespaceKeyFunc,
DeletionHandlingMetaNamespaceKeyFunc and SplitMetaNamespaceKey behave."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.informers.keys import (
    DeletedFinalStateUnknown,
    InvalidKeyError,
    deletion_handling_key,
    meta_namespace_key,
    resource_version,
    split_key,
)


def test_namespaced_and_cluster_scoped_keys() -> None:
    assert meta_namespace_key({"metadata": {"name": "web", "namespace": "prod"}}) == "prod/web"
    assert meta_namespace_key({"metadata": {"name": "node-1"}}) == "node-1"
    assert meta_namespace_key({"metadata": {"name": "node-1", "namespace": ""}}) == "node-1"


@pytest.mark.parametrize(("obj", "named"), [
    ({"kind": "Service", "metadata": {}}, "Service has no metadata.name"),
    ({"kind": "Service", "metadata": {"name": ""}}, "Service has no metadata.name"),
    ({"metadata": {"name": 7}}, "object has no metadata.name"),
    ({"kind": "Pod"}, "Pod has no metadata.name"),
    ({"kind": "Pod", "metadata": ["name"]}, "Pod has no metadata.name"),
])
def test_an_object_without_a_name_has_no_key(obj: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidKeyError, match=named):
        meta_namespace_key(obj)


def test_a_tombstone_is_keyed_by_its_own_key() -> None:
    last = {"metadata": {"name": "web", "namespace": "prod", "resourceVersion": "41"}}
    stone = DeletedFinalStateUnknown("prod/web-old", last)
    assert deletion_handling_key(stone) == "prod/web-old"  # the key it was cached under, not the last state's
    assert deletion_handling_key(last) == "prod/web"
    assert deletion_handling_key(DeletedFinalStateUnknown("gone", None)) == "gone"


@pytest.mark.parametrize(("key", "parts"), [("prod/web", ("prod", "web")), ("node-1", ("", "node-1")),
                                            ("/web", ("", "web"))])
def test_split_key(key: str, parts: tuple[str, str]) -> None:
    assert split_key(key) == parts


@pytest.mark.parametrize("key", ["", "prod/", "a/b/c", "/"])
def test_split_key_refuses_malformed_keys(key: str) -> None:
    with pytest.raises(InvalidKeyError, match="unexpected key format"):
        split_key(key)


def test_resource_version_of_objects_tombstones_and_nothing() -> None:
    obj = {"metadata": {"name": "web", "resourceVersion": "42"}}
    assert resource_version(obj) == "42"
    assert resource_version(DeletedFinalStateUnknown("web", obj)) == "42"
    assert resource_version(DeletedFinalStateUnknown("web", None)) == ""
    assert resource_version(None) == ""
    assert resource_version({"metadata": {"name": "web"}}) == ""
    assert resource_version({"metadata": "broken"}) == ""
