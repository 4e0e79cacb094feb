"""The two servers the conformance tests run against, behind one small interface (fixture `k`):

- `test`: this project's own server (tests/kubeapi), a fresh store per test, namespace "default";
- `real`: the real kube-apiserver + etcd of tests/realkube, shared by the session, each test in a namespace
  of its own (`k.ns`) and naming further namespaces through `k.namespace("other")`.

Objects are written over HTTP as the admin on both (`k.create`, `k.patch`, ...), so a difference between the
servers shows up as a failing test of one parametrisation. `k.rv()` is the server's current resourceVersion
(the real server's is etcd's revision, which the server's own writes also move: tests compare with it only
where nothing else can write in between, or with `>=`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer
from tests.realkube.control_plane import ControlPlane


class Target:
    real = False

    def __init__(self, raw: RawClient, ns: str) -> None:
        self.raw = raw
        self.ns = ns
        self.SVC = f"/api/v1/namespaces/{ns}/services"
        self.LEASES = f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
        self.DNSEP = f"/apis/externaldns.k8s.io/v1alpha1/namespaces/{ns}/dnsendpoints"
        self.INGRESSES = f"/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
        self.DNSREC = f"/apis/kuadrant.io/v1alpha1/namespaces/{ns}/dnsrecords"

    def nspath(self, rest: str, ns: str | None = None) -> str:
        """`/api/v1/namespaces/<ns>/<rest>` (core group) in the test's namespace."""
        return f"/api/v1/namespaces/{ns or self.ns}/{rest}"

    def gpath(self, group_version: str, rest: str, ns: str | None = None) -> str:
        return f"/apis/{group_version}/namespaces/{ns or self.ns}/{rest}"

    def namespace(self, name: str) -> str:
        """Create a further namespace for this test and return its name."""
        raise NotImplementedError

    def _obj_path(self, api_version: str, plural: str, namespace: str | None, name: str = "") -> str:
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        if namespace:
            base += f"/namespaces/{namespace}"
        return f"{base}/{plural}" + (f"/{name}" if name else "")

    def create(self, obj: dict[str, Any], plural: str | None = None) -> dict[str, Any]:
        obj = json.loads(json.dumps(obj))
        meta = obj.setdefault("metadata", {})
        plural = plural or _PLURALS[obj["kind"]]
        namespaced = obj["kind"] not in _CLUSTER_KINDS
        if namespaced:
            meta.setdefault("namespace", self.ns)
        r = self.raw.request("POST", self._obj_path(obj.get("apiVersion", "v1"), plural,
                                                    meta.get("namespace") if namespaced else None), obj)
        assert r.status == 201, (r.status, r.body[:500])
        out: dict[str, Any] = r.json
        return out

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        r = self.raw.get(self._obj_path(api_version, _PLURALS[kind], namespace, name))
        if r.status == 404:
            return None
        assert r.status == 200, (r.status, r.body[:500])
        out: dict[str, Any] = r.json
        return out

    def patch(self, api_version: str, kind: str, namespace: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        r = self.raw.request("PATCH", self._obj_path(api_version, _PLURALS[kind], namespace, name), patch,
                             "application/merge-patch+json")
        assert r.status == 200, (r.status, r.body[:500])
        out: dict[str, Any] = r.json
        return out

    def delete(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        r = self.raw.request("DELETE", self._obj_path(api_version, _PLURALS[kind], namespace, name))
        assert r.status in (200, 202), (r.status, r.body[:500])
        out: dict[str, Any] = r.json
        return out

    def rv(self) -> int:
        raise NotImplementedError

    def next_rv(self, before: int, rv: str) -> bool:
        """Is `rv` the resourceVersion of the first write after `before`? The test server counts writes; the
        real server's etcd revision also moves with the server's own writes (its lease), so there: later."""
        return int(rv) > before if self.real else int(rv) == before + 1

    def compact(self) -> int:
        """Compact history at the current revision and return it."""
        raise NotImplementedError

    def watch_until_now(self, path: str) -> list[dict[str, Any]]:
        """Every event a watch on `path` (with watch=true) delivers for what happened up to now."""
        raise NotImplementedError


_PLURALS = {"Service": "services", "Lease": "leases", "DNSEndpoint": "dnsendpoints", "Ingress": "ingresses",
            "DNSRecord": "dnsrecords", "Namespace": "namespaces", "Node": "nodes", "Pod": "pods",
            "EndpointSlice": "endpointslices", "Secret": "secrets", "ConfigMap": "configmaps", "Event": "events"}
_CLUSTER_KINDS = {"Namespace", "Node"}


class TestTarget(Target):
    def __init__(self, server: KubeAPIServer, raw: RawClient) -> None:
        super().__init__(raw, "default")
        self.server = server

    def namespace(self, name: str) -> str:
        self.server.ensure_namespace(name)
        return name

    def rv(self) -> int:
        return self.server.resource_version

    def compact(self) -> int:
        self.server.compact()
        return self.server.resource_version

    def watch_until_now(self, path: str) -> list[dict[str, Any]]:
        # a requested BOOKMARK is queued behind every event sent so far
        sep = "&" if "?" in path else "?"
        with self.raw.watch(f"{path}{sep}allowWatchBookmarks=true&timeoutSeconds=30") as w:
            assert w.status == 200
            self.server.send_bookmarks()
            events: list[dict[str, Any]] = []
            while True:
                ev = w.next_event()
                assert ev is not None, "stream ended before the requested bookmark"
                if ev["type"] == "BOOKMARK":
                    assert int(ev["object"]["metadata"]["resourceVersion"]) == self.server.resource_version
                    return events
                events.append(ev)


class RealTarget(Target):
    real = True

    def __init__(self, plane: ControlPlane, ns: str, raw: RawClient) -> None:
        super().__init__(raw, ns)
        self.plane = plane

    def namespace(self, name: str) -> str:
        full = f"{self.ns[:40]}-{name}"
        self.plane.create_namespace(full)
        return full

    def rv(self) -> int:
        return self.plane.etcd_revision()

    def compact(self) -> int:
        return self.plane.compact()

    def watch_until_now(self, path: str) -> list[dict[str, Any]]:
        # no on-demand bookmark on a real server: a short watch delivers the replay, then ends
        sep = "&" if "?" in path else "?"
        with self.raw.watch(f"{path}{sep}timeoutSeconds=1") as w:
            assert w.status == 200, w.status
            return list(w.events())


def make_target(request: pytest.FixtureRequest, kind: str) -> Iterator[Target]:
    if kind == "test":
        server: KubeAPIServer = request.getfixturevalue("kubeapi")
        with RawClient(server.url) as raw:
            yield TestTarget(server, raw)
    else:
        plane: ControlPlane = request.getfixturevalue("realkube")
        ns: str = request.getfixturevalue("realkube_namespace")
        with RawClient(plane.url, ssl_context=plane.ssl_context()) as raw:
            yield RealTarget(plane, ns, raw)


BOTH = [pytest.param("test", id="test-server"), pytest.param("real", id="real-server", marks=pytest.mark.realkube)]


def q(value: str) -> str:
    return quote(value, safe="")

