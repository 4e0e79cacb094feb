"""Fixtures for the informer tests: object builders, a thread-leak guard, an unreachable API client."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest


def _informer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("informer-") and t.is_alive()]


@pytest.fixture(autouse=True)
def no_leaked_informer_threads() -> Iterator[None]:
    """Every test must stop the informer threads it started."""
    before = set(_informer_threads())
    yield
    deadline = time.monotonic() + 5.0
    leaked = [t for t in _informer_threads() if t not in before]
    while leaked and time.monotonic() < deadline:
        leaked[0].join(0.1)
        leaked = [t for t in _informer_threads() if t not in before]
    assert not leaked, f"informer threads left running: {[t.name for t in leaked]}"


def svc(name: str, ns: str = "default", rv: str = "1", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns, "resourceVersion": rv}
    meta.update(extra.pop("metadata", {}))
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Service", "metadata": meta,
                           "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}}
    obj.update(extra)
    return obj


class UnreachableApi:
    """An ApiClient stand-in whose every request is refused: the reflector only backs off, so a test can
    drive the informer through its sink methods (`replace`, `apply`)."""

    def __init__(self) -> None:
        self.calls = 0

    def call_api(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise ConnectionRefusedError("connection refused (test)")
