"""Service -> endpoints on raw dicts: every service type, annotations, templates, filters and bad input."""

from __future__ import annotations

from typing import Any

import pytest
import structlog.testing

from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.sources.objects.service import merge_service_endpoints, service_endpoints
from external_dns.sources.options import SourceOptions
from tests.sources.helpers import PREFIX, ann, endpoint_slice, node, pod, service, summary

OPTS = SourceOptions()


def run(svc: dict[str, Any], opts: SourceOptions = OPTS, **kw: Any) -> list[Endpoint]:
    eps, problems = service_endpoints(svc, opts, **kw)
    assert problems == [], problems
    return eps


# -- LoadBalancer ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("svc", "expected"),
    [
        (service(annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4", "1.2.3.5")),
         {("a.example.org", "A", ("1.2.3.4", "1.2.3.5"), 0)}),
        (service(annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4", "2001:db8::1")),
         {("a.example.org", "A", ("1.2.3.4",), 0), ("a.example.org", "AAAA", ("2001:db8::1",), 0)}),
        (service(annotations=ann(hostname="a.example.org"), lb_hostnames=("lb.example.net",)),
         {("a.example.org", "CNAME", ("lb.example.net",), 0)}),
        (service(annotations=ann(hostname="a.example.org, b.example.org.", ttl="60"), lb_ips=("1.2.3.4",)),
         {("a.example.org", "A", ("1.2.3.4",), 60), ("b.example.org", "A", ("1.2.3.4",), 60)}),
        (service(annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4",),
                 spec={"externalIPs": ["9.9.9.9"]}),
         {("a.example.org", "A", ("9.9.9.9",), 0)}),
        (service(annotations=ann(hostname="a.example.org", target="5.5.5.5,x.example.net"), lb_ips=("1.2.3.4",)),
         {("a.example.org", "A", ("5.5.5.5",), 0), ("a.example.org", "CNAME", ("x.example.net",), 0)}),
        (service(annotations=ann(internal_hostname="in.example.org"), lb_ips=("1.2.3.4",), cluster_ip="10.0.0.7"),
         {("in.example.org", "A", ("10.0.0.7",), 0)}),
        (service(annotations=ann(hostname="a.example.org")), set()),
        (service(lb_ips=("1.2.3.4",)), set()),
    ],
)
def test_load_balancer(svc: dict[str, Any], expected: set[Any]) -> None:
    assert summary(run(svc)) == expected


def test_labels_ref_objects_and_provider_specific() -> None:
    svc = service("web", "shop", annotations=ann(hostname="a.example.org", set_identifier="eu", aws_weight="10"),
                  lb_ips=("1.2.3.4",))
    [ep] = run(svc)
    assert ep.labels == {"resource": "service/shop/web"}
    assert ep.ref_objects == [svc]
    assert ep.set_identifier == "eu"
    assert ep.provider_specific == [ProviderSpecificProperty("aws/weight", "10")]


def test_resolve_load_balancer_hostname_uses_resolver() -> None:
    calls: list[str] = []

    def resolver(host: str) -> list[str]:
        calls.append(host)
        return ["7.7.7.7", "2001:db8::7"]

    opts = SourceOptions(resolve_load_balancer_hostname=True, resolver=resolver)
    svc = service(annotations=ann(hostname="a.example.org"), lb_hostnames=("lb.example.net",))
    assert summary(run(svc, opts)) == {("a.example.org", "A", ("7.7.7.7",), 0),
                                       ("a.example.org", "AAAA", ("2001:db8::7",), 0)}
    assert calls == ["lb.example.net"]


def test_resolver_failure_is_a_problem() -> None:
    def resolver(host: str) -> list[str]:
        raise LookupError(f"no such host {host}")

    opts = SourceOptions(resolve_load_balancer_hostname=True, resolver=resolver)
    svc = service(annotations=ann(hostname="a.example.org"), lb_hostnames=("lb.example.net",), lb_ips=("1.1.1.1",))
    eps, problems = service_endpoints(svc, opts)
    assert summary(eps) == {("a.example.org", "A", ("1.1.1.1",), 0)}
    [p] = problems
    assert p.field == "status.loadBalancer.ingress[1].hostname" and "no such host" in p.message


# -- ClusterIP / ExternalName --------------------------------------------------------------------------------

def test_cluster_ip_needs_publish_internal_or_internal_hostname() -> None:
    svc = service(type="ClusterIP", annotations=ann(hostname="a.example.org"), cluster_ip="10.0.0.9")
    assert run(svc) == []
    assert summary(run(svc, SourceOptions(publish_internal_services=True))) == {
        ("a.example.org", "A", ("10.0.0.9",), 0)}
    internal = service(type="ClusterIP", annotations=ann(internal_hostname="i.example.org"), cluster_ip="10.0.0.9")
    assert summary(run(internal)) == {("i.example.org", "A", ("10.0.0.9",), 0)}


def test_external_name() -> None:
    svc = service(type="ExternalName", annotations=ann(hostname="a.example.org"),
                  spec={"externalName": "db.example.net."})
    assert summary(run(svc)) == {("a.example.org", "CNAME", ("db.example.net",), 0)}
    svc["spec"]["externalIPs"] = ["8.8.8.8"]
    assert summary(run(svc)) == {("a.example.org", "A", ("8.8.8.8",), 0)}


# -- NodePort --------------------------------------------------------------------------------------------------

NODES = [node("n1", external=("1.1.1.1",), internal=("10.0.0.1", "fd00::1")),
         node("n2", external=("2.2.2.2",), internal=("10.0.0.2",)),
         node("n3", external=("3.3.3.3",), internal=("10.0.0.3",), unschedulable=True)]


def nodeport(**annotations: str) -> dict[str, Any]:
    return service("np", type="NodePort", annotations=ann(hostname="np.example.org", **annotations),
                   spec={"ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"},
                                   {"port": 53, "nodePort": 30053, "protocol": "UDP"},
                                   {"port": 9, "protocol": "TCP"}],
                         "selector": {"app": "np"}})


