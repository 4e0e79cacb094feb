"""Pod -> endpoints (sources/objects/pod.py): the cases external-dns's pod source documentation describes, and bad
input reported by name."""

from __future__ import annotations

from typing import Any

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as P
from external_dns.sources.objects.pod import PodOptions, collect_pod_endpoints, pod_endpoints
from external_dns.sources.options import SourceOptions
from tests.sources.objects.builders import node, records


def pod(name: str = "web", host_network: bool = True, pod_ip: str = "10.1.0.5", node_name: str = "n1",
        annotations: dict[str, str] | None = None, pod_ips: list[str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    status: dict[str, Any] = {"phase": "Running", "podIP": pod_ip,
                              "podIPs": [{"ip": ip} for ip in (pod_ips or [pod_ip])]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"hostNetwork": host_network, "nodeName": node_name}, "status": status}


NODES = {"n1": node(addresses=[("ExternalIP", "203.0.113.1"), ("InternalIP", "10.0.0.1"),
                               ("InternalIP", "fd00::1")])}


def pods(p: dict[str, Any], options: SourceOptions | None = None, pod_options: PodOptions | None = None) -> Any:
    return pod_endpoints(p, options or SourceOptions(), pod_options or PodOptions(), NODES.get)


def test_host_network_pod_hostname_uses_node_external_and_ipv6_internal() -> None:
    out = pods(pod(annotations={P + "hostname": "web.example.org"}))
    assert records(out) == {"web.example.org A": ["203.0.113.1"], "web.example.org AAAA": ["fd00::1"]}
    assert "resource" not in out.endpoints[0].labels  # as external-dns's pod source


def test_internal_hostname_uses_pod_ip() -> None:
    out = pods(pod(annotations={P + "internal-hostname": "web.internal.example.org"}))
    assert records(out) == {"web.internal.example.org A": ["10.1.0.5"]}


def test_non_host_network_pods_skipped_only_with_the_flag() -> None:
    p = pod(host_network=False, annotations={P + "internal-hostname": "web.internal.example.org"})
    assert records(pods(p)) == {"web.internal.example.org A": ["10.1.0.5"]}
    assert pods(p, pod_options=PodOptions(ignore_non_host_network_pods=True)).endpoints == []


def test_target_annotation_overrides_both() -> None:
    p = pod(annotations={P + "hostname": "a.example.org", P + "internal-hostname": "b.example.org",
                         P + "target": "198.51.100.1", P + "ttl": "120"})
    out = pods(p)
    assert records(out) == {"a.example.org A": ["198.51.100.1"], "b.example.org A": ["198.51.100.1"]}
    assert {ep.record_ttl for ep in out.endpoints} == {120}


def test_pod_source_domain_and_template() -> None:
    out = pods(pod(), pod_options=PodOptions(pod_source_domain="pods.example.org"))
    assert records(out) == {"web.pods.example.org A": ["10.1.0.5"]}
    opts = SourceOptions(fqdn_template="{{.Name}}.t.example.org")
    out = pods(pod(pod_ips=["10.1.0.5", "fd01::5"]), options=opts)
    assert records(out) == {"web.t.example.org A": ["10.1.0.5"], "web.t.example.org AAAA": ["fd01::5"]}
    with_target = SourceOptions(fqdn_template="{{.Name}}.t.example.org", target_template="{{.Status.HostIP}}")
    host_ip = pod()
    host_ip["status"]["hostIP"] = "192.0.2.77"
    # --target-template is not applied by the pod source (nor by Go's)
    assert records(pods(host_ip, options=with_target)) == {"web.t.example.org A": ["10.1.0.5"]}


def test_pending_pod_and_unknown_node_publish_nothing_quietly() -> None:
    assert pods(pod(pod_ip="", annotations={P + "internal-hostname": "a.example.org"})).endpoints == []
    out = pods(pod(node_name="gone", annotations={P + "hostname": "a.example.org"}))
    assert out.endpoints == [] and out.problems == []


def test_pods_with_one_name_are_merged() -> None:
    a = pod("a", annotations={P + "hostname": "all.example.org"})
    b = pod("b", node_name="n2", annotations={P + "hostname": "all.example.org"})
    n2 = node("n2", addresses=[("ExternalIP", "203.0.113.2")])
    out = collect_pod_endpoints([a, b], SourceOptions(), PodOptions(), {**NODES, "n2": n2}.get)
    assert records(out)["all.example.org A"] == ["203.0.113.1", "203.0.113.2"]


def test_bad_annotation_reported_by_name() -> None:
    out = pods(pod(annotations={P + "hostname": "a.example.org", P + "ttl": "forever"}))
    assert records(out)  # still published
    assert [p.field for p in out.problems] == [P + "ttl"]
    assert out.problems[0].ref == "pod/default/web"


def test_hostname_of_non_host_network_pod_uses_pod_ip() -> None:
    p = pod(host_network=False, annotations={P + "hostname": "web.example.org"})
    assert records(pods(p)) == {"web.example.org A": ["10.1.0.5"]}


def test_host_network_pod_on_a_node_without_public_address_is_reported() -> None:
    """A bare-metal node with only an IPv4 InternalIP: as external-dns, `hostname` publishes nothing for a
    hostNetwork pod there (its InternalIP is not used), and the pod is told why; `internal-hostname` still works."""
    nodes = {"n1": node(addresses=[("InternalIP", "10.0.0.1")])}
    p = pod(annotations={P + "hostname": "web.example.org", P + "internal-hostname": "web.internal.example.org"})
    out = pod_endpoints(p, SourceOptions(), PodOptions(), nodes.get)
    assert records(out) == {"web.internal.example.org A": ["10.1.0.5"]}
    assert [(x.ref, x.field, x.value) for x in out.problems] == [("pod/default/web", "spec.nodeName", "n1")]
    assert "no ExternalIP or IPv6 InternalIP" in out.problems[0].message
    # a node not in the cache yet is a transient state: nothing reported
    assert pod_endpoints(p, SourceOptions(), PodOptions(), lambda _name: None).problems == []
