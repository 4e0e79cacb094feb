"""Object keys (`namespace/name`, or `name` for cluster-scoped objects) and the deletion tombstone.

`DeletedFinalStateUnknown` is what `on_delete` receives when a delete was missed while disconnected and
only noticed at a relist: it carries the key and the last state the cache knew. Every key function here
understands tombstones, so handlers can key any `on_delete` argument with `deletion_handling_key`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]


class InvalidKeyError(ValueError):
    """An object without `metadata.name` (or a malformed key string)."""


@dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """Tombstone for an object deleted while the watch was down: its key and its last known state."""

    key: str
    obj: Obj | None


def meta_namespace_key(obj: Obj) -> str:
    """`namespace/name`, or `name` when the object has no namespace (client-go `MetaNamespaceKeyFunc`)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        kind = obj.get("kind", "object") if isinstance(obj, dict) else type(obj).__name__
        raise InvalidKeyError(f"{kind} has no metadata.name")
    namespace = meta.get("namespace")
    return f"{namespace}/{meta['name']}" if namespace else str(meta["name"])


def deletion_handling_key(obj: Obj | DeletedFinalStateUnknown) -> str:
    """The tombstone's key for a `DeletedFinalStateUnknown`, otherwise `meta_namespace_key`."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return meta_namespace_key(obj)


def split_key(key: str) -> tuple[str, str]:
    """`(namespace, name)` of a key; the namespace is "" for a cluster-scoped key."""
    parts = key.split("/")
    if len(parts) == 1 and parts[0]:
        return "", parts[0]
    if len(parts) == 2 and parts[1]:
        return parts[0], parts[1]
    raise InvalidKeyError(f"unexpected key format: {key!r}")


def resource_version(obj: Obj | DeletedFinalStateUnknown | None) -> str:
    """`metadata.resourceVersion` of an object (of a tombstone's last state), "" when absent."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    if not isinstance(obj, dict):
        return ""
    meta = obj.get("metadata")
    return str(meta.get("resourceVersion") or "") if isinstance(meta, dict) else ""
