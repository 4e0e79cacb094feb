"""Gateway API route -> endpoints (sources/objects/gateway.py): the cases external-dns's gateway source
documentation describes (host names from routes, annotations and templates, matching Gateways and
listeners, targets), wildcard intersection, and bad input reported by name while other routes still publish."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as P
from external_dns.sources.objects.gateway import (
    GatewayOptions,
    collect_route_endpoints,
    lookup_from,
    match_hostname,
    route_endpoints,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.selector import SelectorError
from tests.helpers.gateway import gateway, listener, route


def run(rt: dict[str, Any], gateways: list[dict[str, Any]], kind: str = "HTTPRoute",
        options: SourceOptions | None = None, gw: GatewayOptions | None = None,
        namespaces: list[dict[str, Any]] | None = None) -> tuple[dict[str, list[str]], list[str]]:
    out = route_endpoints(rt, kind, options or SourceOptions(), gw or GatewayOptions(),
                          lookup_from(gateways, namespaces or []))
    records = {f"{ep.dns_name} {ep.record_type}": sorted(ep.targets) for ep in out.endpoints}
    return records, [str(p) for p in out.problems]


GW = gateway(addresses=["192.0.2.1"])


@pytest.mark.parametrize(("listener_host", "route_host", "expected"), [
    ("", "a.example.org", "a.example.org"),
    ("a.example.org", "", "a.example.org"),
    ("", "", ""),
    ("a.example.org", "A.Example.Org.", "a.example.org"),
    ("*.example.org", "a.example.org", "a.example.org"),
    ("*.example.org", "a.b.example.org", "a.b.example.org"),
    ("a.example.org", "*.example.org", "a.example.org"),
    ("*.example.org", "*.example.org", "*.example.org"),
    ("*.example.org", "*.a.example.org", "*.a.example.org"),
    ("*.a.example.org", "*.example.org", "*.a.example.org"),
    ("*.example.org", "example.org", None),
    ("a.example.org", "b.example.org", None),
    ("*.example.org", "a.example.net", None),
])
def test_match_hostname(listener_host: str, route_host: str, expected: str | None) -> None:
    assert match_hostname(listener_host, route_host) == expected


def test_route_hostnames_with_gateway_address() -> None:
    records, problems = run(route(hostnames=["echo.example.org"]), [GW])
    assert records == {"echo.example.org A": ["192.0.2.1"]} and problems == []


def test_resource_label_and_ref_object() -> None:
    rt = route(hostnames=["echo.example.org"])
    out = route_endpoints(rt, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([GW]))
    assert out.endpoints[0].labels["resource"] == "httproute/default/echo"
    assert out.endpoints[0].ref_objects == [rt]


def test_listener_hostname_narrows_route_hostnames() -> None:
    gw = gateway(listeners=[listener(hostname="*.example.org")], addresses=["192.0.2.1"])
    records, _ = run(route(hostnames=["a.example.org", "b.example.net", "*.example.org"]), [gw])
    assert records == {"a.example.org A": ["192.0.2.1"], "*.example.org A": ["192.0.2.1"]}


def test_route_without_hostnames_uses_listener_hostname() -> None:
    gw = gateway(listeners=[listener(hostname="gw.example.org")], addresses=["192.0.2.1"])
    records, problems = run(route(), [gw])
    assert records == {"gw.example.org A": ["192.0.2.1"]} and problems == []


def test_route_and_listener_without_hostname_is_reported() -> None:
    records, problems = run(route(), [GW])
    assert records == {}
    assert problems == ["httproute/default/echo: spec.hostnames: no host name to publish: neither the route nor "
                        "listener 'http' (spec.listeners[0].hostname) of Gateway default/gw has one (set "
                        f"spec.hostnames or the {P}hostname annotation)"]


def test_hostname_annotation_added_and_ignored_with_flag() -> None:
    rt = route(hostnames=["a.example.org"], annotations={P + "hostname": "b.example.org"})
    records, _ = run(rt, [GW])
    assert set(records) == {"a.example.org A", "b.example.org A"}
    records, _ = run(rt, [GW], options=SourceOptions(ignore_hostname_annotation=True,
                                                      fqdn_template="{{.Name}}.t.example.org"))
    assert set(records) == {"a.example.org A"}


@pytest.mark.parametrize(("source", "expected"), [
    ("defined-hosts-only", {"a.example.org A"}),
    ("annotation-only", {"b.example.org A"}),
])
def test_gateway_hostname_source_annotation(source: str, expected: set[str]) -> None:
    rt = route(hostnames=["a.example.org"],
               annotations={P + "hostname": "b.example.org", P + "gateway-hostname-source": source})
    records, _ = run(rt, [GW])
    assert set(records) == expected


def test_fqdn_template_only_without_other_names_or_combined() -> None:
    opts = SourceOptions(fqdn_template="{{.Name}}.t.example.org")
    records, _ = run(route(hostnames=["a.example.org"]), [GW], options=opts)
    assert set(records) == {"a.example.org A"}
    records, _ = run(route(), [GW], options=opts)
    assert set(records) == {"echo.t.example.org A"}
    opts = SourceOptions(fqdn_template="{{.Name}}.t.example.org", combine_fqdn_annotation=True)
    records, _ = run(route(hostnames=["a.example.org"]), [GW], options=opts)
    assert set(records) == {"a.example.org A", "echo.t.example.org A"}


def test_tcp_and_udp_routes_take_names_from_annotations_only() -> None:
    gw = gateway(listeners=[listener("tcp", "TCP", 5432), listener("udp", "UDP", 53)], addresses=["192.0.2.1"])
    tcp = route("TCPRoute", hostnames=["ignored.example.org"], annotations={P + "hostname": "db.example.org"})
    records, _ = run(tcp, [gw], kind="TCPRoute")
    assert set(records) == {"db.example.org A"}
    udp = route("UDPRoute", annotations={P + "hostname": "dns.example.org"})
    records, _ = run(udp, [gw], kind="UDPRoute")
    assert set(records) == {"dns.example.org A"}


@pytest.mark.parametrize(("kind", "protocol", "matches"), [
    ("HTTPRoute", "HTTP", True), ("HTTPRoute", "HTTPS", True), ("HTTPRoute", "TLS", False),
    ("GRPCRoute", "HTTPS", True), ("GRPCRoute", "TCP", False),
    ("TLSRoute", "TLS", True), ("TLSRoute", "HTTPS", False),
    ("TCPRoute", "TCP", True), ("TCPRoute", "UDP", False),
    ("UDPRoute", "UDP", True), ("UDPRoute", "TCP", False),
])
def test_listener_protocol_must_suit_route_kind(kind: str, protocol: str, matches: bool) -> None:
    gw = gateway(listeners=[listener("l", protocol, 443, hostname="x.example.org")], addresses=["192.0.2.1"])
    records, _ = run(route(kind, annotations={P + "hostname": "x.example.org"}), [gw], kind=kind)
    assert bool(records) is matches


def test_section_name_and_port_select_listeners() -> None:
    gw = gateway(listeners=[listener("a", hostname="a.example.org", port=80),
                            listener("b", hostname="b.example.org", port=8080)], addresses=["192.0.2.1"])
    records, _ = run(route(parents=[{"name": "gw", "sectionName": "b"}]), [gw])
    assert set(records) == {"b.example.org A"}
    records, _ = run(route(parents=[{"name": "gw", "port": 80}]), [gw])
    assert set(records) == {"a.example.org A"}
    records, _ = run(route(parents=[{"name": "gw", "sectionName": "a", "port": 8080}]), [gw])
    assert records == {}


def test_allowed_routes_namespaces() -> None:
    def gw_from(origin: str, **extra: Any) -> dict[str, Any]:
        return gateway(namespace="infra", addresses=["192.0.2.1"], listeners=[listener(
            hostname="*.example.org", allowedRoutes={"namespaces": {"from": origin, **extra}})])

    rt = route(namespace="apps", hostnames=["a.example.org"], parents=[{"name": "gw", "namespace": "infra"}])
    assert run(rt, [gw_from("Same")])[0] == {}
    assert run(rt, [gw_from("All")])[0] == {"a.example.org A": ["192.0.2.1"]}
    ns = [{"metadata": {"name": "apps", "labels": {"expose": "yes"}}}]
    selector = {"selector": {"matchLabels": {"expose": "yes"}}}
    assert run(rt, [gw_from("Selector", **selector)], namespaces=ns)[0] == {"a.example.org A": ["192.0.2.1"]}
    assert run(rt, [gw_from("Selector", selector={"matchLabels": {"expose": "no"}})], namespaces=ns)[0] == {}
    # the listener's default is Same: a route in the Gateway's namespace
    same = route(namespace="infra", hostnames=["a.example.org"])
    assert run(same, [gateway(namespace="infra", addresses=["192.0.2.1"])])[0] == {"a.example.org A": ["192.0.2.1"]}


def test_allowed_routes_kinds() -> None:
    gw = gateway(addresses=["192.0.2.1"], listeners=[listener(allowedRoutes={"kinds": [{"kind": "GRPCRoute"}]})])
    assert run(route(hostnames=["a.example.org"]), [gw])[0] == {}
    assert run(route("GRPCRoute", hostnames=["a.example.org"]), [gw], kind="GRPCRoute")[0] != {}


def test_only_accepted_parents_count() -> None:
    assert run(route(hostnames=["a.example.org"], accepted=False), [GW])[0] == {}
    assert run(route(hostnames=["a.example.org"], status=False), [GW])[0] == {}


def test_stale_status_parent_not_in_spec_is_ignored() -> None:
    rt = route(hostnames=["a.example.org"])
    rt["spec"]["parentRefs"] = [{"name": "other"}]
    other = gateway("other", addresses=["192.0.2.9"])
    assert run(rt, [GW, other])[0] == {}


def test_parent_of_another_kind_is_ignored() -> None:
    ref = {"group": "example.org", "kind": "Mesh", "name": "gw"}
    assert run(route(hostnames=["a.example.org"], parents=[ref]), [GW]) == ({}, [])


def test_gateway_name_namespace_and_label_filters() -> None:
    gw1 = gateway("internal", addresses=["10.0.0.1"], labels={"scope": "internal"})
    gw2 = gateway("external", namespace="edge", addresses=["192.0.2.1"], labels={"scope": "public"},
                  listeners=[listener(allowedRoutes={"namespaces": {"from": "All"}})])
    rt = route(hostnames=["a.example.org"], parents=[{"name": "internal"}, {"name": "external", "namespace": "edge"}])
    assert run(rt, [gw1, gw2])[0] == {"a.example.org A": ["10.0.0.1", "192.0.2.1"]}
    assert run(rt, [gw1, gw2], gw=GatewayOptions(gateway_name="external"))[0] == {"a.example.org A": ["192.0.2.1"]}
    assert run(rt, [gw1, gw2], gw=GatewayOptions(gateway_namespace="default"))[0] == {"a.example.org A": ["10.0.0.1"]}
    assert run(rt, [gw1, gw2], gw=GatewayOptions(gateway_label_filter="scope=public"))[0] == \
        {"a.example.org A": ["192.0.2.1"]}
    with pytest.raises(SelectorError, match="gateway_label_filter"):
        GatewayOptions(gateway_label_filter="a in (")


def test_gateway_target_annotation_overrides_addresses() -> None:
    gw = gateway(addresses=["192.0.2.1"], annotations={P + "target": "lb.example.net"})
    records, _ = run(route(hostnames=["a.example.org"]), [gw])
    assert records == {"a.example.org CNAME": ["lb.example.net"]}


def test_route_ttl_set_identifier_and_provider_specific_annotations() -> None:
    rt = route(hostnames=["a.example.org"], annotations={P + "ttl": "5m", P + "set-identifier": "eu",
                                                        P + "aws-weight": "10"})
    out = route_endpoints(rt, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([GW]))
    ep = out.endpoints[0]
    assert (ep.record_ttl, ep.set_identifier) == (300, "eu")
    assert [(p.name, p.value) for p in ep.provider_specific] == [("aws/weight", "10")]


def test_dual_stack_and_hostname_addresses() -> None:
    gw = gateway(addresses=["192.0.2.1", "2001:db8::1"])
    assert run(route(hostnames=["a.example.org"]), [gw])[0] == {"a.example.org A": ["192.0.2.1"],
                                                                 "a.example.org AAAA": ["2001:db8::1"]}


def test_controller_annotation_skips_route() -> None:
    rt = route(hostnames=["a.example.org"], annotations={P + "controller": "other"})
    assert run(rt, [GW]) == ({}, [])


def test_label_and_namespace_filters_on_routes() -> None:
    rt = route(hostnames=["a.example.org"], labels={"team": "a"})
    assert run(rt, [GW], options=SourceOptions(label_filter="team=b"))[0] == {}
    assert run(rt, [GW], options=SourceOptions(label_filter="team=a"))[0] != {}
    assert run(rt, [GW], options=SourceOptions(namespace="other"))[0] == {}


def test_missing_gateway_is_reported_and_other_parents_still_publish() -> None:
    rt = route(hostnames=["a.example.org"], parents=[{"name": "gone"}, {"name": "gw"}])
    records, problems = run(rt, [GW])
    assert records == {"a.example.org A": ["192.0.2.1"]}
    assert problems == ["httproute/default/echo: spec.parentRefs[0].name='gone': Gateway default/gone does not "
                        "exist; this parent publishes nothing"]


def test_gateway_without_addresses_is_reported_on_the_gateway() -> None:
    bare = gateway()
    out = route_endpoints(route(hostnames=["a.example.org"]), "HTTPRoute", SourceOptions(), GatewayOptions(),
                          lookup_from([bare]))
    assert out.endpoints == []
    assert [str(p) for p in out.problems] == [
        f"gateway/default/gw: status.addresses: the Gateway has no addresses and no {P}target annotation; "
        "routes attached to it get no DNS records"]
    assert out.problems[0].obj is bare


def test_malformed_route_skipped_by_name_others_publish() -> None:
    bad = route(name="bad", hostnames=["a.example.org"])
    bad["spec"]["parentRefs"] = "gw"
    good = route(name="good", hostnames=["b.example.org"])
    out = collect_route_endpoints([bad, good], "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([GW]))
    assert [ep.dns_name for ep in out.endpoints] == ["b.example.org"]
    assert [str(p) for p in out.problems] == ["httproute/default/bad: spec.parentRefs='gw': must be a list; "
                                              "object skipped"]


def test_invalid_route_hostname_reported() -> None:
    records, problems = run(route(hostnames=["bad_name!.example.org", "a.example.org"]), [GW])
    assert set(records) == {"a.example.org A"}
    assert len(problems) == 1 and problems[0].startswith("httproute/default/echo: spec.hostnames[0]=")


def test_targets_of_several_gateways_are_combined_and_deduplicated() -> None:
    gw2 = gateway("gw2", addresses=["192.0.2.1", "192.0.2.2"])
    rt = route(hostnames=["a.example.org"], parents=[{"name": "gw"}, {"name": "gw2"}])
    assert run(rt, [GW, gw2])[0] == {"a.example.org A": ["192.0.2.1", "192.0.2.2"]}


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown route kind"):
        route_endpoints(route(), "FooRoute", SourceOptions(), GatewayOptions(), lookup_from([]))


def test_target_annotation_on_route_is_reported_not_used() -> None:
    rt = route(hostnames=["a.example.org"], annotations={P + "target": "1.2.3.4"})
    records, problems = run(rt, [GW])
    assert records == {"a.example.org A": ["192.0.2.1"]}
    assert problems == [f"httproute/default/echo: {P}target='1.2.3.4': the target annotation is read on the "
                        "parent Gateway, not on the route; ignored"]


LABELS = ["a", "b", "example", "org"]


def _names() -> Any:
    from hypothesis import strategies as st

    plain = st.lists(st.sampled_from(LABELS), min_size=1, max_size=4).map(".".join)
    return st.one_of(st.just(""), plain, plain.map(lambda n: "*." + n))


def _covers(pattern: str, name: str) -> bool:
    """Does a (possibly wildcard) host name pattern cover `name` (a name or a narrower wildcard)?"""
    if not pattern or pattern == name:
        return True
    return pattern.startswith("*.") and name.endswith(pattern[1:]) and len(name) > len(pattern) - 1


def test_match_hostname_properties() -> None:
    from hypothesis import given, settings

    @settings(max_examples=500, deadline=None)
    @given(_names(), _names())
    def check(listener_host: str, route_host: str) -> None:
        shared = match_hostname(listener_host, route_host)
        # symmetric (the Gateway API intersection does not care which side is the listener)
        assert shared == match_hostname(route_host, listener_host)
        if shared:
            # what is published is within both the listener's and the route's host names
            assert _covers(listener_host, shared) and _covers(route_host, shared)
        elif shared is None:
            # no intersection: neither side covers the other
            assert not _covers(listener_host, route_host) and not _covers(route_host, listener_host)

    check()


def test_malformed_gateway_reported_on_it_other_parents_publish() -> None:
    broken = gateway("broken", addresses=["192.0.2.9"])
    broken["spec"]["listeners"] = {"name": "http"}
    rt = route(hostnames=["a.example.org"], parents=[{"name": "broken"}, {"name": "gw"}])
    out = route_endpoints(rt, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([broken, GW]))
    assert [(e.dns_name, list(e.targets)) for e in out.endpoints] == [("a.example.org", ["192.0.2.1"])]
    assert [(p.ref, p.field, p.message) for p in out.problems] == [
        ("gateway/default/broken", "spec.listeners", "must be a list; object skipped")]
    assert out.problems[0].obj is broken


def test_malformed_status_parent_names_the_field() -> None:
    rt = route(hostnames=["a.example.org"])
    rt["status"]["parents"][0]["parentRef"] = {"name": "gw", "port": "80"}
    out = route_endpoints(rt, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([GW]))
    assert out.endpoints == []
    assert [p.field for p in out.problems] == ["status.parents[0].parentRef.port"]


def test_hostless_listener_not_reported_when_another_listener_names_the_route() -> None:
    gw = gateway(addresses=["192.0.2.1"], listeners=[listener("any"), listener("named", hostname="gw.example.org",
                                                                                port=8080)])
    records, problems = run(route(), [gw])
    assert records == {"gw.example.org A": ["192.0.2.1"]} and problems == []


def test_route_annotations_on_the_gateway_are_reported_not_used() -> None:
    """external-dns reads only `target` on a Gateway: `hostname`, `ttl` and `gateway-hostname-source` placed there
    are reported on the Gateway (once per pass, whatever the number of routes) and change nothing."""
    gw = gateway(addresses=["192.0.2.1"], annotations={P + "hostname": "gw.example.org", P + "ttl": "60",
                                                       P + "gateway-hostname-source": "annotation-only"})
    routes = [route(name=n, hostnames=[f"{n}.example.org"]) for n in ("a", "b")]
    out = collect_route_endpoints(routes, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([gw]))
    assert sorted((e.dns_name, e.record_ttl) for e in out.endpoints) == [("a.example.org", 0), ("b.example.org", 0)]
    assert sorted({(p.ref, p.field) for p in out.problems}) == [
        ("gateway/default/gw", P + "gateway-hostname-source"), ("gateway/default/gw", P + "hostname"),
        ("gateway/default/gw", P + "ttl")]
    assert all(p.obj is gw and "read on the routes, not on their Gateway" in p.message for p in out.problems)


def test_annotation_filter_on_routes() -> None:
    rt = route(hostnames=["a.example.org"], annotations={"team": "web"})
    assert run(rt, [GW], options=SourceOptions(annotation_filter="team=web"))[0] == {"a.example.org A": ["192.0.2.1"]}
    assert run(rt, [GW], options=SourceOptions(annotation_filter="team=db"))[0] == {}
