"""The sources on real objects: what the real kube-apiserver accepted, defaulted and stored (status written
through /status as a controller would; CRDs with their real structural schemas), read back by the source
pipeline the CLI builds from flags (`--namespace` keeps each test to its own namespace)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from external_dns.cmd.build_sources import build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.cmd.main import _KubeClient
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.endpoint.endpoint import Endpoint
from tests.helpers.gateway import gateway, listener, route
from tests.realkube.control_plane import ControlPlane
from tests.realkube.helpers import HOSTNAME, service

pytestmark = [pytest.mark.integration, pytest.mark.realkube]


class Pipeline:
    """The sources the CLI builds for `flags`, on the real server, shut down afterwards."""

    def __init__(self, kubeconfig: str, *flags: str) -> None:
        _parser, cfg = load_config([*flags, "--provider=inmemory", "--policy=sync", f"--kubeconfig={kubeconfig}"])
        self.kube = _KubeClient(cfg)
        self.factory = LazyInformerFactory(self.kube)
        self.pipeline = build_source_pipeline(cfg, {"kube_client": self.kube, "informer_factory": self.factory})

    def records(self) -> dict[tuple[str, str], list[str]]:
        eps: list[Endpoint] = self.pipeline.endpoints()
        return {(e.dns_name, e.record_type): sorted(e.targets) for e in eps}

    def close(self) -> None:
        if self.factory.created:
            assert self.factory().shutdown(10.0)
        self.kube().close()


@pytest.fixture
def sources(realkube_kubeconfig: str) -> Iterator[Any]:
    made: list[Pipeline] = []

    def build(*flags: str) -> Pipeline:
        made.append(Pipeline(realkube_kubeconfig, *flags))
        return made[-1]

    yield build
    for p in made:
        p.close()


def with_status(plane: ControlPlane, obj: dict[str, Any]) -> dict[str, Any]:
    """Create `obj`, then write its status through /status (a create ignores status), as its controller would."""
    status = obj.pop("status", None)
    created = plane.create(obj)
    if status is None:
        return created
    created["status"] = status
    return plane.update_status(created)


def test_load_balancer_service_status_through_status_subresource(realkube: ControlPlane, realkube_namespace: str,
                                                                 sources: Any) -> None:
    ns = realkube_namespace
    svc = service("web", ns, svc_type="LoadBalancer", annotations={HOSTNAME: "web.example.org"})
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}, {"hostname": "lb.example.net"}]}}
    stored = with_status(realkube, svc)
    assert stored["spec"]["ports"][0]["nodePort"] >= 30000  # the server allocated it: a LoadBalancer is a NodePort
    p = sources("--source=service", f"--namespace={ns}")
    assert p.records() == {("web.example.org", "A"): ["192.0.2.10"], ("web.example.org", "CNAME"): ["lb.example.net"]}


def test_headless_service_with_endpoint_slices(realkube: ControlPlane, realkube_namespace: str,
                                               sources: Any) -> None:
    ns = realkube_namespace
    realkube.create(service("db", ns, clusterIP="None", selector={"app": "db"},
                            annotations={HOSTNAME: "db.example.org"}))
    for i in range(2):
        realkube.create({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"db-{i}", "namespace": ns, "labels": {"app": "db"}},
                         "spec": {"hostname": f"db-{i}", "nodeName": "n1",
                                  "containers": [{"name": "db", "image": "db:1"}]}})
    realkube.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                     "metadata": {"name": "db-abcde", "namespace": ns,
                                  "labels": {"kubernetes.io/service-name": "db"}},
                     "addressType": "IPv4", "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
                     "endpoints": [{"addresses": ["10.1.0.1"], "conditions": {"ready": True},
                                    "targetRef": {"kind": "Pod", "name": "db-0", "namespace": ns}},
                                   {"addresses": ["10.1.0.2"], "conditions": {"ready": False},
                                    "targetRef": {"kind": "Pod", "name": "db-1", "namespace": ns}}]})
    p = sources("--source=service", f"--namespace={ns}")
    # the ready endpoint only, and per pod under its hostname
    assert p.records() == {("db.example.org", "A"): ["10.1.0.1"], ("db-0.db.example.org", "A"): ["10.1.0.1"]}


def test_ingress_with_status(realkube: ControlPlane, realkube_namespace: str, sources: Any) -> None:
    ns = realkube_namespace
    with_status(realkube, {
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "shop", "namespace": ns},
        "spec": {"rules": [{"host": "shop.example.org", "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
                 "tls": [{"hosts": ["secure.example.org"], "secretName": "tls"}]},
        "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.20"}]}}})
    p = sources("--source=ingress", f"--namespace={ns}")
    assert p.records() == {("shop.example.org", "A"): ["192.0.2.20"], ("secure.example.org", "A"): ["192.0.2.20"]}


def test_dnsendpoint_through_the_charts_crd(realkube: ControlPlane, realkube_namespace: str, sources: Any) -> None:
    """The chart's CRD on the real server: unknown fields pruned by its structural schema, status written back
    by the source through the status subresource (observedGeneration)."""
    ns = realkube_namespace
    created = realkube.create({
        "apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint", "metadata": {"name": "rec", "namespace": ns},
        "spec": {"endpoints": [{"dnsName": "rec.example.org", "recordType": "A", "targets": ["192.0.2.30"],
                                "recordTTL": 120, "bogus": "pruned"}], "extra": 1}})
    assert "bogus" not in created["spec"]["endpoints"][0] and "extra" not in created["spec"]
    p = sources("--source=crd", f"--namespace={ns}")
    assert p.records() == {("rec.example.org", "A"): ["192.0.2.30"]}
    obj = realkube.get(created)
    assert obj is not None and obj["metadata"]["generation"] == 1



@pytest.mark.parametrize(("kind", "source", "protocol"), [
    ("HTTPRoute", "gateway-httproute", "HTTP"), ("GRPCRoute", "gateway-grpcroute", "HTTP"),
    ("TLSRoute", "gateway-tlsroute", "TLS"), ("TCPRoute", "gateway-tcproute", "TCP"),
    ("UDPRoute", "gateway-udproute", "UDP")])
def test_gateway_routes_through_the_upstream_crds(realkube: ControlPlane, realkube_namespace: str, sources: Any,
                                                  kind: str, source: str, protocol: str) -> None:
    """Gateway API's own CRDs (experimental channel): the route and Gateway as the server defaults and stores
    them, the Gateway's addresses and the route's parent status written through /status."""
    ns = realkube_namespace
    extra = {"tls": {"mode": "Passthrough"}} if protocol == "TLS" else {}
    hostname = {} if protocol in ("TCP", "UDP") else {"hostname": "*.example.org"}
    gw = gateway(namespace=ns, addresses=["192.0.2.40"],
                 listeners=[{**listener(name="l", protocol=protocol, port=443 if protocol == "TLS" else 80),
                             **hostname, **extra}])
    with_status(realkube, gw)
    annotations = {HOSTNAME: "echo.example.org"} if protocol in ("TCP", "UDP") else None
    hostnames = None if protocol in ("TCP", "UDP") else ["echo.example.org"]
    r = route(kind, namespace=ns, hostnames=hostnames, annotations=annotations)
    if kind != "HTTPRoute":
        r["spec"]["rules"] = [{"backendRefs": [{"name": "backend", "port": 443}]}]
    stored = with_status(realkube, r)
    # the server defaulted the parentRef's group and kind
    assert stored["spec"]["parentRefs"][0]["group"] == "gateway.networking.k8s.io"
    assert stored["spec"]["parentRefs"][0]["kind"] == "Gateway"
    p = sources(f"--source={source}", f"--namespace={ns}")
    assert p.records() == {("echo.example.org", "A"): ["192.0.2.40"]}


def test_node_source(realkube: ControlPlane, realkube_namespace: str, sources: Any) -> None:
    """Nodes are cluster-wide (and no kubelet registers any): the test's own, found by a label."""
    label = {"realkube-test": realkube_namespace}
    for i, ip in enumerate(("203.0.113.1", "203.0.113.2")):
        name = f"{realkube_namespace}-n{i}"
        with_status(realkube, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": label},
                               "status": {"addresses": [{"type": "ExternalIP", "address": ip},
                                                        {"type": "InternalIP", "address": f"10.9.0.{i + 1}"}]}})
    realkube.request("PATCH", f"/api/v1/nodes/{realkube_namespace}-n1", {"spec": {"unschedulable": True}},
                     content_type="application/strategic-merge-patch+json")
    p = sources("--source=node", f"--label-filter=realkube-test={realkube_namespace}",
                "--fqdn-template={{.Name}}.nodes.example.org")
    assert p.records() == {(f"{realkube_namespace}-n0.nodes.example.org", "A"): ["203.0.113.1"]}


def test_pod_source(realkube: ControlPlane, realkube_namespace: str, sources: Any) -> None:
    ns = realkube_namespace
    node = f"{ns}-node"
    with_status(realkube, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node},
                           "status": {"addresses": [{"type": "ExternalIP", "address": "203.0.113.7"}]}})
    with_status(realkube, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "edge", "namespace": ns,
                     "annotations": {HOSTNAME: "edge.example.org",
                                     "external-dns.kubernetes.io/internal-hostname": "edge.internal.example.org"}},
        "spec": {"hostNetwork": True, "nodeName": node, "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "podIP": "10.1.0.5", "podIPs": [{"ip": "10.1.0.5"}]}})
    p = sources("--source=pod", f"--namespace={ns}")
    assert p.records() == {("edge.example.org", "A"): ["203.0.113.7"], ("edge.internal.example.org", "A"): ["10.1.0.5"]}
