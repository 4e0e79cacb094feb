"""`--source=service` through the real informers against the test API server."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, lb_service, names, service, set_lb_status

pytestmark = pytest.mark.integration


def source(factory: SharedInformerFactory, waiter: Waiter | None = None, **opts: Any) -> ServiceInformerSource:
    src = ServiceInformerSource(factory, SourceOptions(**opts), sync_timeout=10.0)
    if waiter is not None:
        src.add_event_handler(waiter)
    return src


def test_load_balancer_create_update_delete(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                            waiter: Waiter) -> None:
    src = source(factory, waiter)
    assert src.endpoints() == []
    lb_service(kubeapi, "web", "web.example.org", "1.2.3.4")
    assert waiter.until(lambda: names(src.endpoints()) == {("web.example.org", "A"): ["1.2.3.4"]})
    ep = src.endpoints()[0]
    assert ep.labels["resource"] == "service/default/web"
    set_lb_status(kubeapi, "web", {"ip": "1.2.3.5"}, {"hostname": "lb.example.net"})
    assert waiter.until(lambda: names(src.endpoints()) == {("web.example.org", "A"): ["1.2.3.5"],
                                                          ("web.example.org", "CNAME"): ["lb.example.net"]})
    kubeapi.delete("v1", "Service", "default", "web")
    assert waiter.until(lambda: src.endpoints() == [])


def test_external_ips_cluster_ip_and_external_name(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(service("ext", hostname="ext.example.org", spec={"externalIPs": ["9.9.9.9"]}))
    kubeapi.create(service("internal", svc_type="ClusterIP",
                           annotations={PREFIX + "internal-hostname": "int.example.org"}))
    kubeapi.create(service("plain", hostname="plain.example.org", svc_type="ClusterIP"))
    kubeapi.create(service("alias", hostname="alias.example.org", svc_type="ExternalName",
                           spec={"externalName": "target.example.net", "ports": []}))
    got = names(source(factory).endpoints())
    cluster_ip = kubeapi.get("v1", "Service", "default", "internal")["spec"]["clusterIP"]  # type: ignore[index]
    assert got == {("ext.example.org", "A"): ["9.9.9.9"], ("int.example.org", "A"): [cluster_ip],
                   ("alias.example.org", "CNAME"): ["target.example.net"]}


def test_publish_internal_services(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.create(service("plain", hostname="plain.example.org", svc_type="ClusterIP"))
    ip = kubeapi.get("v1", "Service", "default", "plain")["spec"]["clusterIP"]  # type: ignore[index]
    assert names(source(factory, publish_internal_services=True).endpoints()) == {("plain.example.org", "A"): [ip]}


def _pod(name: str, ip: str, node: str, *, hostname: str = "", ready: bool = True,
         labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx"}], "nodeName": node}
    if hostname:
        spec["hostname"] = hostname
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": "db"},
                         "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}]},
            "spec": spec,
            "status": {"phase": "Running", "podIP": ip, "hostIP": "10.0.0.1",
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"},
                                      {"type": "Initialized", "status": "True"}]}}


def _node(name: str, internal: str, external: str | None = None) -> dict[str, Any]:
    addresses = [{"type": "InternalIP", "address": internal}, {"type": "Hostname", "address": name}]
    if external:
        addresses.append({"type": "ExternalIP", "address": external})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"zone": "a"}},
            "spec": {}, "status": {"addresses": addresses, "conditions": [{"type": "Ready", "status": "True"}]}}


def _slice(service_name: str, *endpoints: tuple[str, str, bool]) -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{service_name}-abc", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": service_name, "other": "x"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [ip], "conditions": {"ready": ready, "serving": ready},
                           "targetRef": {"kind": "Pod", "name": pod, "namespace": "default"}}
                          for pod, ip, ready in endpoints],
            "ports": [{"port": 5432, "protocol": "TCP"}]}


def _create_status(server: KubeAPIServer, obj: dict[str, Any]) -> None:
    created = server.create(obj)
    if "status" in obj:
        created["status"] = obj["status"]
        server.update_status(created)


def test_headless_per_pod_names_and_not_ready(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                              waiter: Waiter) -> None:
    kubeapi.create(service("db", hostname="db.example.org", svc_type="ClusterIP",
                           spec={"clusterIP": "None", "selector": {"app": "db"}}))
    _create_status(kubeapi, _pod("db-0", "10.1.0.1", "n1", hostname="db-0"))
    _create_status(kubeapi, _pod("db-1", "10.1.0.2", "n1", ready=False))
    kubeapi.create(_slice("db", ("db-0", "10.1.0.1", True), ("db-1", "10.1.0.2", False)))
    assert names(source(factory).endpoints()) == {("db.example.org", "A"): ["10.1.0.1"],
                                                  ("db-0.db.example.org", "A"): ["10.1.0.1"]}
    src = source(factory, always_publish_not_ready_addresses=True)
    assert names(src.endpoints())[("db.example.org", "A")] == ["10.1.0.1", "10.1.0.2"]
    host_ip = source(factory, publish_host_ip=True).endpoints()
    assert names(host_ip)[("db.example.org", "A")] == ["10.0.0.1"]


def test_headless_follows_endpointslice_events(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                               waiter: Waiter) -> None:
    src = ServiceInformerSource(factory, SourceOptions(), listen_endpoint_events=True, sync_timeout=10.0)
    src.add_event_handler(waiter)
    kubeapi.create(service("db", hostname="db.example.org", svc_type="ClusterIP",
                           spec={"clusterIP": "None", "selector": {"app": "db"}}))
    _create_status(kubeapi, _pod("db-0", "10.1.0.1", "n1"))
    assert waiter.until(lambda: src.endpoints() == [])
    kubeapi.create(_slice("db", ("db-0", "10.1.0.1", True)))
    assert waiter.until(lambda: names(src.endpoints()) == {("db.example.org", "A"): ["10.1.0.1"]})


def test_node_port_addresses_access_and_srv(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    _create_status(kubeapi, _node("n1", "10.0.0.1", "203.0.113.1"))
    _create_status(kubeapi, _node("n2", "10.0.0.2", "203.0.113.2"))
    kubeapi.create(service("np", hostname="np.example.org", svc_type="NodePort",
                           spec={"ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}]}))
    got = names(source(factory).endpoints())
    assert got[("np.example.org", "A")] == ["203.0.113.1", "203.0.113.2"]
    assert got[("_np._tcp.np.example.org", "SRV")] == ["0 50 30080 np.example.org."]
    kubeapi.patch("v1", "Service", "default", "np", {"metadata": {"annotations": {PREFIX + "access": "private"}}})
    src = source(factory)
    src.wait_synced()
    waiter = Waiter()
    src.add_event_handler(waiter)
    assert waiter.until(lambda: names(src.endpoints()).get(("np.example.org", "A")) == ["10.0.0.1", "10.0.0.2"])


def test_node_port_local_traffic_policy(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    _create_status(kubeapi, _node("n1", "10.0.0.1", "203.0.113.1"))
    _create_status(kubeapi, _node("n2", "10.0.0.2", "203.0.113.2"))
    _create_status(kubeapi, _pod("web-0", "10.1.0.1", "n2", labels={"app": "web"}))
    kubeapi.create(service("np", hostname="np.example.org", svc_type="NodePort",
                           spec={"externalTrafficPolicy": "Local", "selector": {"app": "web"},
                                 "ports": [{"port": 80, "nodePort": 30080}]}))
    assert names(source(factory).endpoints())[("np.example.org", "A")] == ["203.0.113.2"]


def test_service_type_filter_starts_only_needed_informers(kubeapi: KubeAPIServer,
                                                          factory: SharedInformerFactory) -> None:
    lb_service(kubeapi, "web", "web.example.org", "1.2.3.4")
    kubeapi.create(service("np", hostname="np.example.org", svc_type="NodePort"))
    src = source(factory, service_type_filter=["LoadBalancer"])
    assert names(src.endpoints()) == {("web.example.org", "A"): ["1.2.3.4"]}
    assert [i.resource.plural for i in factory.informers()] == ["services"]
    listed = {path for method, path, _q, _s in kubeapi.requests if method == "GET"}
    assert not any("pods" in p or "nodes" in p or "endpointslices" in p for p in listed)


def test_default_type_filter_watches_pods_slices_nodes(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    source(factory).endpoints()
    assert sorted(i.resource.plural for i in factory.informers()) == ["endpointslices", "nodes", "pods", "services"]


def test_filters_namespace_labels_annotations_controller(kubeapi: KubeAPIServer,
                                                         factory: SharedInformerFactory) -> None:
    kubeapi.ensure_namespace("other")
    lb_service(kubeapi, "a", "a.example.org", "1.1.1.1", labels={"team": "x"}, annotations={"scope": "public"})
    lb_service(kubeapi, "b", "b.example.org", "1.1.1.2", labels={"team": "y"}, annotations={"scope": "public"})
    lb_service(kubeapi, "c", "c.example.org", "1.1.1.3", labels={"team": "x"})
    lb_service(kubeapi, "d", "d.example.org", "1.1.1.4", namespace="other", labels={"team": "x"},
               annotations={"scope": "public"})
    lb_service(kubeapi, "e", "e.example.org", "1.1.1.5", labels={"team": "x"},
               annotations={"scope": "public", PREFIX + "controller": "someone-else"})
    got = source(factory, label_filter="team=x", annotation_filter="scope in (public)").endpoints()
    assert sorted(e.dns_name for e in got) == ["a.example.org", "d.example.org"]


def test_namespace_option_watches_one_namespace(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    kubeapi.ensure_namespace("other")
    lb_service(kubeapi, "a", "a.example.org", "1.1.1.1")
    lb_service(kubeapi, "d", "d.example.org", "1.1.1.4", namespace="other")
    got = source(factory, namespace="other", service_type_filter=["LoadBalancer"]).endpoints()
    assert [e.dns_name for e in got] == ["d.example.org"]
    paths = {path for method, path, _q, _s in kubeapi.requests if method == "GET" and "services" in path}
    assert paths == {"/api/v1/namespaces/other/services"}


def test_fqdn_template_and_combine(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                   kube_api_client: Any) -> None:
    lb_service(kubeapi, "web", "web.example.org", "1.2.3.4", annotations={"team": "blue"})
    lb_service(kubeapi, "api", None, "1.2.3.5")  # type: ignore[arg-type]
    template = "{{.Name}}.{{.Namespace}}.example.net"
    got = names(source(factory, fqdn_template=template).endpoints())
    assert got == {("web.example.org", "A"): ["1.2.3.4"], ("api.default.example.net", "A"): ["1.2.3.5"]}
    second = SharedInformerFactory(kube_api_client)  # another slimming: annotations read by the template
    try:
        got = names(source(second, fqdn_template="{{index .Annotations \"team\"}}.example.net",
                           combine_fqdn_annotation=True).endpoints())
    finally:
        assert second.shutdown(10.0)
    assert got[("blue.example.net", "A")] == ["1.2.3.4"] and got[("web.example.org", "A")] == ["1.2.3.4"]


def test_bad_annotations_keep_the_rest(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    lb_service(kubeapi, "ttl", "ttl.example.org", "1.2.3.4", annotations={PREFIX + "ttl": "abc"})
    lb_service(kubeapi, "tgt", "tgt.example.org", "1.2.3.5", annotations={PREFIX + "target": "not_a host!,5.5.5.5"})
    lb_service(kubeapi, "lbl", f"{'x' * 64}.example.org,ok.example.org", "1.2.3.6")
    lb_service(kubeapi, "wild", "a.*.example.org,w.example.org", "1.2.3.7")
    lb_service(kubeapi, "good", "good.example.org", "1.2.3.8", annotations={PREFIX + "ttl": "10m"})
    src = source(factory)
    got = {(e.dns_name, e.record_type): (sorted(e.targets), e.record_ttl) for e in src.endpoints()}
    assert got == {("ttl.example.org", "A"): (["1.2.3.4"], 0), ("tgt.example.org", "A"): (["5.5.5.5"], 0),
                   ("ok.example.org", "A"): (["1.2.3.6"], 0), ("w.example.org", "A"): (["1.2.3.7"], 0),
                   ("good.example.org", "A"): (["1.2.3.8"], 600)}
    refs = {(p.ref, p.field, p.value) for p in src.problems}
    assert ("service/default/ttl", PREFIX + "ttl", "abc") in refs
    assert any(r == "service/default/tgt" and "not_a host!" in v for r, _f, v in refs)
    assert any(r == "service/default/lbl" and "x" * 64 in v for r, _f, v in refs)
    assert any(r == "service/default/wild" and "a.*.example.org" in v for r, _f, v in refs)
    # reported once per object version: a second call reports nothing new
    assert src.report(src.problems) == []


def test_problems_become_events_once(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.events: list[tuple[str, str, str, str]] = []

        def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
            self.events.append((f"{obj['kind']}/{obj['metadata']['namespace']}/{obj['metadata']['name']}",
                                type, reason, note))
            return True

    lb_service(kubeapi, "ttl", "ttl.example.org", "1.2.3.4", annotations={PREFIX + "ttl": "abc"})
    src = source(factory)
    src.recorder = recorder = Recorder()
    src.endpoints()
    src.endpoints()
    assert len(recorder.events) == 1
    who, type_, reason, note = recorder.events[0]
    assert (who, type_, reason) == ("Service/default/ttl", "Warning", "RecordError")
    assert "external-dns.kubernetes.io/ttl='abc'" in note and "service/default/ttl" in note


def test_malformed_service_is_reported_not_dropped(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    lb_service(kubeapi, "good", "good.example.org", "1.2.3.8")
    src = source(factory)
    src.wait_synced()
    # a watch event carrying a malformed object (a server would refuse it; a proxy or a bug might not)
    src.services.reflector.sink.apply("ADDED", {"apiVersion": "v1", "kind": "Service",
                                                "metadata": {"name": "bad", "namespace": "default",
                                                             "resourceVersion": "999999",
                                                             "annotations": {PREFIX + "hostname": "bad.example.org"}},
                                                "spec": {"type": "LoadBalancer", "externalIPs": "1.2.3.4"}})
    got = src.endpoints()
    assert [e.dns_name for e in got] == ["good.example.org"]
    assert [(p.ref, p.field) for p in src.problems] == [("service/default/bad", "spec.externalIPs")]


def test_thousand_services_slimmed_cache(kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    big = {"kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 2000 + "}",
           "unrelated.io/note": "y" * 500}
    for i in range(1000):
        obj = service(f"svc-{i}", hostname=f"svc-{i}.example.org", annotations=big)
        obj["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Apply",
                                             "fieldsV1": {"f:metadata": {"f:annotations": {}}}}]
        created = kubeapi.create(obj)
        created["status"] = {"loadBalancer": {"ingress": [{"ip": f"10.{i // 250}.{i % 250}.1"}]},
                             "conditions": [{"type": "x", "status": "True", "message": "m" * 200}]}
        kubeapi.update_status(created)
    src = source(factory, service_type_filter=["LoadBalancer"])
    assert len(src.endpoints()) == 1000
    cached = src.services.get_store().list()
    assert len(cached) == 1000
    for obj in cached:
        assert "managedFields" not in obj["metadata"]
        assert set(obj["metadata"]["annotations"]) == {PREFIX + "hostname"}
        assert "conditions" not in obj["status"]
        assert set(obj["spec"]) <= {"type", "clusterIP", "externalIPs", "externalName", "ports", "selector",
                                    "externalTrafficPolicy", "publishNotReadyAddresses"}


def test_sources_never_mutate_the_cache(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    checked = SharedInformerFactory(kube_api_client, detect_mutation=True)
    try:
        lb_service(kubeapi, "web", "web.example.org", "1.2.3.4", annotations={PREFIX + "ttl": "abc"})
        _create_status(kubeapi, _node("n1", "10.0.0.1", "203.0.113.1"))
        kubeapi.create(service("np", hostname="np.example.org", svc_type="NodePort"))
        kubeapi.create(service("db", hostname="db.example.org", svc_type="ClusterIP",
                               spec={"clusterIP": "None", "selector": {"app": "db"}}))
        _create_status(kubeapi, _pod("db-0", "10.1.0.1", "n1", hostname="db-0"))
        kubeapi.create(_slice("db", ("db-0", "10.1.0.1", True)))
        src = source(checked)
        first = names(src.endpoints())
        assert names(src.endpoints()) == first and len(first) == 5
        for informer in checked.informers():
            assert informer.mutation_detector is not None
            assert informer.mutation_detector.check_all() == []
    finally:
        assert checked.shutdown(10.0)


def test_endpoints_read_the_cache_and_never_list(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                 waiter: Waiter) -> None:
    lb_service(kubeapi, "web", "web.example.org", "1.2.3.4")
    src = source(factory, waiter)
    src.endpoints()
    kubeapi.clear_requests()
    for _ in range(20):  # what every --interval resync and every zone's reconcile does
        assert len(src.endpoints()) == 1
    set_lb_status(kubeapi, "web", {"ip": "1.2.3.9"})
    assert waiter.until(lambda: names(src.endpoints()) == {("web.example.org", "A"): ["1.2.3.9"]})
    lists = [(p, q) for method, p, q, _s in kubeapi.requests if method == "GET" and q.get("watch") != "true"]
    assert lists == []