def test_node_port_default_external_and_srv() -> None:
    eps = run(nodeport(), nodes=NODES)
    assert summary(eps) == {
        ("np.example.org", "A", ("1.1.1.1", "2.2.2.2"), 0),
        ("_np._tcp.np.example.org", "SRV", ("0 50 30080 np.example.org.",), 0),
        ("_np._udp.np.example.org", "SRV", ("0 50 30053 np.example.org.",), 0),
    }
    assert all(ep.labels["resource"] == "service/default/np" for ep in eps)
    assert all(ep.check_endpoint() for ep in eps)


@pytest.mark.parametrize(
    ("access", "opts", "targets"),
    [
        ("private", OPTS, {("np.example.org", "A", ("10.0.0.1", "10.0.0.2"), 0),
                           ("np.example.org", "AAAA", ("fd00::1",), 0)}),
        ("public", OPTS, {("np.example.org", "A", ("1.1.1.1", "2.2.2.2"), 0)}),
        ("public", SourceOptions(expose_internal_ipv6=True),
         {("np.example.org", "A", ("1.1.1.1", "2.2.2.2"), 0), ("np.example.org", "AAAA", ("fd00::1",), 0)}),
        ("private", SourceOptions(exclude_unschedulable=False),
         {("np.example.org", "A", ("10.0.0.1", "10.0.0.2", "10.0.0.3"), 0),
          ("np.example.org", "AAAA", ("fd00::1",), 0)}),
    ],
)
def test_node_port_access(access: str, opts: SourceOptions, targets: set[Any]) -> None:
    eps = run(nodeport(access=access), opts, nodes=NODES)
    assert {s for s in summary(eps) if s[1] != "SRV"} == targets


def test_node_port_internal_when_no_external() -> None:
    nodes = [node("n1", internal=("10.0.0.1",))]
    assert {s for s in summary(run(nodeport(), nodes=nodes)) if s[1] == "A"} == {
        ("np.example.org", "A", ("10.0.0.1",), 0)}


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        # ready, non-terminating pods win
        ([pod("p1", node_name="n1", labels={"app": "np"}),
          pod("p2", node_name="n2", labels={"app": "np"}, ready=False)], ("1.1.1.1",)),
        # only terminating ready pods -> those nodes
        ([pod("p1", node_name="n1", labels={"app": "np"}, terminating=True),
          pod("p2", node_name="n2", labels={"app": "np"}, ready=False)], ("1.1.1.1",)),
        # nothing ready -> every node running a pod
        ([pod("p1", node_name="n1", labels={"app": "np"}, ready=False),
          pod("p2", node_name="n2", labels={"app": "np"}, ready=False)], ("1.1.1.1", "2.2.2.2")),
        # pods of other services, other namespaces, or not running do not count
        ([pod("p1", node_name="n1", labels={"app": "other"}),
          pod("p2", "elsewhere", node_name="n2", labels={"app": "np"}),
          pod("p3", node_name="n2", labels={"app": "np"}, phase="Pending")], ()),
    ],
)
def test_node_port_external_traffic_policy_local(pods: list[dict[str, Any]], expected: tuple[str, ...]) -> None:
    svc = nodeport()
    svc["spec"]["externalTrafficPolicy"] = "Local"
    eps = run(svc, nodes=NODES, pods=pods)
    a = [e for e in eps if e.record_type == "A"]
    got = tuple(a[0].targets) if a else ()
    assert got == expected


