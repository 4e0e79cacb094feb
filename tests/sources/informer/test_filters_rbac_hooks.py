"""Admission predicates and indexes, the RBAC rules table and CLI, the process hook (recorder wiring,
conflict Events) and the builders' configuration errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from external_dns.cmd.build import SOURCE_BUILDERS
from external_dns.cmd.build_k8s_sources import build_crd, build_ingress, build_service
from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import DeletedFinalStateUnknown
from external_dns.plan.changes import Changes
from external_dns.sources.informer.filters import (
    admits_ingress,
    admits_service,
    selector_index,
    service_name_index,
)
from external_dns.sources.informer.hooks import ConflictReporter, informer_sources
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions
from external_dns.sources.rbac import (
    SOURCE_RULES,
    rbac_document,
    rules_for_sources,
    service_informer_resources,
)
from external_dns.sources.wrappers import MultiSource, PostProcessorSource
from tests.helpers import endpoints

ROOT = Path(__file__).resolve().parents[3]
PREFIX = "external-dns.kubernetes.io/"


def obj(name: str = "web", ns: str = "default", labels: Any = None, annotations: Any = None,
        spec: Any = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": spec if spec is not None else {}}


# -- admission ---------------------------------------------------------------------------------------------
def test_service_admission() -> None:
    admit = admits_service(SourceOptions(namespace="default", label_filter="team=x",
                                         annotation_filter="scope", service_type_filter=["LoadBalancer"]))
    ok = obj(labels={"team": "x"}, annotations={"scope": "a"}, spec={"type": "LoadBalancer"})
    assert admit(ok)
    assert not admit({**ok, "metadata": {**ok["metadata"], "namespace": "other"}})
    assert not admit(obj(labels={"team": "y"}, annotations={"scope": "a"}, spec={"type": "LoadBalancer"}))
    assert not admit(obj(labels={"team": "x"}, annotations={}, spec={"type": "LoadBalancer"}))
    assert not admit(obj(labels={"team": "x"}, annotations={"scope": "a"}, spec={"type": "NodePort"}))
    assert not admit(obj(labels={"team": "x"}, annotations={"scope": "a", PREFIX + "controller": "other"},
                         spec={"type": "LoadBalancer"}))
    assert admit(obj(labels={"team": "x"}, annotations={"scope": "a", PREFIX + "controller": "dns-controller"},
                     spec={"type": "LoadBalancer"}))
    # malformed labels: admitted so the object code reports the field; tombstones are looked through
    assert admit(obj(labels={"team": 5}, spec={"type": "LoadBalancer"}))
    assert admit(DeletedFinalStateUnknown("default/web", ok))  # type: ignore[arg-type]
    assert not admits_service(SourceOptions())(obj(annotations={PREFIX + "controller": "x"}))


def test_ingress_class_admission() -> None:
    admit = admits_ingress(SourceOptions(ingress_class_names=["nginx"]))
    assert admit(obj(spec={"ingressClassName": "nginx"}))
    assert admit(obj(annotations={"kubernetes.io/ingress.class": "nginx"}))
    assert not admit(obj(spec={"ingressClassName": "traefik"}, annotations={"kubernetes.io/ingress.class": "nginx"}))
    assert not admit(obj())
    assert admit(obj(spec={"ingressClassName": 7}))  # malformed: the object code reports it


def test_indexes() -> None:
    index = selector_index(admits_service(SourceOptions(label_filter="a=b")))
    assert index(obj(labels={"a": "b"})) == ["default/web"]
    assert index(obj(labels={"a": "c"})) == []
    es = {"metadata": {"name": "web-x", "namespace": "ns", "labels": {"kubernetes.io/service-name": "web"}}}
    assert service_name_index(es) == ["ns/web"]
    assert service_name_index({"metadata": {"name": "x", "namespace": "ns"}}) == []


# -- RBAC ---------------------------------------------------------------------------------------------------
def test_rules_for_sources() -> None:
    rules = rules_for_sources(["service", "ingress", "crd"], leader_election=True)
    flat = {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}
    for resource in ("services", "pods", "nodes"):
        assert {("", resource, "list"), ("", resource, "watch")} <= flat
    assert ("discovery.k8s.io", "endpointslices", "watch") in flat
    assert ("networking.k8s.io", "ingresses", "list") in flat
    assert ("externaldns.k8s.io", "dnsendpoints/status", "update") in flat
    assert ("externaldns.k8s.io", "dnsendpoints", "update") not in flat
    assert {("", "events", "create"), ("", "events", "patch"), ("events.k8s.io", "events", "create")} <= flat
    assert {("coordination.k8s.io", "leases", v) for v in ("get", "create", "update")} <= flat
    # one rule per (group, verbs): core reads are merged
    assert {"apiGroups": [""], "resources": ["nodes", "pods", "services"], "verbs": ["get", "list", "watch"]} in rules


def test_service_type_filter_narrows_rules() -> None:
    assert service_informer_resources(["LoadBalancer"]) == ["services"]
    assert service_informer_resources(["ExternalName", "LoadBalancer"]) == ["services"]
    assert set(service_informer_resources(["NodePort"])) == {"services", "pods", "endpointslices", "nodes"}
    # as Go: Nodes for NodePort only (headless ClusterIP reads Pods and EndpointSlices)
    assert service_informer_resources(["ClusterIP", "LoadBalancer"]) == ["services", "pods", "endpointslices"]
    rules = rules_for_sources(["service"], service_types=["LoadBalancer"])
    resources = {r for rule in rules for r in rule["resources"]}
    assert resources == {"services", "events"}


def test_unknown_source_and_document() -> None:
    with pytest.raises(ValueError, match="no RBAC rules for source"):
        rules_for_sources(["gateway"])
    doc = rbac_document()
    assert set(doc) == {"clusterScopedResources", "always", "leaderElection", "sources"}
    assert set(doc["sources"]) == set(SOURCE_RULES) and "nodes" in doc["clusterScopedResources"]


def test_rbac_cli_prints_yaml() -> None:
    out = subprocess.run([sys.executable, "-m", "external_dns", "rbac", "service", "ingress", "crd",
                          "--cluster-role", "external-dns"], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         check=True).stdout
    role = yaml.safe_load(out)
    assert role["kind"] == "ClusterRole" and role["metadata"]["name"] == "external-dns"
    assert role["rules"] == rules_for_sources(["service", "ingress", "crd"])
    bad = subprocess.run([sys.executable, "-m", "external_dns", "rbac", "nope"], capture_output=True,
                         text=True, cwd=ROOT, timeout=60, check=False)
    assert bad.returncode == 2 and "no RBAC rules for source(s) nope" in bad.stderr


# -- process hook -------------------------------------------------------------------------------------------
class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
        self.events.append((obj["metadata"]["name"], type, reason, note))
        return True


def ep(name: str, target: str, resource: str, rtype: str = "A") -> Endpoint:
    e = endpoints.ep(name, rtype, target, resource=resource)
    kind = {"service": "Service", "ingress": "Ingress", "crd": "DNSEndpoint"}[resource.split("/")[0]]
    e.ref_objects.append({"apiVersion": "v1", "kind": kind,
                          "metadata": {"name": resource.split("/")[2], "namespace": "default"}})
    return e


def test_conflict_reporter_reports_the_loser_once() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    winner = ep("x.example.org", "1.1.1.1", "ingress/default/a")
    loser = ep("x.example.org", "2.2.2.2", "crd/default/b")
    same = ep("x.example.org", "1.1.1.1", "service/default/c")  # agrees with the winner: nothing lost
    other = ep("y.example.org", "3.3.3.3", "service/default/d")
    for _ in range(3):  # every sync, changes or not: reported once
        reporter(None, Changes(), [], [winner, loser, same, other])
    assert len(recorder.events) == 1
    name, type_, reason, note = recorder.events[0]
    assert (name, type_, reason) == ("b", "Warning", "RecordConflict")
    assert "ingress/default/a" in note and "2.2.2.2" in note


def test_conflict_reporter_the_holder_keeps_the_name() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    holder = ep("x.example.org", "9.9.9.9", "crd/default/old")  # larger targets, but it holds the record
    newcomer = ep("x.example.org", "1.1.1.1", "service/default/new")
    current = Endpoint(dns_name="x.example.org", record_type="A", targets=["9.9.9.9"])  # type: ignore[arg-type]
    current.labels["resource"] = "crd/default/old"
    reporter(None, Changes(), [current], [holder, newcomer])
    assert [(n, r) for n, _t, r, _note in recorder.events] == [("new", "RecordConflict")]


def test_conflict_reporter_cname_loses_to_a_and_unmanaged_types_are_ignored() -> None:
    recorder = Recorder()
    reporter = ConflictReporter(recorder)
    a = ep("x.example.org", "1.1.1.1", "service/default/a")
    cname = ep("x.example.org", "lb.example.net", "ingress/default/c", rtype="CNAME")
    txt1 = ep("t.example.org", '"a"', "crd/default/t1", rtype="TXT")
    txt2 = ep("t.example.org", '"b"', "crd/default/t2", rtype="TXT")
    reporter(None, Changes(), [], [cname, a, txt1, txt2])
    assert [(n, r) for n, _t, r, _note in recorder.events] == [("c", "RecordConflict")]


def test_conflict_reporter_never_raises() -> None:
    class Broken:
        def event(self, *_: Any) -> bool:
            raise RuntimeError("boom")

    reporter = ConflictReporter(Broken())
    winner = ep("x.example.org", "1.1.1.1", "ingress/default/a")
    reporter(None, Changes(create=[winner]), [], [winner, ep("x.example.org", "2.2.2.2", "crd/default/b")])


def test_attach_events_wires_recorder_into_informer_sources() -> None:
    class Factory:
        api_client = None

        def informer_for(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("not reached")

    class FakeSource(ServiceInformerSource):
        def __init__(self) -> None:  # no informers needed to test the wiring
            self.recorder = None

    src = FakeSource()
    pipeline = PostProcessorSource(MultiSource([src]))
    assert list(informer_sources(pipeline)) == [src]

    from external_dns.controller.controller import Controller
    from external_dns.controller.features import attach_events
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.registry import NoopRegistry

    controller = Controller(pipeline, NoopRegistry(InMemoryProvider()), "sync", managed_record_types=["A", "CNAME"])
    recorder = Recorder()
    attach_events(controller, recorder)
    assert src.recorder is recorder
    assert len(controller.plan_observers) == 1 and isinstance(controller.plan_observers[0], ConflictReporter)
    assert controller.plan_observers[0].managed == {"A", "CNAME"}


# -- builders and flags ---------------------------------------------------------------------------------------
def test_builders_registered_and_need_a_cluster() -> None:
    assert SOURCE_BUILDERS["service"] == "external_dns.cmd.build_k8s_sources:build_service"
    assert SOURCE_BUILDERS["ingress"] == "external_dns.cmd.build_k8s_sources:build_ingress"
    assert SOURCE_BUILDERS["crd"] == "external_dns.cmd.build_k8s_sources:build_crd"
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync"])
    for build in (build_service, build_ingress, build_crd):
        with pytest.raises(ConfigError, match="needs a Kubernetes API connection"):
            build(cfg, {})


def test_flag_errors() -> None:
    with pytest.raises(ConfigError, match="--label-filter does not specify a valid label selector"):
        load_config(["--source=service", "--provider=inmemory", "--policy=sync", "--label-filter=a in (b"])
    with pytest.raises(ConfigError, match="--crd-source-apiversion"):
        load_config(["--source=crd", "--provider=inmemory", "--policy=sync", "--crd-source-kind=Other"])
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync",
                                "--listen-endpoint-events", "--request-timeout=10s"])
    assert cfg.sources.listen_endpoint_events is True and cfg.kube.request_timeout == 10.0
