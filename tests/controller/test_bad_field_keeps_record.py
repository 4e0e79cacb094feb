"""A live object whose one field turns bad keeps its name's current records (issue 27, item 9): the bad
endpoint is refused with a warning, and the plan makes no create, update or delete for that name and type,
while the rest of the zone syncs. Before, the endpoint was skipped and the plan deleted what it had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from structlog.testing import capture_logs

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import HOLD_LABEL_KEY, hold_for
from external_dns.endpoint.targets import Targets
from external_dns.plan.plan import Plan
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.manifest import ManifestSource
from external_dns.sources.wrappers import MultiSource

GOOD = {"dnsName": "app.example.org", "recordType": "A", "targets": ["192.0.2.1"], "recordTTL": 300}


def write(directory: Path, app: dict[str, Any], other_target: str) -> None:
    doc = {"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
           "metadata": {"name": "app", "namespace": "default"},
           "spec": {"endpoints": [app, {"dnsName": "other.example.org", "recordType": "A",
                                        "targets": [other_target]}]}}
    (directory / "app.yaml").write_text(yaml.safe_dump(doc))


def held(provider: InMemoryProvider) -> dict[tuple[str, str], tuple[list[str], int]]:
    return {(e.dns_name, e.record_type): (list(e.targets), e.record_ttl) for e in provider.records()
            if e.record_type != "TXT"}


@pytest.mark.parametrize("bad", [
    {"recordTTL": -1},  # refused by the object reader
    {"targets": ["not-an-ip"]},
    {"targets": ["192.0.2.1."]},  # a trailing dot on an A target
    {"recordTTL": 2**31},  # refused by edge validation (over RFC 2181's limit)
    {"setIdentifier": "s" * 300},
    {"targets": []},
])
def test_a_field_turning_bad_keeps_the_record(tmp_path: Path, bad: dict[str, Any]) -> None:
    provider = InMemoryProvider(["example.org"])
    registry = TXTRegistry(provider, owner_id="me")
    controller = Controller(MultiSource([ManifestSource(tmp_path)]), registry, "sync")
    write(tmp_path, GOOD, "192.0.2.50")
    controller.run_once()
    assert held(provider)[("app.example.org", "A")] == (["192.0.2.1"], 300)

    write(tmp_path, {**GOOD, **bad}, "192.0.2.51")  # one field of app turns bad; other changes
    with capture_logs() as logs:
        controller.run_once()
    records = held(provider)
    assert records[("app.example.org", "A")] == (["192.0.2.1"], 300)  # untouched (it was deleted)
    assert records[("other.example.org", "A")] == (["192.0.2.51"], 0)  # the rest syncs
    assert any(str(line["event"]).startswith("Keeping app.example.org A as it is") for line in logs)

    write(tmp_path, {**GOOD, "targets": ["192.0.2.2"]}, "192.0.2.51")  # fixed: updates go on
    controller.run_once()
    assert held(provider)[("app.example.org", "A")] == (["192.0.2.2"], 300)


def test_a_bad_name_or_type_holds_nothing(tmp_path: Path) -> None:
    """What the bad endpoint would hold cannot be told when its name or type is the bad field: it is refused,
    and a record it had under its old name goes as a renamed record's would."""
    assert hold_for("a.*.example.org", "A", "x") is None and hold_for("a.example.org", "BOGUS", "x") is None
    hold = hold_for("a.example.org", "A", "recordTTL: bad")
    assert hold is not None and not hold.targets and hold.labels[HOLD_LABEL_KEY] == "recordTTL: bad"


def test_the_plan_holds_every_set_identifier_and_both_sides_of_an_update() -> None:
    current = [Endpoint("w.example.org", "A", Targets(["192.0.2.1"]), set_identifier="eu", labels={"owner": "me"}),
               Endpoint("w.example.org", "A", Targets(["192.0.2.2"]), set_identifier="us", labels={"owner": "me"}),
               Endpoint("x.example.org", "A", Targets(["192.0.2.3"]), labels={"owner": "me"}),
               Endpoint("W.example.org", "AAAA", Targets(["2001:db8::1"]), labels={"owner": "me"})]
    hold = hold_for("W.Example.org.", "A", "setIdentifier: too long")
    assert hold is not None
    desired = [hold, Endpoint("x.example.org", "A", Targets(["192.0.2.4"])),
               Endpoint("w.example.org", "A", Targets(["192.0.2.9"]), set_identifier="eu")]
    changes = Plan(current, desired, policies=["sync"], owner_id="me").calculate().changes
    assert [(e.dns_name, e.record_type) for e in changes.update_new] == [("x.example.org", "A")]
    assert [(e.dns_name, e.record_type) for e in changes.delete] == [("W.example.org", "AAAA")]  # another type
    assert not changes.create
