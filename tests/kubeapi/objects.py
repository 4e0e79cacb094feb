"""Stored object versions of the test API server: `StoredObject` (an immutable dict plus its serialised
JSON, so lists are byte joins), `with_type` (kind/apiVersion first) and the key helpers.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from tests.kubeapi.resources import ResourceType

Key = tuple[str, str]  # (namespace, name); namespace "" for cluster-scoped
Json = dict[str, Any]

DUMPS = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def now_rfc3339() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class StoredObject:
    """One immutable version of one object: its dict (with kind/apiVersion) and its JSON bytes."""

    __slots__ = ("full_json", "key", "obj", "rt", "rv")

    def __init__(self, rt: ResourceType, obj: Json, rv: int) -> None:
        self.rt = rt
        self.obj = obj
        self.rv = rv
        meta = obj["metadata"]
        self.key: Key = (meta.get("namespace", ""), meta["name"])
        self.full_json: bytes = DUMPS(obj).encode()

    def item_json(self) -> bytes:
        """The JSON of this object as a list item: built-in kinds drop kind/apiVersion, CRs keep them."""
        if not self.rt.builtin:
            return self.full_json
        prefix = _type_prefix(self.rt)
        return b"{" + self.full_json[len(prefix):]

    def labels(self) -> dict[str, str]:
        labels = self.obj["metadata"].get("labels")
        return labels if isinstance(labels, dict) else {}

    def copy(self) -> Json:
        """A private deep copy of the object dict."""
        result: Json = json.loads(self.full_json)
        return result


def _type_prefix(rt: ResourceType) -> bytes:
    return DUMPS({"kind": rt.kind, "apiVersion": rt.api_version})[:-1].encode() + b","


def with_type(rt: ResourceType, obj: Json) -> Json:
    """`obj` with kind and apiVersion first (the serialisation order the store relies on)."""
    out: Json = {"kind": rt.kind, "apiVersion": rt.api_version}
    for k, v in obj.items():
        if k not in ("kind", "apiVersion"):
            out[k] = v
    return out


def key_str(key: Key) -> str:
    return f"{key[0]}/{key[1]}" if key[0] else key[1]
