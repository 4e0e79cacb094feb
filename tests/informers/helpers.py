"""Helpers for the informer integration tests: a handler that replays its events into a model (so a test
can check each handler saw a consistent add/update/delete sequence), waiting, and object builders."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from external_dns.informers import DeletedFinalStateUnknown, SharedIndexInformer, deletion_handling_key
from external_dns.informers.keys import resource_version
from tests.kubeapi.server import KubeAPIServer


class ModelHandler:
    """Applies events to `model` (key -> rv) and records violations of the handler contract:
    an add for a key already known, an update or delete for an unknown key, a non-increasing rv."""

    def __init__(self) -> None:
        self.model: dict[str, str] = {}
        self.events: list[tuple[str, str, str]] = []
        self.violations: list[str] = []
        self.tombstones: list[DeletedFinalStateUnknown] = []
        self.cond = threading.Condition()

    def _note(self, kind: str, key: str, rv: str) -> None:
        self.events.append((kind, key, rv))
        self.cond.notify_all()

    def on_add(self, obj: dict[str, Any]) -> None:
        key, rv = deletion_handling_key(obj), resource_version(obj)
        with self.cond:
            if key in self.model:
                self.violations.append(f"add for known key {key}")
            self.model[key] = rv
            self._note("add", key, rv)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        key, rv = deletion_handling_key(new), resource_version(new)
        with self.cond:
            if key not in self.model:
                self.violations.append(f"update for unknown key {key}")
            elif self.model[key] != resource_version(old):
                self.violations.append(f"update of {key}: old rv {resource_version(old)} != seen {self.model[key]}")
            if rv != resource_version(old) and int(rv) <= int(resource_version(old)):
                self.violations.append(f"update of {key} went back: {resource_version(old)} -> {rv}")
            self.model[key] = rv
            self._note("update", key, rv)

    def on_delete(self, obj: Any) -> None:
        key = deletion_handling_key(obj)
        with self.cond:
            if key not in self.model:
                self.violations.append(f"delete for unknown key {key}")
            self.model.pop(key, None)
            if isinstance(obj, DeletedFinalStateUnknown):
                self.tombstones.append(obj)
            self._note("delete", key, resource_version(obj))

    def wait(self, predicate: Callable[[ModelHandler], bool], timeout: float = 10.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: predicate(self), timeout)


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    """Poll `predicate` (for state that has no condition variable to wait on, like the server's request log)."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        pause.wait(step)
    return True


def service(name: str, ns: str = "default", labels: dict[str, str] | None = None,
            annotations: dict[str, str] | None = None, port: int = 80) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta,
            "spec": {"type": "ClusterIP", "ports": [{"name": "http", "port": port, "protocol": "TCP"}]}}


def server_state(kubeapi: KubeAPIServer, ns: str | None = None) -> dict[str, str]:
    out = {}
    for obj in kubeapi.list("v1", "Service", ns):
        meta = obj["metadata"]
        out[f"{meta['namespace']}/{meta['name']}"] = meta["resourceVersion"]
    return out


def cache_state(informer: SharedIndexInformer) -> dict[str, str]:
    return {key: resource_version(obj) for key, obj in informer.get_store().items()}


def watch_requests(kubeapi: KubeAPIServer) -> list[dict[str, str]]:
    return [q for (m, _p, q, _s) in kubeapi.requests if q.get("watch") in ("true", "True", "1")]


def list_requests(kubeapi: KubeAPIServer) -> list[dict[str, str]]:
    return [q for (m, _p, q, _s) in kubeapi.requests if q.get("watch") not in ("true", "True", "1")]
