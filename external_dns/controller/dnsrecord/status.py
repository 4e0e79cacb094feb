"""DNSRecord writes to the Kubernetes API: the status subresource with optimistic concurrency, and the
finalizer, as raw JSON through `ApiClient.call_api`.

`RecordAPI(api_client)`: `get`, `put_status` (PUT .../status carrying the resourceVersion read), and
`set_finalizers` (a JSON merge patch carrying the resourceVersion read as a precondition). A 409 raises
`ConflictError`, a 404 on a write `GoneError`.

`StatusWriter.write(obj, status)` writes `status` over the object `obj` as read at the start of the
reconcile. Nothing is sent when the status is unchanged. On a 409 it re-reads: when the status there is
still the one the reconcile started from (only metadata or spec moved on), it retries on the fresh object;
when somebody wrote a newer status, it gives up (returns None) and never overwrites it; the caller requeues.

`set_condition` keeps `lastTransitionTime` while the condition's status stays the same (metav1 semantics).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import structlog
from kubernetes.client.exceptions import ApiException

from external_dns.controller.dnsrecord.clock import format_time
from external_dns.controller.dnsrecord.types import RESOURCE
from external_dns.informers.api import call_json

log = structlog.get_logger(__name__)

Obj = dict[str, Any]
DEFAULT_TIMEOUT = 10.0
MAX_CONFLICT_RETRIES = 5


class ConflictError(Exception):
    """409 Conflict: the object changed since it was read."""


class GoneError(Exception):
    """404 Not Found on a write: the object was deleted meanwhile."""


class RecordAPI:
    """Raw JSON reads and writes of DNSRecords (every call has a timeout)."""

    def __init__(self, api_client: Any, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.api = api_client
        self.timeout = timeout

    def _path(self, namespace: str, name: str, sub: str = "") -> str:
        return f"{RESOURCE.path(namespace)}/{name}" + (f"/{sub}" if sub else "")

    def _call(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Obj:
        try:
            parsed = call_json(self.api, method, path, body, timeout=self.timeout, content_type=content_type)
        except ApiException as exc:
            if exc.status == 409:
                raise ConflictError(str(exc.body or exc.reason or "conflict")) from exc
            if exc.status == 404 and method != "GET":
                raise GoneError(path) from exc
            raise
        if not isinstance(parsed, dict):
            raise ValueError(f"{method} {path}: unexpected response {parsed!r:.200}")
        return parsed

    def get(self, namespace: str, name: str) -> Obj | None:
        try:
            return self._call("GET", self._path(namespace, name))
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def put_status(self, obj: Mapping[str, Any]) -> Obj:
        meta = obj.get("metadata") or {}
        return self._call("PUT", self._path(str(meta.get("namespace", "")), str(meta.get("name", "")), "status"),
                          dict(obj))

    def set_finalizers(self, obj: Mapping[str, Any], finalizers: list[str]) -> Obj:
        meta = obj.get("metadata") or {}
        patch = {"metadata": {"finalizers": finalizers, "resourceVersion": meta.get("resourceVersion")}}
        return self._call("PATCH", self._path(str(meta.get("namespace", "")), str(meta.get("name", ""))), patch,
                          "application/merge-patch+json")


def set_condition(conditions: list[Obj], ctype: str, status: bool, reason: str, message: str, generation: int,
                  now: float) -> list[Obj]:
    """`conditions` with `ctype` set (a new list; the other conditions kept in order)."""
    text = "True" if status else "False"
    out: list[Obj] = []
    found = False
    for cond in conditions:
        if cond.get("type") != ctype:
            out.append(cond)
            continue
        found = True
        since = cond.get("lastTransitionTime") if cond.get("status") == text else None
        out.append({"type": ctype, "status": text, "reason": reason, "message": message,
                    "observedGeneration": generation, "lastTransitionTime": since or format_time(now)})
    if not found:
        out.append({"type": ctype, "status": text, "reason": reason, "message": message,
                    "observedGeneration": generation, "lastTransitionTime": format_time(now)})
    return out


def remove_condition(conditions: list[Obj], ctype: str) -> list[Obj]:
    return [c for c in conditions if c.get("type") != ctype]


def get_condition(status: Mapping[str, Any], ctype: str) -> Mapping[str, Any] | None:
    for cond in status.get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == ctype:
            return cond
    return None


class StatusWriter:
    """Status writes with optimistic concurrency (see the module docstring)."""

    def __init__(self, api: RecordAPI) -> None:
        self.api = api
        self.writes = 0
        self.conflicts = 0

    def write(self, obj: Mapping[str, Any], status: Obj) -> Obj | None:
        """The object after the write (`obj` itself when nothing changed); None when the object is gone or a
        newer status was written meanwhile."""
        base = obj
        started_from = obj.get("status") or {}
        for _attempt in range(MAX_CONFLICT_RETRIES):
            if (base.get("status") or {}) == status:
                return dict(base)
            body = copy.deepcopy(dict(base))
            body["status"] = status
            try:
                written = self.api.put_status(body)
            except GoneError:
                return None
            except ConflictError:
                self.conflicts += 1
                meta = base.get("metadata") or {}
                fresh = self.api.get(str(meta.get("namespace", "")), str(meta.get("name", "")))
                if fresh is None:
                    return None
                if (fresh.get("status") or {}) != started_from:
                    log.info("DNSRecord status changed by another writer, not overwriting it",
                             record=f"{meta.get('namespace')}/{meta.get('name')}")
                    return None
                base = fresh
                continue
            self.writes += 1
            return written
        meta = obj.get("metadata") or {}
        raise ConflictError(f"DNSRecord {meta.get('namespace')}/{meta.get('name')}: status write conflicted "
                            f"{MAX_CONFLICT_RETRIES} times")