# -- headless --------------------------------------------------------------------------------------------------

def headless(**annotations: str) -> dict[str, Any]:
    return service("hl", type="ClusterIP", cluster_ip="None",
                   annotations=ann(hostname="hl.example.org", **annotations), spec={"selector": {"app": "hl"}})


HL_PODS = [pod("hl-0", hostname="hl-0", host_ip="192.168.0.1", node_name="n1"),
           pod("hl-1", host_ip="192.168.0.2", node_name="n2"),
           pod("hl-2", hostname="hl-2", host_ip="192.168.0.3", node_name="n2")]
HL_SLICES = [endpoint_slice("hl", [("hl-0", "10.1.0.1", True), ("hl-1", "10.1.0.2", None),
                                   ("hl-2", "10.1.0.3", False)]),
             endpoint_slice("other", [("hl-0", "10.9.9.9", True)]),
             endpoint_slice("hl", [("hl-0", "10.8.8.8", True)], namespace="elsewhere")]


def test_headless_pod_ips_and_pod_hostnames() -> None:
    eps = run(headless(ttl="30"), nodes=NODES, pods=HL_PODS, endpoint_slices=HL_SLICES)
    assert summary(eps) == {("hl.example.org", "A", ("10.1.0.1", "10.1.0.2"), 30),
                            ("hl-0.hl.example.org", "A", ("10.1.0.1",), 30)}
    assert all(e.labels["resource"] == "service/default/hl" for e in eps)


def test_headless_not_ready_addresses() -> None:
    expected = {("hl.example.org", "A", ("10.1.0.1", "10.1.0.2", "10.1.0.3"), 0),
                ("hl-0.hl.example.org", "A", ("10.1.0.1",), 0), ("hl-2.hl.example.org", "A", ("10.1.0.3",), 0)}
    opts = SourceOptions(always_publish_not_ready_addresses=True)
    assert summary(run(headless(), opts, pods=HL_PODS, endpoint_slices=HL_SLICES)) == expected
    svc = headless()
    svc["spec"]["publishNotReadyAddresses"] = True
    assert summary(run(svc, pods=HL_PODS, endpoint_slices=HL_SLICES)) == expected


def test_headless_host_ip_and_node_external_ip() -> None:
    host = run(headless(), SourceOptions(publish_host_ip=True), pods=HL_PODS, endpoint_slices=HL_SLICES)
    assert summary(host) == {("hl.example.org", "A", ("192.168.0.1", "192.168.0.2"), 0),
                             ("hl-0.hl.example.org", "A", ("192.168.0.1",), 0)}
    by_annotation = run(headless(endpoints_type="HostIP"), pods=HL_PODS, endpoint_slices=HL_SLICES)
    assert summary(by_annotation) == summary(host)
    ext = run(headless(endpoints_type="NodeExternalIP"), nodes=NODES, pods=HL_PODS, endpoint_slices=HL_SLICES)
    assert summary(ext) == {("hl.example.org", "A", ("1.1.1.1", "2.2.2.2"), 0),
                            ("hl-0.hl.example.org", "A", ("1.1.1.1",), 0)}


def test_headless_node_external_ip_without_node_port_in_the_filter_is_skipped_with_a_warning() -> None:
    """As Go: Nodes are watched for NodePort only, so a filter without it knows no node addresses."""
    opts = SourceOptions(service_type_filter=("ClusterIP",))
    with structlog.testing.capture_logs() as logs:
        ext = run(headless(endpoints_type="NodeExternalIP"), opts, nodes=NODES, pods=HL_PODS,
                  endpoint_slices=HL_SLICES)
    assert summary(ext) == set()
    assert any(line["log_level"] == "warning" and "NodeExternalIP" in line["event"] for line in logs)


