"""Fault injection of the test API server: cut/silenced watches, queued 500/429, compaction, lost deletes,
malformed lines, restart on the same port, and clean shutdown with open watches."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from typing import Any

import kubernetes.client as kc
import pytest
import urllib3
from kubernetes import watch
from kubernetes.client.rest import ApiException

from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

SVC = "/api/v1/namespaces/default/services"


def svc(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}


def wait_for(cond: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_cut_watches_aborts_mid_stream(kubeapi: KubeAPIServer) -> None:
    kubeapi.create(svc("a"))
    with RawClient(kubeapi.url) as raw, raw.watch(f"{SVC}?watch=true&timeoutSeconds=30") as w:
        ev = w.next_event()
        assert ev is not None and ev["type"] == "ADDED"
        assert kubeapi.wait_for_watches(1)
        assert kubeapi.cut_watches() == 1
        with pytest.raises((http.client.IncompleteRead, ConnectionError, http.client.HTTPException)):
            w.next_line()
    wait_for(lambda: kubeapi.open_watch_count == 0)


def test_cut_watches_seen_by_kubernetes_client(kubeapi: KubeAPIServer, kube_api_client: kc.ApiClient) -> None:
    api = kc.CoreV1Api(kube_api_client)
    errors: list[BaseException] = []
    started = threading.Event()

    def run() -> None:
        try:
            for _ev in watch.Watch().stream(api.list_namespaced_service, "default", timeout_seconds=30,
                                            _request_timeout=(5, 30)):
                started.set()
        except BaseException as exc:
            errors.append(exc)

    kubeapi.create(svc("a"))
    t = threading.Thread(target=run)
    t.start()
    assert started.wait(5)
    kubeapi.cut_watches()
    t.join(5)
    assert not t.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], urllib3.exceptions.ProtocolError)


def test_silence_watches_triggers_client_read_timeout(kubeapi: KubeAPIServer) -> None:
    rv = kubeapi.resource_version
    with RawClient(kubeapi.url, timeout=0.5) as raw, \
            raw.watch(f"{SVC}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=30") as w:
        assert kubeapi.wait_for_watches(1)
        assert kubeapi.silence_watches(5) == 1
        kubeapi.create(svc("held"))
        kubeapi.send_bookmarks()
        with pytest.raises(TimeoutError):
            w.next_line()
    # the server notices the client went away and closes its side
    wait_for(lambda: kubeapi.open_watch_count == 0)


def test_silenced_events_are_held_not_lost(kubeapi: KubeAPIServer) -> None:
    rv = kubeapi.resource_version
    with RawClient(kubeapi.url, timeout=5) as raw, raw.watch(f"{SVC}?watch=true&resourceVersion={rv}&timeoutSeconds=30") as w:
        assert kubeapi.wait_for_watches(1)
        kubeapi.silence_watches(0.5)
        t0 = time.monotonic()
        kubeapi.create(svc("held"))
        ev = w.next_event()
        assert time.monotonic() - t0 >= 0.4
        assert ev is not None and ev["object"]["metadata"]["name"] == "held"


def test_fail_next_500_then_recover(kubeapi: KubeAPIServer) -> None:
    kubeapi.fail_next(2)
    with RawClient(kubeapi.url) as raw:
        for _ in range(2):
            r = raw.get(SVC)
            assert r.status == 500
            assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": "Internal error occurred: injected fault", "reason": "InternalError",
                              "code": 500}
        assert raw.get(SVC).status == 200


def test_fail_next_429_retry_after_and_path_filter(kubeapi: KubeAPIServer) -> None:
    kubeapi.fail_next(1, status=429, retry_after=3, path_contains="/services")
    with RawClient(kubeapi.url) as raw:
        assert raw.get("/api/v1/namespaces").status == 200
        r = raw.get(SVC)
        assert r.status == 429
        assert r.headers["retry-after"] == "3"
        assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": "Too many requests, please try again later.", "reason": "TooManyRequests",
                          "details": {"retryAfterSeconds": 3}, "code": 429}
        assert raw.get(SVC).status == 200
    assert [s for _m, _p, _q, s in kubeapi.requests] == [200, 429, 200]


def test_fail_next_reaches_kubernetes_client(kubeapi: KubeAPIServer, kube_api_client: kc.ApiClient) -> None:
    api = kc.CoreV1Api(kube_api_client)
    kubeapi.fail_next(1, status=429)
    with pytest.raises(ApiException) as exc:
        api.list_namespaced_service("default")
    assert exc.value.status == 429
    kubeapi.fail_next(1, status=500)
    with pytest.raises(ApiException) as exc:
        api.list_namespaced_service("default")
    assert exc.value.status == 500
    # urllib3 (under the kubernetes client) honours Retry-After on 429 by itself and retries once
    kubeapi.clear_requests()
    kubeapi.fail_next(1, status=429, retry_after=1)
    assert api.list_namespaced_service("default").items == []
    assert [s for _m, _p, _q, s in kubeapi.requests] == [429, 200]


def test_compact_forces_410_for_client_watch(kubeapi: KubeAPIServer, kube_api_client: kc.ApiClient) -> None:
    api = kc.CoreV1Api(kube_api_client)
    kubeapi.create(svc("a"))
    rv = api.list_namespaced_service("default").metadata.resource_version
    kubeapi.compact()
    with pytest.raises(ApiException) as exc:
        for _ev in watch.Watch().stream(api.list_namespaced_service, "default", resource_version=rv,
                                        timeout_seconds=5):
            pass
    assert exc.value.status == 410
    # relisting gives an rv that can be watched from
    rv2 = api.list_namespaced_service("default").metadata.resource_version
    assert int(rv2) > int(rv)
    assert list(watch.Watch().stream(api.list_namespaced_service, "default", resource_version=rv2,
                                     timeout_seconds=1)) == []


def test_delete_silently_sends_no_event(kubeapi: KubeAPIServer) -> None:
    kubeapi.create(svc("a"))
    kubeapi.create(svc("b"))
    rv = kubeapi.resource_version
    kubeapi.delete_silently("v1", "Service", "default", "a")
    kubeapi.delete("v1", "Service", "default", "b")
    assert kubeapi.get("v1", "Service", "default", "a") is None
    assert kubeapi.resource_version == rv + 1  # only the visible delete took an rv
    with RawClient(kubeapi.url) as raw:
        with raw.watch(f"{SVC}?watch=true&resourceVersion={rv}&timeoutSeconds=1") as w:
            assert [(e["type"], e["object"]["metadata"]["name"]) for e in w.events()] == [("DELETED", "b")]
        assert raw.get(SVC).json["items"] == []
    with pytest.raises(Exception, match="not found"):
        kubeapi.delete_silently("v1", "Service", "default", "a")


def test_inject_malformed_line(kubeapi: KubeAPIServer) -> None:
    rv = kubeapi.resource_version
    with RawClient(kubeapi.url) as raw, raw.watch(f"{SVC}?watch=true&resourceVersion={rv}&timeoutSeconds=30") as w:
        assert kubeapi.wait_for_watches(1)
        kubeapi.inject_malformed_line()
        kubeapi.create(svc("a"))
        kubeapi.create(svc("b"))
        bad = w.next_line()
        assert bad.endswith(b"\n")
        with pytest.raises(ValueError):
            __import__("json").loads(bad)
        ev = w.next_event()
        assert ev is not None and ev["object"]["metadata"]["name"] == "b"


def test_restart_keeps_state_and_port(kubeapi: KubeAPIServer, kube_api_client: kc.ApiClient) -> None:
    api = kc.CoreV1Api(kube_api_client)
    kubeapi.create(svc("a"))
    port, rv = kubeapi.port, kubeapi.resource_version
    with RawClient(kubeapi.url) as raw, raw.watch(f"{SVC}?watch=true&timeoutSeconds=30") as w:
        assert w.next_event() is not None
        kubeapi.restart()
        # the open watch ended with the old server
        with pytest.raises((http.client.IncompleteRead, ConnectionError, http.client.HTTPException, OSError)):
            while w.next_line():
                pass
            raise ConnectionError("clean end")
    assert kubeapi.port == port and kubeapi.resource_version == rv
    assert [s.metadata.name for s in api.list_namespaced_service("default").items] == ["a"]
    kubeapi.create(svc("b"))
    assert kubeapi.resource_version == rv + 1


def test_stop_is_fast_with_open_watches_and_leaks_nothing() -> None:
    before = {t.ident for t in threading.enumerate()}
    server = KubeAPIServer().start()
    server.ensure_namespace("default")
    streams = []
    raws = [RawClient(server.url) for _ in range(5)]
    for raw in raws:
        streams.append(raw.watch(f"{SVC}?watch=true"))
    idle = socket.create_connection(("127.0.0.1", server.port))  # an idle keep-alive connection
    wait_for(lambda: server.open_watch_count == 5)
    t0 = time.monotonic()
    server.stop()
    assert time.monotonic() - t0 < 2.0
    leftover = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert leftover == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
    for s in streams:
        s.close()
    for raw in raws:
        raw.close()
    idle.close()


def test_reset_clears_objects_faults_and_cuts_watches(kubeapi: KubeAPIServer) -> None:
    kubeapi.create(svc("a"))
    kubeapi.fail_next(5)
    kubeapi.add_token("t", [])
    rv = kubeapi.resource_version
    with RawClient(kubeapi.url) as raw:
        w = raw.watch(f"{SVC}?watch=true")  # fails: injected 500 (before reset)
        assert w.status == 500
        w.close()
    kubeapi.reset()
    assert kubeapi.resource_version > rv
    assert kubeapi.list("v1", "Namespace") == []
    with RawClient(kubeapi.url) as raw:
        assert raw.get("/api/v1/namespaces").status == 200  # no fault, no auth left
        kubeapi.ensure_namespace("default")
        with raw.watch(f"{SVC}?watch=true&timeoutSeconds=30") as w2:
            assert kubeapi.wait_for_watches(1)
            kubeapi.reset()
            with pytest.raises((http.client.IncompleteRead, ConnectionError, http.client.HTTPException)):
                w2.next_line()


def test_direct_api_semantics(kubeapi: KubeAPIServer) -> None:
    from tests.kubeapi.errors import ApiConflict, ApiError, ApiNotFound

    created = kubeapi.create(svc("a"))
    with pytest.raises(ApiConflict):
        kubeapi.create(svc("a"))
    stale = dict(created)
    updated = kubeapi.update({**created, "metadata": {**created["metadata"], "labels": {"x": "1"}}})
    assert updated["metadata"]["labels"] == {"x": "1"}
    with pytest.raises(ApiConflict):
        kubeapi.update({**stale, "metadata": {**stale["metadata"], "labels": {"x": "2"}}})
    st = kubeapi.update_status({**updated, "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}})
    assert st["status"]["loadBalancer"]["ingress"] == [{"ip": "1.2.3.4", "ipMode": "VIP"}]  # defaulted
    with pytest.raises(ApiNotFound):
        kubeapi.patch("v1", "Service", "default", "zzz", {"metadata": {"labels": {"a": "b"}}})
    with pytest.raises(ApiError) as exc:
        kubeapi.create({**svc("b"), "metadata": {"name": "b", "namespace": "ghost"}})
    assert exc.value.code == 404 and "ghost" in exc.value.message
    with pytest.raises(ApiError, match="not JSON-serialisable"):
        kubeapi.create({**svc("c"), "metadata": {"name": "c", "annotations": {"when": time}}})
    with pytest.raises(ValueError, match="no resource for apiVersion='v9' kind='Service'"):
        kubeapi.get("v9", "Service", "default", "a")
    # returned dicts are copies: mutating them does not change the store
    got = kubeapi.get("v1", "Service", "default", "a")
    assert got is not None
    got["metadata"]["labels"]["x"] = "mutated"
    again = kubeapi.get("v1", "Service", "default", "a")
    assert again is not None and again["metadata"]["labels"] == {"x": "1"}
    assert [o["metadata"]["name"] for o in kubeapi.list("v1", "Service")] == ["a"]
    assert kubeapi.list("v1", "Service", "other") == []


def test_wait_for_watches(kubeapi: KubeAPIServer) -> None:
    assert kubeapi.wait_for_watches(0, timeout=0.1)
    assert not kubeapi.wait_for_watches(1, timeout=0.1)
    with RawClient(kubeapi.url) as raw, raw.watch(f"{SVC}?watch=true&timeoutSeconds=30"), \
            raw.watch("/api/v1/namespaces?watch=true&timeoutSeconds=30"):
        assert kubeapi.wait_for_watches(2)
        assert kubeapi.wait_for_watches(1, path_contains="/services")
        assert kubeapi.cut_watches() == 2
        assert kubeapi.wait_for_watches(0)
