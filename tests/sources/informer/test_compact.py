"""CompactMapping: reads like the dict it replaces, is immutable, copies and pickles, stays small."""

from __future__ import annotations

import copy
import json
import pickle
import sys
from collections.abc import Mapping

import pytest

from external_dns.sources.informer import compact as compact_module
from external_dns.sources.informer.compact import CompactMapping, compact


def test_reads_like_a_dict() -> None:
    src = {"type": "LoadBalancer", "clusterIP": "10.0.0.1", "ports": [{"port": 80}]}
    c = compact(src)
    assert isinstance(c, Mapping) and isinstance(c, CompactMapping)
    assert c == src and src == c and dict(c) == src
    assert c["type"] == "LoadBalancer" and c.get("clusterIP") == "10.0.0.1" and c.get("nope", 5) == 5
    assert "ports" in c and "nope" not in c and 3 not in c  # type: ignore[comparison-overlap]
    assert list(c) == ["type", "clusterIP", "ports"] and len(c) == 3
    assert list(c.items()) == list(src.items())
    assert {**c} == src and repr(c) == repr(src)
    with pytest.raises(KeyError):
        c["nope"]
    assert json.loads(json.dumps(dict(c))) == src


def test_immutable_and_small() -> None:
    c = compact({"ip": "1.2.3.4"})
    with pytest.raises((AttributeError, TypeError)):
        c["ip"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        c.other = 1  # type: ignore[attr-defined]
    assert sys.getsizeof(c) < sys.getsizeof({"ip": "1.2.3.4"}) / 3
    assert compact(c) is c
    assert type(compact({"ip": "5.6.7.8"})) is type(c)  # one class per key tuple


def test_copy_deepcopy_pickle() -> None:
    c = compact({"a": [1, 2], "b": {"c": 1}})
    assert copy.copy(c) is c
    d = copy.deepcopy(c)
    assert d == c and d is not c and d["a"] is not c["a"]
    assert pickle.loads(pickle.dumps(c)) == c


def test_fallbacks_to_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    assert type(compact({})) is dict
    assert type(compact({1: "x"})) is dict  # type: ignore[dict-item]
    assert type(compact({f"k{i}": i for i in range(40)})) is dict
    monkeypatch.setattr(compact_module, "MAX_SHAPES", 0)
    assert type(compact({"never-seen-shape": 1})) is dict