def test_headless_pod_target_annotation_and_dedup() -> None:
    pods = [pod("hl-0", annotations={PREFIX + "target": "5.5.5.5"}), pod("hl-1", annotations={
        PREFIX + "target": "5.5.5.5"})]
    slices = [endpoint_slice("hl", [("hl-0", "10.1.0.1", True), ("hl-1", "10.1.0.2", True)])]
    assert summary(run(headless(), pods=pods, endpoint_slices=slices)) == {("hl.example.org", "A", ("5.5.5.5",), 0)}


def test_headless_skips_fqdn_address_type_and_non_pods() -> None:
    slices = [endpoint_slice("hl", [("hl-0", "pod.example.net", True)], address_type="FQDN")]
    slices[0]["endpoints"].append({"addresses": ["10.1.0.5"], "targetRef": {"kind": "Node", "name": "n1"}})
    assert run(headless(), pods=HL_PODS, endpoint_slices=slices) == []


# -- templates and filters -------------------------------------------------------------------------------------

def test_fqdn_template_used_only_without_annotation() -> None:
    opts = SourceOptions(fqdn_template="{{.Name}}.{{.Namespace}}.example.org")
    plain = service("web", "shop", lb_ips=("1.2.3.4",))
    assert summary(run(plain, opts)) == {("web.shop.example.org", "A", ("1.2.3.4",), 0)}
    annotated = service("web", "shop", annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4",))
    assert summary(run(annotated, opts)) == {("a.example.org", "A", ("1.2.3.4",), 0)}
    combined = SourceOptions(fqdn_template="{{.Name}}.example.org", combine_fqdn_annotation=True)
    assert summary(run(annotated, combined)) == {("a.example.org", "A", ("1.2.3.4",), 0),
                                                 ("web.example.org", "A", ("1.2.3.4",), 0)}
    ignoring = SourceOptions(fqdn_template="{{.Name}}.example.org", ignore_hostname_annotation=True)
    assert summary(run(annotated, ignoring)) == {("web.example.org", "A", ("1.2.3.4",), 0)}


def test_fqdn_template_error_is_a_problem() -> None:
    opts = SourceOptions(fqdn_template="{{.Spec.nothing}}.example.org")
    eps, problems = service_endpoints(service(lb_ips=("1.2.3.4",)), opts)
    assert eps == []
    [p] = problems
    assert p.ref == "service/default/web" and p.field == "--fqdn-template" and "nothing" in p.message


@pytest.mark.parametrize(
    ("opts", "kept"),
    [
        (SourceOptions(namespace="shop"), False),
        (SourceOptions(namespace="default"), True),
        (SourceOptions(label_filter="team=a"), True),
        (SourceOptions(label_filter="team in (b,c)"), False),
        (SourceOptions(annotation_filter=PREFIX + "hostname"), True),
        (SourceOptions(annotation_filter="x.io/enabled=true"), False),
        (SourceOptions(service_type_filter=["LoadBalancer"]), True),
        (SourceOptions(service_type_filter=["NodePort", "ClusterIP"]), False),
    ],
)
def test_filters(opts: SourceOptions, kept: bool) -> None:
    svc = service(labels={"team": "a"}, annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4",))
    assert bool(run(svc, opts)) is kept


def test_controller_annotation() -> None:
    assert run(service(annotations=ann(hostname="a.example.org", controller="dns-controller"), lb_ips=("1.1.1.1",)))
    assert run(service(annotations=ann(hostname="a.example.org", controller="other"), lb_ips=("1.1.1.1",))) == []


# -- bad input ------------------------------------------------------------------------------------------------

def test_bad_ttl_keeps_record_with_default_ttl() -> None:
    eps, problems = service_endpoints(service(annotations=ann(hostname="a.example.org", ttl="abc"),
                                              lb_ips=("1.2.3.4",)), OPTS)
    assert summary(eps) == {("a.example.org", "A", ("1.2.3.4",), 0)}
    [p] = problems
    assert (p.ref, p.field, p.value) == ("service/default/web", PREFIX + "ttl", "abc")


@pytest.mark.parametrize(
    ("hostnames", "fragment"),
    [
        ("y" * 64 + ".example.org", "longer than 63"),
        ("a." * 126 + "org", "longer than 253"),
        ("a.*.example.org", "'*' is only allowed"),
    ],
)
def test_bad_hostnames_skipped_others_kept(hostnames: str, fragment: str) -> None:
    svc = service(annotations=ann(hostname=f"{hostnames},ok.example.org"), lb_ips=("1.2.3.4",))
    eps, problems = service_endpoints(svc, OPTS)
    assert summary(eps) == {("ok.example.org", "A", ("1.2.3.4",), 0)}
    [p] = problems
    assert p.field == PREFIX + "hostname" and fragment in p.message


def test_bad_status_target_reported() -> None:
    svc = service(annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4", "300.1.1.1"))
    eps, problems = service_endpoints(svc, OPTS)
    assert summary(eps) == {("a.example.org", "A", ("1.2.3.4",), 0)}
    [p] = problems
    assert p.field == "status.loadBalancer.ingress[1].ip" and p.value == "300.1.1.1"


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s["metadata"].__setitem__("annotations", ["x"]), "metadata.annotations"),
        (lambda s: s["metadata"]["annotations"].__setitem__(PREFIX + "ttl", 60), f"metadata.annotations['{PREFIX}ttl']"),
        (lambda s: s.__setitem__("spec", "LoadBalancer"), "spec"),
        (lambda s: s["spec"].__setitem__("externalIPs", "1.1.1.1"), "spec.externalIPs"),
        (lambda s: s["status"]["loadBalancer"].__setitem__("ingress", [{"ip": 5}]), "status.loadBalancer.ingress[0].ip"),
        (lambda s: s["metadata"].__setitem__("name", ["web"]), "metadata.name"),
    ],
)
def test_malformed_object_is_one_error_naming_the_field(mutate: Any, field: str) -> None:
    svc = service(annotations=ann(hostname="a.example.org"), lb_ips=("1.2.3.4",))
    mutate(svc)
    eps, problems = service_endpoints(svc, OPTS)
    assert eps == []
    assert problems[-1].field == field
    assert problems[-1].severity == "error"


