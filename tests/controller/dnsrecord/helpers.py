"""Helpers for the DNSRecord controller tests: records on the test API server, a zone-file provider, a
reconciler reading the server directly (the informer cache stand-in) with a fake wall clock."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.kubeapi.server import KubeAPIServer

START = 1_800_000_000.0  # 2027-01-15, whole seconds


def record(name: str, root: str, endpoints: list[dict[str, Any]], *, namespace: str = "default",
           owner: str | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND,
                            "metadata": {"name": name, "namespace": namespace},
                            "spec": {"rootHost": root, "endpoints": endpoints, **spec}}
    if owner is not None:
        body["spec"]["ownerID"] = owner
    return body


def a_record(name: str, *targets: str, ttl: int = 300) -> dict[str, Any]:
    return {"dnsName": name, "recordType": "A", "targets": list(targets), "recordTTL": ttl}


def zonefile(tmp_path: Path, *zones: str) -> ZoneFileProvider:
    directory = tmp_path / "zones"
    directory.mkdir(exist_ok=True)
    return ZoneFileProvider(str(directory), create_zones=zones or ("example.com",))


def get(kubeapi: KubeAPIServer, name: str, namespace: str = "default") -> dict[str, Any] | None:
    return kubeapi.get(API_VERSION, KIND, namespace, name)


def reconciler(kubeapi: KubeAPIServer, api_client: Any, provider: Provider, clock: FakeClock,
               options: Options | None = None, seed: int = 1) -> Reconciler:
    def cached(key: str) -> dict[str, Any] | None:
        namespace, _, name = key.partition("/")
        return get(kubeapi, name, namespace)

    return Reconciler(provider, RecordAPI(api_client), cached, options or Options(), clock=clock,
                      rng=random.Random(seed))


def find(provider: Provider, name: str, rtype: str = "A") -> Endpoint | None:
    for ep in provider.records():
        if ep.dns_name == name and ep.record_type == rtype:
            return ep
    return None


def overwrite(provider: Provider, name: str, target: str) -> None:
    """An outside tool rewrites the A record `name` (no ownership involved)."""
    current = find(provider, name)
    assert current is not None, f"{name} A not in the provider"
    new = current.copy()
    new.targets = type(current.targets)([target])
    provider.apply_changes(Changes(update_old=[current], update_new=[new]))


def ready(obj: dict[str, Any] | None) -> dict[str, Any]:
    assert obj is not None
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            return dict(cond)
    raise AssertionError(f"no Ready condition in {obj.get('status')}")


class CountingProvider(Provider):
    """Wraps a provider and counts `records()` / `apply_changes()` calls."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.reads = 0
        self.writes = 0

    def records(self) -> list[Endpoint]:
        self.reads += 1
        return self.inner.records()

    def apply_changes(self, changes: Changes) -> None:
        self.writes += 1
        self.inner.apply_changes(changes)

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        return self.inner.adjust_endpoints(endpoints)

    def get_domain_filter(self) -> Any:
        return self.inner.get_domain_filter()

    def zones(self) -> Any:
        return self.inner.zones()

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        """Counted as a read: the DNSRecord controller reads its zone's snapshot."""
        self.reads += 1
        return self.inner.zone_snapshot(zone)
