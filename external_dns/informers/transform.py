"""Transformers: `Callable[[dict], dict]` applied to every listed or watched object before it enters the
store, to shrink the cache.

A transformer receives a freshly parsed object that nothing else references yet, may change it in place,
and returns it (or a replacement). It must be idempotent. Built-ins drop `metadata.managedFields`, the
`kubectl.kubernetes.io/last-applied-configuration` annotation, and annotations outside a prefix set.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Transformer = Callable[[dict[str, Any]], dict[str, Any]]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def drop_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """Remove `metadata.managedFields` (server-side-apply bookkeeping, often the largest part)."""
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
    return obj


def drop_last_applied_configuration(obj: dict[str, Any]) -> dict[str, Any]:
    """Remove the `kubectl.kubernetes.io/last-applied-configuration` annotation (a full copy of the spec)."""
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            del meta["annotations"]  # type: ignore[union-attr]
    return obj


def keep_annotation_prefixes(*prefixes: str) -> Transformer:
    """A transformer keeping only annotations whose key starts with one of `prefixes`
    (e.g. "external-dns.alpha.kubernetes.io/"); an empty `prefixes` drops every annotation."""
    wanted = tuple(prefixes)

    def keep(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata")
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        if isinstance(annotations, dict):
            kept = {k: v for k, v in annotations.items() if k.startswith(wanted)}
            if kept:
                meta["annotations"] = kept  # type: ignore[index]
            else:
                del meta["annotations"]  # type: ignore[union-attr]
        return obj

    keep.__name__ = f"keep_annotation_prefixes{wanted!r}"
    return keep


def drop_fields(*paths: str) -> Transformer:
    """A transformer removing dotted paths such as "metadata.uid" or "status.conditions"."""
    split = [tuple(p.split(".")) for p in paths]

    def drop(obj: dict[str, Any]) -> dict[str, Any]:
        for path in split:
            node: Any = obj
            for part in path[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict):
                node.pop(path[-1], None)
        return obj

    return drop


def chain(transformers: Iterable[Transformer]) -> Transformer | None:
    """One transformer running `transformers` in order (None when there are none)."""
    steps: Sequence[Transformer] = tuple(transformers)
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def run(obj: dict[str, Any]) -> dict[str, Any]:
        for step in steps:
            obj = step(obj)
        return obj

    return run


DEFAULT_TRANSFORMERS: tuple[Transformer, ...] = (drop_managed_fields, drop_last_applied_configuration)


def _intern(node: Any) -> Any:
    if isinstance(node, str):
        return sys.intern(node) if len(node) <= _INTERN_MAX else node
    if isinstance(node, dict):
        return {sys.intern(k): _intern(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_intern(v) for v in node]
    return node


_INTERN_MAX = 64


def intern_strings(obj: dict[str, Any]) -> dict[str, Any]:
    """Share repeated short strings ("TCP", "ClusterIP", namespaces, label values) between cached objects
    (`sys.intern`), and rebuild the dicts compactly; saves memory in large caches."""
    result: dict[str, Any] = _intern(obj)
    return result
