"""Unit tests: keys, tombstones and the indexed store."""

from __future__ import annotations

import pytest

from external_dns.informers.keys import (
    DeletedFinalStateUnknown,
    InvalidKeyError,
    deletion_handling_key,
    meta_namespace_key,
    resource_version,
    split_key,
)
from external_dns.informers.store import (
    NAMESPACE_INDEX,
    DeltaType,
    IndexConflictError,
    Indexer,
    IndexNotFoundError,
    InformerStartedError,
    namespace_index,
)
from tests.informers.conftest import svc


def by_host(obj: dict) -> list[str]:  # type: ignore[type-arg]
    hosts = (obj.get("metadata", {}).get("annotations") or {}).get("host", "")
    return [h for h in hosts.split(",") if h]


def test_keys() -> None:
    assert meta_namespace_key(svc("a", "ns1")) == "ns1/a"
    assert meta_namespace_key({"metadata": {"name": "node1"}}) == "node1"
    tomb = DeletedFinalStateUnknown("ns1/a", svc("a", "ns1", rv="7"))
    assert deletion_handling_key(tomb) == "ns1/a"
    assert resource_version(tomb) == "7"
    assert split_key("ns1/a") == ("ns1", "a")
    assert split_key("node1") == ("", "node1")
    with pytest.raises(InvalidKeyError, match="unexpected key format"):
        split_key("a/b/c")
    with pytest.raises(InvalidKeyError, match=r"Service has no metadata\.name"):
        meta_namespace_key({"kind": "Service", "metadata": {}})


def test_add_update_delete_and_indices() -> None:
    store = Indexer({NAMESPACE_INDEX: namespace_index, "host": by_host})
    assert store.add(svc("a", "ns1", metadata={"annotations": {"host": "x.example,y.example"}})) is None
    store.add(svc("b", "ns2", metadata={"annotations": {"host": "y.example"}}))
    assert store.list_keys() == ["ns1/a", "ns2/b"]
    assert [meta_namespace_key(o) for o in store.by_index("host", "y.example")] == ["ns1/a", "ns2/b"]
    assert store.index_keys(NAMESPACE_INDEX, "ns1") == ["ns1/a"]
    assert store.list_index_func_values("host") == ["x.example", "y.example"]
    old = store.update(svc("a", "ns1", rv="2", metadata={"annotations": {"host": "z.example"}}))
    assert old is not None and resource_version(old) == "1"
    assert store.by_index("host", "x.example") == []
    assert store.list_index_func_values("host") == ["y.example", "z.example"]
    same = store.get_by_key("ns1/a")
    assert same is not None
    assert [meta_namespace_key(o) for o in store.index("host", same)] == ["ns1/a"]
    assert store.delete(DeletedFinalStateUnknown("ns2/b", None)) is not None
    assert store.list_index_func_values("host") == ["z.example"]
    assert store.delete(svc("gone")) is None
    with pytest.raises(IndexNotFoundError, match="Index with name nope does not exist"):
        store.by_index("nope", "x")


def test_replace_emits_tombstones_with_last_state() -> None:
    store = Indexer({NAMESPACE_INDEX: namespace_index})
    store.add(svc("a", rv="1"))
    store.add(svc("b", rv="2"))
    deltas = store.replace([svc("b", rv="5"), svc("c", rv="6")])
    assert [d.type for d in deltas] == [DeltaType.DELETED, DeltaType.UPDATED, DeltaType.ADDED]
    tomb = deltas[0].obj
    assert isinstance(tomb, DeletedFinalStateUnknown) and tomb.key == "default/a"
    assert tomb.obj is not None and resource_version(tomb.obj) == "1"
    assert deltas[1].old is not None and resource_version(deltas[1].old) == "2"
    assert store.list_keys() == ["default/b", "default/c"]
    assert store.index_keys(NAMESPACE_INDEX, "default") == ["default/b", "default/c"]


def test_add_indexers_before_start_only() -> None:
    store = Indexer()
    store.add(svc("a", metadata={"annotations": {"host": "h"}}))
    store.add_indexers({"host": by_host})  # indexes existing objects
    assert store.index_keys("host", "h") == ["default/a"]
    with pytest.raises(IndexConflictError):
        store.add_indexers({"host": by_host})
    store.mark_started()
    with pytest.raises(InformerStartedError, match="informer has already started"):
        store.add_indexers({"other": by_host})


def test_failing_index_function_leaves_others_indexed() -> None:
    def fragile(obj: dict) -> list[str]:  # type: ignore[type-arg]
        return [obj["spec"]["externalName"]]

    store = Indexer({"ext": fragile})
    store.add(svc("plain"))
    store.add(svc("ext", spec={"externalName": "e.example"}))
    assert store.list_keys() == ["default/plain", "default/ext"]
    assert store.index_keys("ext", "e.example") == ["default/ext"]
