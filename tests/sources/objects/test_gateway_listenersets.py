"""--gateway-listener-sets (sources/objects/gateway.py `listener_set_parent`): routes attached to a ListenerSet
reach its Gateway, as external-dns's ListenerSet support does (the cases of its source/gateway_listenerset_test.go,
re-expressed): accepted route, set and listener; the Gateway's allowedListeners; the set's own listeners
(section, allowedRoutes from the set's namespace, host name intersection); targets from the set's `target`
annotation, else the Gateway's; the Gateway filters; a missing set reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as P
from external_dns.sources.objects.gateway import GatewayOptions, lookup_from, route_endpoints
from external_dns.sources.options import SourceOptions
from tests.helpers.cli import run_cli
from tests.helpers.gateway import gateway, listener, listener_set, ls_ref, route

ON = GatewayOptions(listener_sets=True)
ALL = {"from": "All"}
FROM_ALL = {"namespaces": {"from": "All"}}


def run(routes: list[dict[str, Any]], gateways: list[dict[str, Any]], sets: list[dict[str, Any]],
        gw: GatewayOptions = ON, options: SourceOptions | None = None,
        namespaces: list[dict[str, Any]] | None = None) -> tuple[dict[str, list[str]], list[str]]:
    records: dict[str, list[str]] = {}
    problems: list[str] = []
    for rt in routes:
        out = route_endpoints(rt, "HTTPRoute", options or SourceOptions(), gw, lookup_from(gateways, namespaces or [], sets))
        records.update({f"{ep.dns_name} {ep.record_type}": sorted(ep.targets) for ep in out.endpoints})
        problems += [str(p) for p in out.problems]
    return records, problems


def gw(**kw: Any) -> dict[str, Any]:
    return gateway(**{"addresses": ["10.64.0.1", "10.64.0.2"], "allowed_listeners": ALL, **kw})


def app_set(**kw: Any) -> dict[str, Any]:
    return listener_set(**{"listeners": [listener("app", port=8080, hostname="*.example.com",
                                                  allowedRoutes=FROM_ALL)], **kw})


def test_a_route_on_a_listener_set_gets_the_gateway_addresses() -> None:
    records, problems = run([route(hostnames=["app.example.com"], parents=[ls_ref()])], [gw()], [app_set()])
    assert records == {"app.example.com A": ["10.64.0.1", "10.64.0.2"]} and problems == []


def test_wildcard_listener_host_names_intersect() -> None:
    records, _ = run([route(hostnames=["sub.domain.example.com", "other.example.net"], parents=[ls_ref()])],
                     [gw()], [app_set()])
    assert records == {"sub.domain.example.com A": ["10.64.0.1", "10.64.0.2"]}


def test_not_followed_without_the_flag() -> None:
    records, _ = run([route(hostnames=["app.example.com"], parents=[ls_ref()])], [gw()], [app_set()],
                     gw=GatewayOptions())
    assert records == {}


@pytest.mark.parametrize(("case", "gateways", "sets", "route_kw"), [
    ("route not accepted", [gw()], [app_set()], {"accepted": False}),
    ("gateway allows no listener sets", [gw(allowed_listeners=None)], [app_set()], {}),
    ("gateway allows none", [gw(allowed_listeners={"from": "None"})], [app_set()], {}),
    ("set not accepted", [gw()], [app_set(accepted=False)], {}),
    ("set without status", [gw()], [app_set(accepted=None)], {}),
    ("listener without status", [gw()], [app_set(accepted_listeners=[])], {}),
    ("gateway missing", [], [app_set()], {}),
])
def test_nothing_unless_every_step_accepts(case: str, gateways: list[dict[str, Any]], sets: list[dict[str, Any]],
                                           route_kw: dict[str, Any]) -> None:
    records, _ = run([route(hostnames=["app.example.com"], parents=[ls_ref()], **route_kw)], gateways, sets)
    assert records == {}, case


def test_a_rejected_listener_publishes_nothing() -> None:
    ls = app_set()
    ls["status"]["listeners"][0]["conditions"][0]["status"] = "False"
    records, _ = run([route(hostnames=["app.example.com"], parents=[ls_ref(sectionName="app")])], [gw()], [ls])
    assert records == {}


def test_targets_from_the_set_annotation_then_the_gateway_annotation() -> None:
    gw_ann = gw(annotations={P + "target": "override.example.com"})
    rt = route(hostnames=["app.example.com"], parents=[ls_ref()])
    assert run([rt], [gw_ann], [app_set()])[0] == {"app.example.com CNAME": ["override.example.com"]}
    own = app_set(annotations={P + "target": "192.0.2.77"})
    assert run([rt], [gw_ann], [own])[0] == {"app.example.com A": ["192.0.2.77"]}


def test_allowed_routes_same_means_the_set_namespace() -> None:
    same = listener_set(listeners=[listener("app", port=8080, hostname="app.example.com")])  # from: Same
    rt_other = route(namespace="other", hostnames=["app.example.com"], parents=[ls_ref(namespace="default")])
    rt_same = route(name="here", hostnames=["app.example.com"], parents=[ls_ref()])
    assert run([rt_other], [gw()], [same])[0] == {}
    assert run([rt_same], [gw()], [same])[0] == {"app.example.com A": ["10.64.0.1", "10.64.0.2"]}


def test_section_name_picks_one_listener() -> None:
    two = listener_set(listeners=[listener("app", port=8080, hostname="app.example.com", allowedRoutes=FROM_ALL),
                                  listener("api", port=8081, hostname="api.example.com", allowedRoutes=FROM_ALL)])
    rt = route(hostnames=["app.example.com", "api.example.com"], parents=[ls_ref(sectionName="api")])
    assert run([rt], [gw()], [two])[0] == {"api.example.com A": ["10.64.0.1", "10.64.0.2"]}


def test_gateway_filters_apply_to_the_set_gateway() -> None:
    match = gw(name="labels-match", labels={"foo": "bar"}, addresses=["10.0.0.1"])
    other = gw(name="labels-dont-match", labels={"foo": "qux"}, addresses=["10.0.0.2"])
    sets = [app_set(name="ls-match", gateway="labels-match"), app_set(name="ls-other", gateway="labels-dont-match")]
    rt = route(hostnames=["app.example.com"], parents=[ls_ref("ls-match"), ls_ref("ls-other")])
    records, _ = run([rt], [match, other], sets,
                     gw=GatewayOptions(gateway_label_filter="foo=bar", listener_sets=True))
    assert records == {"app.example.com A": ["10.0.0.1"]}
    records, _ = run([rt], [match, other], sets, gw=GatewayOptions(gateway_name="labels-dont-match",
                                                                   listener_sets=True))
    assert records == {"app.example.com A": ["10.0.0.2"]}


def test_route_label_filter() -> None:
    routes = [route(name="m", labels={"foo": "bar"}, hostnames=["m.example.com"], parents=[ls_ref(namespace="default")]),
              route(name="d", labels={"foo": "qux"}, hostnames=["d.example.com"], parents=[ls_ref(namespace="default")])]
    records, _ = run(routes, [gw()], [app_set()], options=SourceOptions(label_filter="foo=bar"))
    assert records == {"m.example.com A": ["10.64.0.1", "10.64.0.2"]}


def test_cross_namespace_sets_and_the_gateway_namespace_filter() -> None:
    shared = gw(name="shared-gw", namespace="infra", addresses=["10.0.0.1"],
                allowed_listeners={"from": "Selector", "selector": {"matchLabels": {"listener-set": "enabled"}}})
    edge = app_set(name="edge-ls", namespace="edge", gateway="shared-gw", gateway_namespace="infra")
    rt = route(namespace="apps", hostnames=["app.example.com"], parents=[ls_ref("edge-ls", namespace="edge")])
    labelled = [{"metadata": {"name": "edge", "labels": {"listener-set": "enabled"}}}]
    for options in (ON, GatewayOptions(gateway_namespace="infra", listener_sets=True)):
        assert run([rt], [shared], [edge], gw=options, namespaces=labelled)[0] == {"app.example.com A": ["10.0.0.1"]}
    assert run([rt], [shared], [edge], namespaces=[{"metadata": {"name": "edge"}}])[0] == {}  # selector unmatched
    assert run([rt], [shared], [edge], gw=GatewayOptions(gateway_namespace="edge", listener_sets=True),
               namespaces=labelled)[0] == {}


def test_a_missing_set_is_reported_on_the_route() -> None:
    records, problems = run([route(hostnames=["app.example.com"], parents=[ls_ref("gone")])], [gw()], [])
    assert records == {}
    assert any("spec.parentRefs[0].name" in p and "ListenerSet default/gone does not exist" in p for p in problems)
    # and not without the flag (such parents are not followed at all then)
    assert run([route(hostnames=["a.example.com"], parents=[ls_ref("gone")])], [gw()], [], gw=GatewayOptions())[1] == []


@pytest.mark.integration
def test_the_flag_through_the_program(tmp_path: Path) -> None:
    """Manifests (manifest source) with a ListenerSet: the record only with the flag; `rbac` adds the rule."""
    manifests, zones = tmp_path / "m", tmp_path / "z"
    manifests.mkdir()
    objects = [gw(addresses=["192.0.2.5"]), app_set(), route(hostnames=["app.example.com"], parents=[ls_ref()])]
    (manifests / "gateway.yaml").write_text(yaml.safe_dump_all(objects))
    args = ["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=zonefile",
            f"--zonefile-dir={zones}", "--zonefile-create-zone=example.com", "--policy=sync"]
    run_cli(args)
    assert "app " not in (zones / "example.com.zone").read_text()
    run_cli([*args, "--gateway-listener-sets"])
    assert "app 300 IN A 192.0.2.5" in (zones / "example.com.zone").read_text()
    rules = yaml.safe_load(run_cli(["rbac", "gateway-httproute", "--gateway-listener-sets"]).stdout)
    assert any("listenersets" in rule["resources"] for rule in rules)
