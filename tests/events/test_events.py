"""events/__init__.py: which objects a record's Events are about, and the RecordReady / RecordDeleted /
RecordError Events sent through the `Recorder` protocol (the Kubernetes sender is tested in test_recorder.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import RESOURCE_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.events import (
    NORMAL,
    RECORD_DELETED,
    RECORD_ERROR,
    RECORD_READY,
    WARNING,
    Recorder,
    describe,
    emit_applied_events,
    emit_error_events,
    emit_problem_events,
    object_from_resource_label,
    objects_of,
)
from external_dns.plan.changes import Changes
from external_dns.sources.problems import Problem

SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "shop", "name": "web"}}


class Recorded:
    """A Recorder keeping what it is given; objects without a kind are refused as the real one does."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Mapping[str, Any], type: str, reason: str, note: str) -> bool:
        if not obj.get("kind"):
            raise ValueError("no kind")
        self.events.append((f"{obj['kind']}/{obj['metadata']['name']}", type, reason, note))
        return True


def _ep(name: str, *, label: str = "", refs: list[Mapping[str, Any]] | None = None) -> Endpoint:
    labels = {RESOURCE_LABEL_KEY: label} if label else {}
    return Endpoint(name, "A", Targets(["192.0.2.1"]), labels=labels, ref_objects=refs or [])


def test_resource_labels_name_the_object() -> None:
    assert object_from_resource_label("service/shop/web") == SERVICE
    ingress = object_from_resource_label("ingress/default/site")
    assert ingress is not None and ingress["kind"] == "Ingress" and ingress["apiVersion"] == "networking.k8s.io/v1"
    crd = object_from_resource_label("crd/default/records")
    assert crd is not None and crd["kind"] == "DNSEndpoint"
    assert object_from_resource_label("node/worker-1") == {"apiVersion": "v1", "kind": "Node",
                                                           "metadata": {"name": "worker-1"}}
    route = object_from_resource_label("httproute/default/r")
    assert route is not None and route["kind"] == "HTTPRoute"
    for bad in ("", "service/web", "service/shop/", "unknown/shop/web", "node/", "a/b/c/d"):
        assert object_from_resource_label(bad) is None, bad


def test_ref_objects_win_over_the_resource_label() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    assert objects_of(_ep("a.example.org", label="service/shop/web", refs=[pod])) == [pod]
    assert objects_of(_ep("a.example.org", label="service/shop/web")) == [SERVICE]
    assert objects_of(_ep("a.example.org")) == []  # nothing to attach an Event to


def test_applied_events_per_change_kind() -> None:
    recorder = Recorded()
    changes = Changes(create=[_ep("new.example.org", label="service/shop/web")],
                      update_new=[_ep("moved.example.org", label="service/shop/web")],
                      delete=[_ep("gone.example.org", label="service/shop/web"), _ep("orphan.example.org")])
    assert emit_applied_events(recorder, changes) == 3
    assert recorder.events == [
        ("Service/web", NORMAL, RECORD_READY, "Record new.example.org A 192.0.2.1 created"),
        ("Service/web", NORMAL, RECORD_READY, "Record moved.example.org A 192.0.2.1 updated"),
        ("Service/web", NORMAL, RECORD_DELETED, "Record gone.example.org A 192.0.2.1 deleted"),
    ]


def test_error_events_carry_the_error_text_verbatim() -> None:
    recorder = Recorded()
    changes = Changes(create=[_ep("a.example.org", label="service/shop/web")])
    assert emit_error_events(recorder, changes, RuntimeError("zone {x} refused")) == 1
    assert recorder.events == [("Service/web", WARNING, RECORD_ERROR,
                                "Failed to apply a.example.org A 192.0.2.1: zone {x} refused")]


def test_problem_events_only_for_problems_with_an_object() -> None:
    recorder: Recorder = Recorded()
    problems = [Problem("service/shop/web", "annotation", "x", "bad ttl", obj=SERVICE),
                Problem("file.yaml", "document", "", "does not parse"),
                Problem("thing", "f", "", "m", obj={"metadata": {"name": "no-kind"}})]  # refused: logged only
    assert emit_problem_events(recorder, problems) == 1
    assert isinstance(recorder, Recorded)
    [(obj, type_, reason, note)] = recorder.events
    assert (obj, type_, reason) == ("Service/web", WARNING, RECORD_ERROR) and "bad ttl" in note


def test_describe_names_the_set_identifier() -> None:
    ep = Endpoint("w.example.org", "CNAME", Targets(["a.example.net"]), set_identifier="eu")
    assert describe(ep) == "w.example.org CNAME [eu] a.example.net"
