"""The test API server driven through the real `kubernetes` client (36.x): CRUD, lists, watches."""

from __future__ import annotations

import threading
from typing import Any

import kubernetes.client as kc
import kubernetes.config
import pytest
from kubernetes import watch
from kubernetes.client.rest import ApiException

from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def _svc(name: str, ns: str = "default", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"ports": [{"port": 80}]}}


def test_service_crud_through_client(kube_api_client: kc.ApiClient, kubeapi: KubeAPIServer) -> None:
    api = kc.CoreV1Api(kube_api_client)
    created = api.create_namespaced_service("default", _svc("web"))
    assert created.metadata.uid
    assert created.spec.cluster_ip.startswith("10.96.")
    rv1 = int(created.metadata.resource_version)
    with pytest.raises(ApiException) as exc:
        api.create_namespaced_service("default", _svc("web"))
    assert exc.value.status == 409
    got = api.read_namespaced_service("web", "default")
    assert got.metadata.resource_version == str(rv1)
    patched = api.patch_namespaced_service("web", "default", {"metadata": {"annotations": {"a": "b"}}})
    assert int(patched.metadata.resource_version) > rv1
    assert patched.metadata.annotations == {"a": "b"}
    stale = _svc("web")
    stale["metadata"]["resourceVersion"] = str(rv1)
    with pytest.raises(ApiException) as exc:
        api.replace_namespaced_service("web", "default", stale)
    assert exc.value.status == 409
    api.delete_namespaced_service("web", "default")
    with pytest.raises(ApiException) as exc:
        api.read_namespaced_service("web", "default")
    assert exc.value.status == 404
    assert kubeapi.get("v1", "Service", "default", "web") is None


def test_list_with_selectors_and_paging(kube_api_client: kc.ApiClient, kubeapi: KubeAPIServer) -> None:
    api = kc.CoreV1Api(kube_api_client)
    for i in range(7):
        kubeapi.create(_svc(f"s{i}", labels={"tier": "web" if i % 2 else "db"}))
    web = api.list_service_for_all_namespaces(label_selector="tier=web")
    assert sorted(s.metadata.name for s in web.items) == ["s1", "s3", "s5"]
    names: list[str] = []
    cont = None
    rvs = set()
    while True:
        page = api.list_namespaced_service("default", limit=3, _continue=cont)
        names += [s.metadata.name for s in page.items]
        rvs.add(page.metadata.resource_version)
        cont = page.metadata._continue
        if not cont:
            break
    assert names == [f"s{i}" for i in range(7)]
    assert len(rvs) == 1


def test_watch_sees_writes_in_order(kube_api_client: kc.ApiClient, kubeapi: KubeAPIServer) -> None:
    api = kc.CoreV1Api(kube_api_client)
    start_rv = api.list_namespaced_service("default").metadata.resource_version
    seen: list[tuple[str, str]] = []
    ready = threading.Event()

    def run() -> None:
        w = watch.Watch()
        for ev in w.stream(api.list_namespaced_service, "default", resource_version=start_rv,
                           timeout_seconds=5, _request_timeout=(5, 10)):
            seen.append((ev["type"], ev["object"].metadata.name))
            if ev["type"] == "DELETED":
                w.stop()

    t = threading.Thread(target=run)
    t.start()
    kubeapi.create(_svc("a"))
    kubeapi.patch("v1", "Service", "default", "a", {"metadata": {"labels": {"x": "y"}}})
    kubeapi.delete("v1", "Service", "default", "a")
    t.join(10)
    ready.set()
    assert not t.is_alive()
    assert seen == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]


def test_kubeconfig_file_loads(kubeconfig_file: str, kubeapi: KubeAPIServer) -> None:
    client = kubernetes.config.new_client_from_config(config_file=kubeconfig_file)
    try:
        ns = kc.CoreV1Api(client).list_namespace()
        assert [n.metadata.name for n in ns.items] == ["default"]
    finally:
        client.close()


def test_custom_objects_dnsendpoint(kube_api_client: kc.ApiClient, kubeapi: KubeAPIServer) -> None:
    api = kc.CustomObjectsApi(kube_api_client)
    body = {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
            "metadata": {"name": "ep"},
            "spec": {"endpoints": [{"dnsName": "a.example.org", "recordType": "A", "targets": ["1.2.3.4"]}]}}
    created = api.create_namespaced_custom_object("externaldns.k8s.io", "v1alpha1", "default", "dnsendpoints",
                                                  body)
    assert created["metadata"]["generation"] == 1
    listed = api.list_cluster_custom_object("externaldns.k8s.io", "v1alpha1", "dnsendpoints")
    assert listed["items"][0]["kind"] == "DNSEndpoint"
    status = api.patch_namespaced_custom_object_status(
        "externaldns.k8s.io", "v1alpha1", "default", "dnsendpoints", "ep", {"status": {"observedGeneration": 1}})
    assert status["status"] == {"observedGeneration": 1}
    assert status["metadata"]["generation"] == 1


def test_watch_stream_410_handling(kube_api_client: kc.ApiClient, kubeapi: KubeAPIServer) -> None:
    api = kc.CoreV1Api(kube_api_client)
    kubeapi.create(_svc("a"))
    rv = api.list_namespaced_service("default").metadata.resource_version
    kubeapi.compact()
    kubeapi.clear_requests()
    # without timeout_seconds the client retries once with the same rv, then raises
    with pytest.raises(ApiException) as exc:
        for _ev in watch.Watch().stream(api.list_namespaced_service, "default", resource_version=rv):
            pass
    assert exc.value.status == 410
    assert exc.value.reason.startswith("Expired: too old resource version: ")
    watches = [q for (_m, _p, q, _s) in kubeapi.requests if q.get("watch") == "True"]
    assert [q["resourceVersion"] for q in watches] == [rv, rv]


def test_watch_stream_bookmarks_update_resource_version(kube_api_client: kc.ApiClient,
                                                        kubeapi: KubeAPIServer) -> None:
    api = kc.CoreV1Api(kube_api_client)
    kubeapi.create(_svc("a"))
    rv = api.list_namespaced_service("default").metadata.resource_version
    kubeapi.create({**_svc("other"), "metadata": {"name": "lease-like", "namespace": "default"}})
    w = watch.Watch()
    types = []
    for ev in w.stream(api.list_namespaced_service, "default", resource_version=rv, allow_watch_bookmarks=True,
                       timeout_seconds=1):
        types.append(ev["type"])
    assert types == ["ADDED", "BOOKMARK"]
    assert w.resource_version == str(kubeapi.resource_version)
