"""The Kubernetes side of the differential tests: the objects a scenario puts on the API server, written the
way a cluster's own controllers would (status through `/status`), behind one small interface served by the
real kube-apiserver (tests/realkube) and by the project's test server (tests/kubeapi).

Each scenario has a namespace of its own and both programs run with `--namespace` set to it, so objects left by
other tests of the session are never read. Nodes are cluster-scoped: a scenario deletes the ones it made.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Protocol

Obj = dict[str, Any]


class Cluster(Protocol):
    """What a scenario needs from an API server."""

    def create(self, obj: Obj) -> Obj: ...

    def update_status(self, obj: Obj) -> Obj: ...

    def delete(self, obj: Obj) -> None: ...

    def get(self, obj: Obj) -> Obj | None: ...

    def create_namespace(self, name: str) -> None: ...

    def write_kubeconfig(self, path: Path, namespace: str) -> str: ...


class RealCluster:
    """The real kube-apiserver (tests/realkube's ControlPlane) seen through `Cluster`."""

    def __init__(self, plane: Any) -> None:
        self.plane = plane

    def create(self, obj: Obj) -> Obj:
        out: Obj = self.plane.create(copy.deepcopy(obj))
        return out

    def update_status(self, obj: Obj) -> Obj:
        out: Obj = self.plane.update_status(obj)
        return out

    def delete(self, obj: Obj) -> None:
        self.plane.delete(obj)

    def get(self, obj: Obj) -> Obj | None:
        out: Obj | None = self.plane.get(obj)
        return out

    def create_namespace(self, name: str) -> None:
        if self.plane.request("GET", f"/api/v1/namespaces/{name}").status != 200:
            self.plane.create_namespace(name)

    def write_kubeconfig(self, path: Path, namespace: str) -> str:
        out: str = self.plane.write_kubeconfig(path, namespace=namespace)
        return out


class TestServerCluster:
    """tests/kubeapi's in-process server seen through `Cluster`."""

    __test__ = False  # not a pytest class

    def __init__(self, server: Any) -> None:
        self.server = server

    def create(self, obj: Obj) -> Obj:
        out: Obj = self.server.create(copy.deepcopy(obj))
        return out

    def update_status(self, obj: Obj) -> Obj:
        out: Obj = self.server.update_status(copy.deepcopy(obj))
        return out

    def delete(self, obj: Obj) -> None:
        meta = obj["metadata"]
        if self.get(obj) is not None:
            self.server.delete(obj["apiVersion"], obj["kind"], meta.get("namespace", ""), meta["name"])

    def get(self, obj: Obj) -> Obj | None:
        meta = obj["metadata"]
        out: Obj | None = self.server.get(obj["apiVersion"], obj["kind"], meta.get("namespace", ""), meta["name"])
        return out

    def create_namespace(self, name: str) -> None:
        self.server.ensure_namespace(name)

    def write_kubeconfig(self, path: Path, namespace: str) -> str:
        out: str = self.server.write_kubeconfig(path)
        return out


def put(cluster: Cluster, obj: Obj) -> Obj:
    """Create `obj`; a `status` it carries is then written through the status subresource, as the controller
    that owns it would (a create ignores status)."""
    created = cluster.create(obj)
    if obj.get("status"):
        created["status"] = copy.deepcopy(obj["status"])
        created = cluster.update_status(created)
    return created


def replace(cluster: Cluster, obj: Obj) -> Obj:
    """Change an object: delete and create it again (simplest across servers; an informer sees both)."""
    cluster.delete(obj)
    return put(cluster, obj)
