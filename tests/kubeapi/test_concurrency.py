"""Concurrent writers and watchers against the test API server: optimistic concurrency holds under contention,
every committed write reaches every watch exactly once and in rv order, and connections are not leaked."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.kubeapi.errors import ApiConflict
from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

SVC = "/api/v1/namespaces/default/services"
WRITERS = 6
INCREMENTS = 25


def test_conflicting_writers_lose_no_update(kubeapi: KubeAPIServer) -> None:
    kubeapi.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ctr", "annotations": {"n": "0"}},
                    "spec": {"ports": [{"port": 80}]}})
    start = kubeapi.resource_version
    conflicts = [0] * WRITERS
    errors: list[BaseException] = []

    def writer(idx: int) -> None:
        try:
            with RawClient(kubeapi.url) as raw:
                done = 0
                while done < INCREMENTS:
                    obj = raw.get(f"{SVC}/ctr").json
                    obj["metadata"]["annotations"]["n"] = str(int(obj["metadata"]["annotations"]["n"]) + 1)
                    r = raw.request("PUT", f"{SVC}/ctr", obj)
                    if r.status == 409:
                        conflicts[idx] += 1
                        continue
                    assert r.status == 200, r.body
                    done += 1
        except BaseException as exc:
            errors.append(exc)

    with RawClient(kubeapi.url, timeout=30) as raw, \
            raw.watch(f"{SVC}?watch=true&resourceVersion={start}&timeoutSeconds=60") as w:
        assert kubeapi.wait_for_watches(1)
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        total = WRITERS * INCREMENTS
        seen: list[int] = []
        values: list[int] = []
        while len(seen) < total:
            ev = w.next_event()
            assert ev is not None and ev["type"] == "MODIFIED"
            seen.append(int(ev["object"]["metadata"]["resourceVersion"]))
            values.append(int(ev["object"]["metadata"]["annotations"]["n"]))
    final = kubeapi.get("v1", "Service", "default", "ctr")
    assert final is not None and final["metadata"]["annotations"]["n"] == str(total)
    assert seen == sorted(seen) and len(set(seen)) == total
    assert values == list(range(1, total + 1))
    assert sum(conflicts) > 0  # the contention was real


def test_direct_update_conflict_under_threads(kubeapi: KubeAPIServer) -> None:
    base = kubeapi.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
                           "spec": {"holderIdentity": "nobody"}})
    winners: list[str] = []
    barrier = threading.Barrier(8)

    def grab(name: str) -> None:
        mine: dict[str, Any] = {**base, "spec": {"holderIdentity": name}}
        barrier.wait(5)
        try:
            kubeapi.update(mine)
            winners.append(name)
        except ApiConflict:
            pass

    threads = [threading.Thread(target=grab, args=(f"c{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(winners) == 1
    lease = kubeapi.get("coordination.k8s.io/v1", "Lease", "default", "l")
    assert lease is not None and lease["spec"]["holderIdentity"] == winners[0]


def test_closed_clients_leave_no_connections() -> None:
    # A server of its own: the session server also counts other tests' keep-alive clients, which close when their
    # test's teardown or the garbage collector gets to them (seen still open when this test starts), so a count
    # of zero there was a race with the rest of the suite rather than a property of these clients.
    with KubeAPIServer() as api:
        clients = [RawClient(api.url) for _ in range(10)]
        for c in clients:
            assert c.get("/version").status == 200
        assert api.connection_count == 10
        for c in clients:
            c.close()
        assert api.wait_for_connections(0)
        assert api.connection_count == 0
