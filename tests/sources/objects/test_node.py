"""Node -> endpoints (sources/objects/node.py): the cases external-dns's node source documentation describes, and
bad input reported by name."""

from __future__ import annotations

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as P
from external_dns.sources.objects.node import collect_node_endpoints, node_endpoints
from external_dns.sources.options import SourceOptions
from tests.sources.objects.builders import node, records

TEMPLATE = SourceOptions(fqdn_template="{{.Name}}.nodes.example.org")


def test_node_external_ip_preferred_with_template() -> None:
    out = node_endpoints(node(), TEMPLATE)
    assert records(out) == {"n1.nodes.example.org A": ["203.0.113.1"]}
    assert out.endpoints[0].labels["resource"] == "node/n1"


def test_node_without_template_uses_node_name() -> None:
    assert records(node_endpoints(node("n1.example.org"), SourceOptions())) == {"n1.example.org A": ["203.0.113.1"]}


def test_node_internal_ip_fallback_and_ipv6() -> None:
    n = node(addresses=[("InternalIP", "10.0.0.1"), ("InternalIP", "fd00::1")])
    assert records(node_endpoints(n, TEMPLATE)) == {"n1.nodes.example.org A": ["10.0.0.1"],
                                                    "n1.nodes.example.org AAAA": ["fd00::1"]}


def test_node_ipv6_internal_with_external_only_when_exposed() -> None:
    n = node(addresses=[("ExternalIP", "203.0.113.1"), ("ExternalIP", "2001:db8::1"), ("InternalIP", "fd00::1")])
    assert records(node_endpoints(n, TEMPLATE)) == {"n1.nodes.example.org A": ["203.0.113.1"],
                                                    "n1.nodes.example.org AAAA": ["2001:db8::1"]}
    exposed = SourceOptions(fqdn_template="{{.Name}}.nodes.example.org", expose_internal_ipv6=True)
    assert records(node_endpoints(n, exposed))["n1.nodes.example.org AAAA"] == ["2001:db8::1", "fd00::1"]


def test_node_unschedulable_excluded_unless_flag_off() -> None:
    n = node(unschedulable=True)
    assert node_endpoints(n, TEMPLATE).endpoints == []
    keep = SourceOptions(fqdn_template="{{.Name}}.nodes.example.org", exclude_unschedulable=False)
    assert records(node_endpoints(n, keep)) == {"n1.nodes.example.org A": ["203.0.113.1"]}


def test_node_annotations_ttl_target_controller() -> None:
    n = node(annotations={P + "ttl": "60", P + "target": "198.51.100.7"})
    out = node_endpoints(n, TEMPLATE)
    assert records(out) == {"n1.nodes.example.org A": ["198.51.100.7"]} and out.endpoints[0].record_ttl == 60
    assert node_endpoints(node(annotations={P + "controller": "other"}), TEMPLATE).endpoints == []


def test_node_label_and_annotation_filters_ignore_namespace() -> None:
    n = node(labels={"role": "edge"}, annotations={"expose": "yes"})
    assert node_endpoints(n, SourceOptions(fqdn_template="{{.Name}}.x.org", label_filter="role=edge",
                                           namespace="default")).endpoints
    assert not node_endpoints(n, SourceOptions(label_filter="role=db")).endpoints
    assert not node_endpoints(n, SourceOptions(annotation_filter="expose=no")).endpoints


def test_nodes_sharing_a_name_are_merged() -> None:
    opts = SourceOptions(fqdn_template="nodes.example.org")
    n2 = node("n2", addresses=[("ExternalIP", "203.0.113.2")])
    out = collect_node_endpoints([node(), n2], opts)
    assert records(out) == {"nodes.example.org A": ["203.0.113.1", "203.0.113.2"]}


def test_node_without_address_is_reported_others_publish() -> None:
    bare = node("bare", addresses=[])
    out = collect_node_endpoints([bare, node()], TEMPLATE)
    assert records(out) == {"n1.nodes.example.org A": ["203.0.113.1"]}
    assert [str(p) for p in out.problems] == [
        "node//bare: status.addresses: the node has no ExternalIP or InternalIP address; it publishes nothing"]


def test_malformed_node_address_named() -> None:
    bad = node("bad")
    bad["status"]["addresses"] = ["10.0.0.1"]
    out = node_endpoints(bad, TEMPLATE)
    assert out.endpoints == [] and str(out.problems[0]).startswith("node//bad: status.addresses[0]=")
