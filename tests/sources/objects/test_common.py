"""What the per-kind object functions share (sources/objects/common.py): typed access to raw objects, where a wrong
shape names its field path; one object's run, where a bad field skips the object with what was found before it;
the namespace, label and annotation admission; the resource label; source names."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    admitted,
    attach,
    collect_objects,
    get_list,
    get_map,
    get_str,
    run_object,
    source_name,
    string_map,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import ERROR, WARNING, Problem
from tests.helpers.endpoints import ep

SVC: dict[str, Any] = {"metadata": {"name": "web", "namespace": "prod", "labels": {"team": "dns"},
                                    "annotations": {"scope": "public"}},
                       "spec": {"ports": [{"port": 80}], "type": "LoadBalancer", "clusterIP": None}}


def test_typed_access_with_defaults_for_missing_and_null() -> None:
    assert get_map(SVC, "metadata.labels") == {"team": "dns"}
    assert get_map(SVC, "metadata.missing") == {} and get_map(SVC, "nothing.below.here") == {}
    assert get_list(SVC, "spec.ports") == [{"port": 80}] and get_list(SVC, "spec.missing") == []
    assert get_str(SVC, "spec.type") == "LoadBalancer"
    assert get_str(SVC, "spec.clusterIP", default="none") == "none"  # null is missing
    assert string_map(SVC, "metadata.annotations") == {"scope": "public"}


@pytest.mark.parametrize(("call", "field", "message"), [
    (lambda: get_map(SVC, "spec.type"), "spec.type", "must be an object"),
    (lambda: get_map(SVC, "spec.type.x"), "spec.type", "must be an object"),
    (lambda: get_map({"port": 1}, "port", at="spec.ports[0]"), "spec.ports[0].port", "must be an object"),
    (lambda: get_list(SVC, "spec.type"), "spec.type", "must be a list"),
    (lambda: get_str({"spec": {"port": 8080}}, "spec.port"), "spec.port", "must be a string"),
    (lambda: string_map({"metadata": {"labels": {"n": 5}}}, "metadata.labels"), "metadata.labels['n']",
     "must be a string (quote it in YAML)"),
])
def test_a_wrong_shape_names_its_field(call: Any, field: str, message: str) -> None:
    with pytest.raises(FieldError) as info:
        call()
    assert (info.value.field, info.value.message) == (field, message)


class Run:
    def __init__(self, fail: bool) -> None:
        self.fail = fail
        self.problems: list[Problem] = []

    def run(self) -> list[Endpoint]:
        self.problems.append(Problem("service/prod/web", "metadata.annotations[ttl]", "x", "bad TTL"))
        if self.fail:
            raise FieldError("spec.ports[0].port", "x" * 500, "must be a number")
        return [ep("web.example.org", "A", "10.0.0.1")]


def test_run_object_gives_endpoints_and_problems() -> None:
    out = run_object(SVC, "service/prod/web", lambda: Run(fail=False))
    assert [e.dns_name for e in out.endpoints] == ["web.example.org"]
    assert [p.severity for p in out.problems] == [WARNING]


def test_a_bad_field_skips_the_object_keeping_earlier_problems() -> None:
    out = run_object(SVC, "service/prod/web", lambda: Run(fail=True))
    assert out.endpoints == []
    assert [p.severity for p in out.problems] == [WARNING, ERROR]
    bad = out.problems[1]
    assert (bad.ref, bad.field, bad.message) == ("service/prod/web", "spec.ports[0].port",
                                                 "must be a number; object skipped")
    assert len(bad.value) == 120 and bad.value.endswith("...") and bad.obj is SVC


def test_a_bad_field_while_starting_the_run_is_reported_alone() -> None:
    def make() -> Run:
        raise FieldError("metadata.name", 7, "must be a string")

    out = run_object(SVC, "service/prod/web", make)
    assert out.endpoints == [] and [str(p) for p in out.problems] == [
        "service/prod/web: metadata.name='7': must be a string; object skipped"]


@pytest.mark.parametrize(("options", "admit"), [
    (SourceOptions(), True),
    (SourceOptions(namespace="prod"), True),
    (SourceOptions(namespace="dev"), False),
    (SourceOptions(label_filter="team=dns"), True),
    (SourceOptions(label_filter="team=web"), False),
    (SourceOptions(annotation_filter="scope=public"), True),
    (SourceOptions(annotation_filter="scope=internal"), False),
])
def test_admitted(options: SourceOptions, admit: bool) -> None:
    assert admitted(SVC, options) is admit


def test_attach_labels_and_remembers_the_object_once() -> None:
    eps = [ep("a.example.org", "A", "10.0.0.1"), ep("b.example.org", "A", "10.0.0.2")]
    attach(eps, SVC, "service/prod/web")
    attach(eps, SVC, "service/prod/web")
    assert all(e.labels["resource"] == "service/prod/web" and e.ref_objects == [SVC] for e in eps)


def test_collect_objects_merges_every_objects_endpoints_and_keeps_all_problems() -> None:
    def one(obj: Any) -> ObjectEndpoints:
        name = obj["metadata"]["name"]
        return ObjectEndpoints([ep(f"{name}.example.org", "A", "10.0.0.1")], [Problem(name, "", "", "seen")])

    merged: list[list[str]] = []

    def merge(eps: list[Endpoint]) -> list[Endpoint]:
        merged.append([e.dns_name for e in eps])
        return eps[:1]

    out = collect_objects([{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}], one, merge)
    assert merged == [["a.example.org", "b.example.org"]]  # one merge over all objects
    assert [e.dns_name for e in out.endpoints] == ["a.example.org"] and [p.ref for p in out.problems] == ["a", "b"]


@pytest.mark.parametrize(("kind", "name"), [("Service", "service"), ("HTTPRoute", "gateway-httproute"),
                                            ("GRPCRoute", "gateway-grpcroute"), ("Route", "route"), ("Pod", "pod")])
def test_source_name(kind: str, name: str) -> None:
    assert source_name(kind) == name