def test_malformed_node_port() -> None:
    svc = nodeport()
    svc["spec"]["ports"][0]["nodePort"] = "30080"
    eps, problems = service_endpoints(svc, OPTS, nodes=NODES)
    assert eps == [] and problems[-1].field == "spec.ports[0].nodePort"


# -- merging across services -----------------------------------------------------------------------------------

def test_merge_across_services() -> None:
    a = run(service("b-svc", annotations=ann(hostname="x.example.org"), lb_ips=("1.1.1.1",)))
    b = run(service("a-svc", annotations=ann(hostname="x.example.org"), lb_ips=("2.2.2.2",)))
    c1 = run(service("c1", annotations=ann(hostname="c.example.org"), lb_hostnames=("one.example.net",)))
    c2 = run(service("c2", annotations=ann(hostname="c.example.org"), lb_hostnames=("two.example.net",)))
    merged = merge_service_endpoints(a + b + c1 + c2)
    x = [e for e in merged if e.dns_name == "x.example.org"]
    assert len(x) == 1
    assert list(x[0].targets) == ["1.1.1.1", "2.2.2.2"]
    assert x[0].labels["resource"] == "service/default/a-svc"  # lowest resource name keeps ownership
    assert len(x[0].ref_objects) == 2
    cnames = sorted((e.labels["resource"], tuple(e.targets)) for e in merged if e.dns_name == "c.example.org")
    assert cnames == [("service/default/c1", ("one.example.net",)), ("service/default/c2", ("two.example.net",))]
    assert list(a[0].targets) == ["1.1.1.1"]  # inputs untouched


def test_collect_service_endpoints_groups_related_objects() -> None:
    from external_dns.sources.objects.service import collect_service_endpoints

    hl_a = service("hl", "a", type="ClusterIP", cluster_ip="None", annotations=ann(hostname="hl-a.example.org"))
    hl_b = service("hl", "b", type="ClusterIP", cluster_ip="None", annotations=ann(hostname="hl-b.example.org"))
    bad = service("bad", annotations=ann(hostname="bad.example.org", ttl="x"), lb_ips=("1.1.1.1",))
    pods = [pod("p", "a"), pod("p", "b")]
    slices = [endpoint_slice("hl", [("p", "10.0.0.1", True)], namespace="a"),
              endpoint_slice("hl", [("p", "10.0.0.2", True)], namespace="b")]
    eps, problems = collect_service_endpoints([hl_a, hl_b, bad], OPTS, pods=pods, endpoint_slices=slices)
    assert summary(eps) == {("hl-a.example.org", "A", ("10.0.0.1",), 0), ("hl-b.example.org", "A", ("10.0.0.2",), 0),
                            ("bad.example.org", "A", ("1.1.1.1",), 0)}
    assert [p.ref for p in problems] == ["service/default/bad"]
