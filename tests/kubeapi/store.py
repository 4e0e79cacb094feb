"""The object store of the test API server: one lock, one global resourceVersion counter, a bounded
event history (global, like etcd's), and the fan-out of events to open watches.

Stored objects are immutable `StoredObject` records (tests/kubeapi/objects.py), so lists of thousands of
objects are a byte join. Past states (continue tokens, `resourceVersionMatch=Exact`)
are rebuilt by undoing history, so they are consistent snapshots; a state older than the history is 410.
"""

from __future__ import annotations

import json
import random
import string
import threading
import uuid
from collections import deque
from dataclasses import dataclass
from typing import Any

import cachetools

from tests.kubeapi import errors as E
from tests.kubeapi.continuation import decode_continue, encode_continue
from tests.kubeapi.defaults import (
    Allocator,
    apply_create_defaults,
    apply_status_defaults,
    apply_update_defaults,
)
from tests.kubeapi.objects import DUMPS, Json, Key, StoredObject, key_str, now_rfc3339, with_type
from tests.kubeapi.patch import json_patch, merge_patch, strategic_merge_patch
from tests.kubeapi.resources import ResourceType
from tests.kubeapi.schema import check_transition, validate_and_prune
from tests.kubeapi.validation import (
    check_no_new_finalizers,
    validate_kind,
    validate_load_balancer_status,
    validate_metadata,
    validate_micro_times,
    validate_name,
)
from tests.kubeapi.watchers import Filter, Watcher, event_for

_NOT_SPEC = frozenset(("kind", "apiVersion", "metadata", "status"))


@dataclass(frozen=True)
class HistoryEvent:
    """One write: `new` is the object after it (for DELETED: last state stamped with the delete rv)."""

    rv: int
    rt: ResourceType
    type: str
    new: StoredObject
    old: StoredObject | None


