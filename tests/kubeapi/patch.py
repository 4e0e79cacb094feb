"""PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch (the shapes Kubernetes clients send)
and JSON patch (RFC 6902). Each function returns a new document and never mutates its inputs.

Strategic merge knows the merge keys of the lists this project touches (finalizers, ownerReferences,
Service ports, conditions, containers, ...) and the `$patch`, `$retainKeys`, `$setElementOrder/` and
`$deleteFromPrimitiveList/` directives; lists without a merge key are replaced, as in the real server.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.kubeapi.errors import ApiError, make_error

# Field path ("[]" = inside a list item) -> merge key of that list ("" = primitive list merged as a set).
# Lists not named here are atomic and replaced, as in the real schemas (e.g. status.loadBalancer.ingress,
# EndpointSlice endpoints/ports, Ingress rules).
MERGE_KEYS: dict[str, str] = {
    "metadata.finalizers": "",
    "metadata.ownerReferences": "uid",
    "spec.ports": "port",
    "status.conditions": "type",
    "spec.containers": "name",
    "spec.initContainers": "name",
    "spec.containers[].ports": "containerPort",
    "spec.containers[].env": "name",
    "spec.containers[].volumeMounts": "mountPath",
    "spec.volumes": "name",
    "spec.imagePullSecrets": "name",
    "status.addresses": "type",
}

def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge recursively, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out: dict[str, Any] = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _unsupported(msg: str) -> ApiError:
    return make_error(422, "Invalid", msg)


def strategic_merge_patch(target: Any, patch: Any, path: str = "") -> Any:
    """Strategic merge patch of `patch` onto `target` (see module docstring for what is understood);
    `path` is the dotted location of `target` in the object ("" for the root)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    out = dict(target)
    retain = patch.get("$retainKeys")
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys") or k.startswith("$setElementOrder/"):
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            field = k.split("/", 1)[1]
            if isinstance(out.get(field), list) and isinstance(v, list):
                out[field] = [x for x in out[field] if x not in v]
            continue
        sub = f"{path}.{k}" if path else k
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict):
            merged = strategic_merge_patch(out.get(k), v, sub)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
        elif isinstance(v, list) and sub in MERGE_KEYS:
            out[k] = _merge_list(out.get(k), v, MERGE_KEYS[sub], sub)
        else:
            out[k] = copy.deepcopy(v)
    if isinstance(retain, list):
        out = {k: v for k, v in out.items() if k in retain}
    return out


def _merge_list(current: Any, patch: list[Any], key: str, path: str) -> list[Any]:
    cur = list(current) if isinstance(current, list) else []
    if any(isinstance(x, dict) and x.get("$patch") == "replace" for x in patch):
        return [copy.deepcopy(x) for x in patch if not (isinstance(x, dict) and "$patch" in x)]
    if not key:
        for x in patch:
            if x not in cur:
                cur.append(copy.deepcopy(x))
        return cur
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            raise _unsupported(f"map: {item!r} does not contain declared merge key: {key}")
        idx = next((i for i, c in enumerate(cur) if isinstance(c, dict) and c.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                cur.pop(idx)
            continue
        if idx is None:
            cur.append({k: copy.deepcopy(v) for k, v in item.items() if k != "$patch"})
        else:
            cur[idx] = strategic_merge_patch(cur[idx], item, f"{path}[]")
    return cur


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise make_error(422, "Invalid", f"the server rejected our request due to an error in our request: "
                                         f"JSON pointer {path!r} must start with '/'")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _fail(msg: str) -> ApiError:
    return make_error(422, "Invalid", f"the server rejected our request due to an error in our request: {msg}")


def _resolve(doc: Any, parts: list[str]) -> Any:
    cur = doc
    for p in parts:
        if isinstance(cur, dict):
            if p not in cur:
                raise _fail(f"missing value at path {'/'.join(parts)!r}")
            cur = cur[p]
        elif isinstance(cur, list):
            try:
                cur = cur[int(p)]
            except (ValueError, IndexError):
                raise _fail(f"bad list index {p!r}") from None
        else:
            raise _fail(f"cannot descend into {p!r}")
    return cur


def _add(doc: Any, parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    parent = _resolve(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        else:
            try:
                i = int(last)
            except ValueError:
                raise _fail(f"bad list index {last!r}") from None
            if i < 0 or i > len(parent):
                raise _fail(f"list index {i} out of range")
            parent.insert(i, value)
    else:
        raise _fail(f"cannot add at {last!r}")
    return doc


def _remove(doc: Any, parts: list[str]) -> Any:
    if not parts:
        raise _fail("cannot remove the document root")
    parent = _resolve(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _fail(f"unable to remove nonexistent key: {last}")
        return parent.pop(last)
    if isinstance(parent, list):
        try:
            return parent.pop(int(last))
        except (ValueError, IndexError):
            raise _fail(f"bad list index {last!r}") from None
    raise _fail(f"cannot remove {last!r}")


def json_patch(target: Any, ops: Any) -> Any:
    """RFC 6902 operations add/remove/replace/move/copy/test; 422 on a failed operation."""
    if not isinstance(ops, list):
        raise make_error(400, "BadRequest", "json patch must be a list of operations")
    doc = copy.deepcopy(target)
    for op in ops:
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise _fail(f"invalid JSON patch operation {op!r}")
        kind, parts = op["op"], _pointer(str(op["path"]))
        if kind == "add":
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, parts)
        elif kind == "replace":
            _resolve(doc, parts)
            if parts:
                _remove(doc, parts)
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind in ("move", "copy"):
            src = _pointer(str(op.get("from", "")))
            value = copy.deepcopy(_resolve(doc, src))
            if kind == "move":
                _remove(doc, src)
            doc = _add(doc, parts, value)
        elif kind == "test":
            if _resolve(doc, parts) != op.get("value"):
                raise _fail(f"testing value {op['path']} failed")
        else:
            raise _fail(f"unexpected kind of operation {kind!r}")
    return doc
