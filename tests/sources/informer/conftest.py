"""Fixtures for the in-cluster source tests: a SharedInformerFactory on the test API server (shut down and
checked for leaked threads afterwards), object builders and a condition-based waiter on source events."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import kubernetes.client
import pytest

from external_dns.informers import SharedInformerFactory
from tests.kubeapi.server import KubeAPIServer

PREFIX = "external-dns.kubernetes.io/"


@pytest.fixture
def factory(kube_api_client: kubernetes.client.ApiClient) -> Iterator[SharedInformerFactory]:
    before = {t.ident for t in threading.enumerate()}
    f = SharedInformerFactory(kube_api_client)
    try:
        yield f
    finally:
        assert f.shutdown(10.0), "informer threads did not stop"
        leaked = [t.name for t in threading.enumerate() if t.ident not in before and t.name.startswith("informer")]
        assert not leaked, f"leaked threads: {leaked}"


class Waiter:
    """Counts source events; `until(predicate)` re-checks after every event (bounded by `timeout`)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.count = 0

    def __call__(self) -> None:
        with self.cond:
            self.count += 1
            self.cond.notify_all()

    def until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.cond.wait(min(remaining, 0.5))
            return True


@pytest.fixture
def waiter() -> Waiter:
    return Waiter()


def service(name: str, *, hostname: str | None = None, svc_type: str = "LoadBalancer", namespace: str = "default",
            annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None,
            spec: dict[str, Any] | None = None) -> dict[str, Any]:
    ann = dict(annotations or {})
    if hostname is not None:
        ann[PREFIX + "hostname"] = hostname
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "annotations": ann}
    if labels:
        meta["labels"] = labels
    body: dict[str, Any] = {"type": svc_type, "ports": [{"port": 80, "name": "http"}]}
    body.update(spec or {})
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": body}


def create_with_status(server: KubeAPIServer, obj: dict[str, Any]) -> dict[str, Any]:
    """Create `obj`, then write its `status` through the status subresource (create ignores it)."""
    status = obj.pop("status", None)
    created = server.create(obj)
    if status is not None:
        created["status"] = status
        created = server.update_status(created)
    return created


def set_lb_status(server: KubeAPIServer, name: str, *ingress: dict[str, str], namespace: str = "default") -> None:
    obj = server.get("v1", "Service", namespace, name)
    assert obj is not None
    obj["status"] = {"loadBalancer": {"ingress": list(ingress)}}
    server.update_status(obj)


def lb_service(server: KubeAPIServer, name: str, hostname: str, ip: str, **kw: Any) -> None:
    server.create(service(name, hostname=hostname, **kw))
    set_lb_status(server, name, {"ip": ip}, namespace=kw.get("namespace", "default"))


def ingress(name: str, *, hosts: list[str] = (), tls_hosts: list[str] = (), class_name: str | None = None,  # type: ignore[assignment]
            annotations: dict[str, str] | None = None, namespace: str = "default") -> dict[str, Any]:
    spec: dict[str, Any] = {"rules": [{"host": h} for h in hosts]}
    if tls_hosts:
        spec["tls"] = [{"hosts": list(tls_hosts)}]
    if class_name:
        spec["ingressClassName"] = class_name
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": name, "namespace": namespace, "annotations": dict(annotations or {})},
            "spec": spec}


def dnsendpoint(name: str, *endpoints: dict[str, Any], namespace: str = "default",
                labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint", "metadata": meta,
            "spec": {"endpoints": list(endpoints)}}


def names(endpoints: list[Any]) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): sorted(e.targets) for e in endpoints}