class Store:
    """All objects of all resources, the rv counter, the history and the open watches."""

    def __init__(self, history_size: int = 1000) -> None:
        self.history_size = history_size
        self.lock = threading.RLock()
        self.rv = 1
        self.objects: dict[ResourceType, dict[Key, StoredObject]] = {}
        self.history: deque[HistoryEvent] = deque()
        self.compacted_rv = 0  # states with rv < compacted_rv cannot be rebuilt
        self.watchers: set[Watcher] = set()
        self.alloc = Allocator()
        self._snapshots: cachetools.LRUCache[tuple[ResourceType, int], list[StoredObject]] = \
            cachetools.LRUCache(maxsize=16)

    # ------------------------------------------------------------------ bookkeeping
    def clear(self) -> None:
        """Drop every object, all history and every open watch; the rv counter keeps increasing."""
        with self.lock:
            self.objects.clear()
            self.history.clear()
            self.rv += 1
            self.compacted_rv = self.rv
            self._snapshots.clear()
            watchers = list(self.watchers)
        for w in watchers:
            with w.cond:
                w.cut = True
                w.cond.notify_all()

    def compact(self) -> None:
        """Forget all history: every older rv (watch start, continue token, exact list) is now 410."""
        with self.lock:
            self.history.clear()
            self.rv += 1
            self.compacted_rv = self.rv
            self._snapshots.clear()

    def _table(self, rt: ResourceType) -> dict[Key, StoredObject]:
        table = self.objects.get(rt)
        if table is None:
            table = self.objects[rt] = {}
        return table

    def _record(self, rt: ResourceType, etype: str, new: StoredObject, old: StoredObject | None) -> None:
        """Append to history and fan out to matching watches; caller holds the lock and bumped self.rv."""
        self.history.append(HistoryEvent(new.rv, rt, etype, new, old))
        while len(self.history) > self.history_size:
            dropped = self.history.popleft()
            self.compacted_rv = dropped.rv
        for w in self.watchers:
            if w.rt is not rt:
                continue
            item = event_for(w.filter, etype, new, old)
            if item is not None:
                w.push(item)

    def _next_rv(self) -> int:
        self.rv += 1
        return self.rv

    # ------------------------------------------------------------------ reads
    def get(self, rt: ResourceType, namespace: str, name: str) -> StoredObject:
        with self.lock:
            so = self._table(rt).get((namespace if rt.namespaced else "", name))
        if so is None:
            raise E.not_found(rt, name)
        return so

    def _state_at(self, rt: ResourceType, rv: int) -> list[StoredObject]:
        """Objects of `rt` as they were at `rv`, sorted by key; caller holds the lock."""
        if rv < self.compacted_rv:
            raise E.gone("The resourceVersion for the provided list is too old.")
        cached = self._snapshots.get((rt, rv))
        if cached is not None:
            return cached
        state = dict(self._table(rt))
        if rv != self.rv:
            for ev in reversed(self.history):
                if ev.rv <= rv:
                    break
                if ev.rt is not rt:
                    continue
                if ev.old is None:
                    state.pop(ev.new.key, None)
                else:
                    state[ev.old.key] = ev.old
        items = sorted(state.values(), key=lambda so: key_str(so.key))
        self._snapshots[(rt, rv)] = items
        return items

    def list_json(self, rt: ResourceType, flt: Filter, *, limit: int = 0, cont: str = "", rv: str = "",
             rv_match: str = "") -> bytes:
        """A serialised list response following the resourceVersion/limit/continue rules (ref. 6.2)."""
        with self.lock:
            snapshot_rv = self.rv
            start = ""
            if cont:
                snapshot_rv, start = decode_continue(cont)
                if snapshot_rv < self.compacted_rv:
                    raise E.gone("The provided continue parameter is too old to display a consistent list "
                                 "result. You can start a new list without the continue parameter.")
                if snapshot_rv > self.rv:
                    raise E.bad_request("continue key is not valid: resourceVersion is in the future")
            elif rv not in ("", "0"):
                requested = int(rv)
                if requested > self.rv:
                    raise E.too_large_rv(requested, self.rv)
                exact = rv_match == "Exact" or (limit > 0 and rv_match != "NotOlderThan")
                if exact:
                    if requested < self.compacted_rv:
                        raise E.gone("The resourceVersion for the provided list is too old.")
                    snapshot_rv = requested
            elif rv == "0":
                limit = 0  # served from the watch cache: the limit is ignored
            items = self._state_at(rt, snapshot_rv)
            selected: list[bytes] = []
            next_start = ""
            remaining = 0
            idx = 0
            if start:
                idx = _bisect_after(items, start)
            n = len(items)
            while idx < n:
                so = items[idx]
                idx += 1
                if not flt.matches(so):
                    continue
                selected.append(so.item_json())
                if limit and len(selected) >= limit:
                    rest = items[idx:]
                    if flt.selective:  # the real server cannot count what a selector would keep
                        has_more = any(flt.matches(x) for x in rest)
                    else:
                        remaining = sum(1 for x in rest if flt.matches(x))
                        has_more = remaining > 0
                    if has_more:
                        next_start = key_str(so.key) + "\x00"
                    break
        meta: Json = {"resourceVersion": str(snapshot_rv)}
        if next_start:
            meta["continue"] = encode_continue(snapshot_rv, next_start)
            if remaining:
                meta["remainingItemCount"] = remaining
        head = DUMPS({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": meta})[:-1].encode()
        return head + b',"items":[' + b",".join(selected) + b"]}"

    def list_objects(self, rt: ResourceType, flt: Filter) -> list[StoredObject]:
        with self.lock:
            return [so for so in self._state_at(rt, self.rv) if flt.matches(so)]

    # ------------------------------------------------------------------ watches
    def open_watch(self, rt: ResourceType, flt: Filter, rv: str, *, initial_events_end: bool = False,
                   path: str = "") -> Watcher:
        """Register a watch and queue what it starts with: synthetic ADDED (rv unset/"0"), a history replay
        (rv=N), or a single ERROR event (410 too old, 504 too new)."""
        w = Watcher(rt, flt, path)
        with self.lock:
            if rv in ("", "0") or initial_events_end:
                items: list[tuple[str, Any]] = [("ADDED", so) for so in self._table(rt).values() if flt.matches(so)]
                random.shuffle(items)  # the real server gives no order guarantee either
                if initial_events_end:
                    items.append(("BOOKMARK_END", self.rv))
                w.queue.extend(items)
            else:
                requested = int(rv)
                if requested < self.compacted_rv:
                    w.queue.append(("ERROR", E.gone(f"too old resource version: {requested} "
                                                    f"({self.compacted_rv})").status()))
                    w.closed = True
                    return w
                if requested > self.rv:
                    w.queue.append(("ERROR", E.too_large_rv(requested, self.rv).status()))
                    w.closed = True
                    return w
                for ev in self.history:
                    if ev.rv <= requested or ev.rt is not rt:
                        continue
                    item = event_for(flt, ev.type, ev.new, ev.old)
                    if item is not None:
                        w.queue.append(item)
            self.watchers.add(w)
        return w

    def close_watch(self, w: Watcher) -> None:
        with self.lock:
            self.watchers.discard(w)
        with w.cond:
            w.closed = True

    def queue_bookmark(self, w: Watcher) -> None:
        """Queue a BOOKMARK at the current rv behind everything already queued for `w`."""
        with self.lock:
            w.push(("BOOKMARK", self.rv))

    def open_watchers(self) -> list[Watcher]:
        with self.lock:
            return list(self.watchers)

    # ------------------------------------------------------------------ writes
    def _check_type(self, rt: ResourceType, body: Any) -> Json:
        if not isinstance(body, dict):
            raise E.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                f"the body is not a JSON object")
        try:  # a private deep copy; also rejects what JSON (and so HTTP) could not carry
            body = json.loads(DUMPS(body))
        except (TypeError, ValueError) as exc:
            raise E.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                f"not JSON-serialisable: {exc}") from None
        kind, api_version = body.get("kind"), body.get("apiVersion")
        if (kind not in (None, "", rt.kind)) or (api_version not in (None, "", rt.api_version)):
            raise E.bad_request(f"the API version in the data ({api_version}) does not match the expected API "
                                f"version ({rt.api_version})" if api_version not in (None, "", rt.api_version)
                                else f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                     f"the kind in the data ({kind}) does not match ({rt.kind})")
        meta = body.get("metadata")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise E.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                f"metadata must be an object")
        out = with_type(rt, body)
        out["metadata"] = dict(meta)
        return out

    def _check_namespace(self, rt: ResourceType, namespace: str, meta: Json) -> str:
        if not rt.namespaced:
            meta.pop("namespace", None)
            return ""
        body_ns = meta.get("namespace") or ""
        if not namespace:
            namespace = body_ns or "default"
        elif body_ns and body_ns != namespace:
            raise E.bad_request("the namespace of the provided object does not match the namespace sent on the "
                                "request")
        meta["namespace"] = namespace
        return namespace

    def _require_namespace(self, rt: ResourceType, namespace: str) -> None:
        if not rt.namespaced:
            return
        ns_table = next((t for r, t in self.objects.items() if r.kind == "Namespace" and r.group == ""), {})
        ns = ns_table.get(("", namespace))
        if ns is None:
            raise E.make_error(404, "NotFound", f'namespaces "{namespace}" not found',
                               {"name": namespace, "kind": "namespaces"})
        if ns.obj["metadata"].get("deletionTimestamp"):
            raise E.make_error(403, "Forbidden", f"{rt.group_resource} \"{ns.key[1]}\" is forbidden: unable to "
                                                 f"create new content in namespace {namespace} because it is "
                                                 f"being terminated",
                               {"name": namespace, "group": rt.group, "kind": rt.plural,
                                "causes": [{"reason": "NamespaceTerminating",
                                            "message": f"namespace {namespace} is being terminated",
                                            "field": "metadata.namespace"}]})

    def create(self, rt: ResourceType, namespace: str, body: Any, *, dry_run: bool = False) -> StoredObject:
        obj = self._check_type(rt, body)
        meta = obj["metadata"]
        with self.lock:
            namespace = self._check_namespace(rt, namespace, meta)
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = str(meta["generateName"]) + "".join(
                    random.choices(string.ascii_lowercase + string.digits, k=5))
            validate_name(rt, meta.get("name"))
            validate_metadata(rt, obj)
            validate_micro_times(rt, obj)
            obj = validate_and_prune(rt, obj)
            validate_kind(rt, obj)
            self._require_namespace(rt, namespace)
            table = self._table(rt)
            key = (namespace, meta["name"])
            if key in table:
                raise E.already_exists(rt, meta["name"])
            if meta.get("resourceVersion"):
                raise E.ApiError(500, "", "resourceVersion should not be set on objects to be created")
            for f in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
                meta.pop(f, None)
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = now_rfc3339()
            if rt.generation:
                meta["generation"] = 1
            if rt.status_subresource:
                obj.pop("status", None)
            apply_create_defaults(rt, obj, self.alloc)
            if dry_run:
                obj["metadata"]["resourceVersion"] = ""
                return StoredObject(rt, obj, self.rv)
            rv = self._next_rv()
            obj["metadata"]["resourceVersion"] = str(rv)
            so = StoredObject(rt, obj, rv)
            table[key] = so
            self._record(rt, "ADDED", so, None)
            return so

    def update(self, rt: ResourceType, namespace: str, name: str, body: Any, *, subresource: str = "",
               dry_run: bool = False) -> StoredObject:
        obj = self._check_type(rt, body)
        with self.lock:
            old = self.get(rt, namespace, name)
            return self._update_locked(rt, old, obj, subresource=subresource, dry_run=dry_run, require_rv=True)

    def _update_locked(self, rt: ResourceType, old: StoredObject, obj: Json, *, subresource: str,
                       dry_run: bool, require_rv: bool) -> StoredObject:
        meta = obj["metadata"]
        name = old.key[1]
        if meta.get("name") not in (None, "", name):
            raise E.bad_request(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                                f"({name})")
        self._check_namespace(rt, old.key[0], meta)
        given_uid = meta.get("uid") or ""
        if given_uid and given_uid != old_obj_uid(old):
            raise E.conflict(rt, name, f"StorageError: invalid object, Code: 4, Key: {E.storage_key(rt, *old.key)}, "
                                       f"ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                                       f"precondition: {given_uid}, UID in object meta: {old_obj_uid(old)}")
        given_rv = meta.get("resourceVersion") or ""
        if given_rv:
            if given_rv != str(old.rv):
                raise E.conflict(rt, name, E.STALE)
        elif require_rv and not rt.builtin:
            raise E.invalid(rt.plural, name, [("metadata.resourceVersion", "FieldValueInvalid",
                                               "Invalid value: 0: must be specified for an update")], rt.group)
        old_obj = old.obj
        if subresource == "status":
            new = old.copy()
            if "status" in obj:
                new["status"] = obj["status"]
            else:
                new.pop("status", None)
            if rt.kind in ("Service", "Ingress"):
                # their status strategies keep the new object's metadata (a custom resource's resets it)
                for f in ("labels", "annotations", "finalizers", "ownerReferences"):
                    if f in obj["metadata"]:
                        new["metadata"][f] = obj["metadata"][f]
                    else:
                        new["metadata"].pop(f, None)
                validate_load_balancer_status(rt, new)
                apply_status_defaults(rt, new)
            new = validate_and_prune(rt, new)
        else:
            new = obj
            nmeta = new["metadata"]
            ometa = old_obj["metadata"]
            nmeta["name"] = name
            for f in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                      "generation"):
                if f in ometa:
                    nmeta[f] = ometa[f]
                else:
                    nmeta.pop(f, None)
            if rt.status_subresource:
                if "status" in old_obj:
                    new["status"] = old.copy()["status"]
                else:
                    new.pop("status", None)
            new = validate_and_prune(rt, new)  # before the generation check: pruned fields change nothing
            nmeta = new["metadata"]
            validate_metadata(rt, new)
            validate_micro_times(rt, new)
            validate_kind(rt, new)
            check_transition(rt, old_obj, new)
            err = check_no_new_finalizers(rt, name, old_obj, new)
            if err is not None:
                raise err
            apply_update_defaults(rt, new, old_obj, self.alloc)
            if rt.generation and _spec_of(new) != _spec_of(old_obj):
                nmeta["generation"] = int(ometa.get("generation", 1)) + 1
        new["metadata"]["resourceVersion"] = str(old.rv)
        new = with_type(rt, new)
        if new == old_obj:
            return old  # a no-op write: no new rv, no event
        if dry_run:
            return StoredObject(rt, new, old.rv)
        deleting = bool(new["metadata"].get("deletionTimestamp"))
        if deleting and not new["metadata"].get("finalizers") and not _namespace_pending(rt, new):
            return self._remove_locked(rt, old, new)
        rv = self._next_rv()
        new["metadata"]["resourceVersion"] = str(rv)
        so = StoredObject(rt, new, rv)
        self._table(rt)[old.key] = so
        self._record(rt, "MODIFIED", so, old)
        return so

    def patch(self, rt: ResourceType, namespace: str, name: str, content_type: str, patch: Any, *,
              subresource: str = "", dry_run: bool = False) -> StoredObject:
        with self.lock:
            old = self.get(rt, namespace, name)
            current = old.copy()
            ctype = content_type.split(";")[0].strip().lower()
            if ctype == "application/merge-patch+json":
                if not isinstance(patch, dict):
                    raise E.bad_request("merge patch body must be a JSON object")
                patched = merge_patch(current, patch)
            elif ctype == "application/strategic-merge-patch+json":
                if not rt.builtin:
                    raise E.make_error(415, "UnsupportedMediaType",
                                       "the body of the request was in an unknown format - accepted media types "
                                       "include: application/json-patch+json, application/merge-patch+json, "
                                       "application/apply-patch+yaml")
                if not isinstance(patch, dict):
                    raise E.bad_request("strategic merge patch body must be a JSON object")
                patched = strategic_merge_patch(current, patch)
            elif ctype == "application/json-patch+json":
                patched = json_patch(current, patch)
            else:
                raise E.make_error(415, "UnsupportedMediaType",
                                   f"the body of the request was in an unknown format - accepted media types "
                                   f"include: application/json-patch+json, application/merge-patch+json, "
                                   f"application/apply-patch+yaml{'' if not rt.builtin else ', application/strategic-merge-patch+json'}")
            try:  # the real server decodes the patched object: what fails to decode is the patch's fault (422)
                validate_micro_times(rt, patched)
            except E.ApiError as err:
                raise E.patch_invalid(DUMPS(patched), err.message.partition(f"cannot be handled as a {rt.kind}: ")[2]) \
                    from None
            obj = self._check_type(rt, patched)
            # A patch carries a resourceVersion precondition only when it sets one explicitly.
            patch_meta = patch.get("metadata") if isinstance(patch, dict) else None
            if not (isinstance(patch_meta, dict) and patch_meta.get("resourceVersion")) and ctype != \
                    "application/json-patch+json":
                obj["metadata"]["resourceVersion"] = str(old.rv)
            return self._update_locked(rt, old, obj, subresource=subresource, dry_run=dry_run, require_rv=False)

    def delete(self, rt: ResourceType, namespace: str, name: str, *, preconditions: Json | None = None,
               dry_run: bool = False) -> tuple[StoredObject, bool]:
        """Delete or start deleting; returns (object, deleted_now). With finalizers (or a Namespace) the
        object stays with deletionTimestamp set until the finalizers are gone."""
        with self.lock:
            old = self.get(rt, namespace, name)
            meta = old.obj["metadata"]
            pre = preconditions or {}
            if pre.get("uid") and pre["uid"] != meta.get("uid"):
                raise E.precondition_failed(rt, name, "UID", pre["uid"], meta.get("uid"),
                                            "deleted and then recreated")
            if pre.get("resourceVersion") and pre["resourceVersion"] != meta.get("resourceVersion"):
                raise E.precondition_failed(rt, name, "ResourceVersion", pre["resourceVersion"],
                                            meta.get("resourceVersion"), "modified")
            pending = bool(meta.get("finalizers")) or _namespace_pending(rt, old.obj)
            if dry_run:
                return old, not pending
            if not pending:
                return self._remove_locked(rt, old, old.copy()), True
            if meta.get("deletionTimestamp"):
                return old, False
            new = old.copy()
            new["metadata"]["deletionTimestamp"] = now_rfc3339()
            new["metadata"]["deletionGracePeriodSeconds"] = 0
            if rt.generation:
                new["metadata"]["generation"] = int(meta.get("generation", 1)) + 1
            if rt.kind == "Namespace" and rt.group == "":
                new.setdefault("status", {})["phase"] = "Terminating"
            rv = self._next_rv()
            new["metadata"]["resourceVersion"] = str(rv)
            so = StoredObject(rt, new, rv)
            self._table(rt)[old.key] = so
            self._record(rt, "MODIFIED", so, old)
            return so, False

    def _remove_locked(self, rt: ResourceType, old: StoredObject, last: Json) -> StoredObject:
        rv = self._next_rv()
        last["metadata"]["resourceVersion"] = str(rv)
        so = StoredObject(rt, with_type(rt, last), rv)
        del self._table(rt)[old.key]
        self._record(rt, "DELETED", so, old)
        return so

    def delete_silently(self, rt: ResourceType, namespace: str, name: str) -> None:
        """Remove an object with no event and no history entry (the lost-DELETED case)."""
        with self.lock:
            old = self.get(rt, namespace, name)
            del self._table(rt)[old.key]
            self._snapshots.clear()


def old_obj_uid(so: StoredObject) -> str:
    return str(so.obj["metadata"].get("uid", ""))


def _spec_of(obj: Json) -> Json:
    return {k: v for k, v in obj.items() if k not in _NOT_SPEC}


def _is_core(rt: ResourceType, kind: str) -> bool:
    return rt.group == "" and rt.kind == kind


def _namespace_pending(rt: ResourceType, obj: Json) -> bool:
    """Namespaces never finish deleting here: no namespace controller runs behind this server."""
    return _is_core(rt, "Namespace")


def _bisect_after(items: list[StoredObject], start: str) -> int:
    """Index of the first item whose key string is >= `start` (items are sorted by key)."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if key_str(items[mid].key) < start:
            lo = mid + 1
        else:
            hi = mid
    return lo
