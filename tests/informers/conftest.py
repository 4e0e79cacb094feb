"""Fixtures for the informer tests: object builders, a thread-leak guard, an unreachable API client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import kubernetes
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


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def UnreachableApi() -> kubernetes.client.ApiClient:
    """A real ApiClient for a port nobody listens on: every request is refused, so the reflector only backs
    off and a test can drive the informer through its sink methods (`replace`, `apply`)."""
    configuration = kubernetes.client.Configuration()
    configuration.host = f"http://127.0.0.1:{_closed_port()}"
    return kubernetes.client.ApiClient(configuration)
