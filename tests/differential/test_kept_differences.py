"""Differences from the Go ExternalDNS v0.22.0 kept on purpose (docs/migrating.md): each scenario runs as in
test_same_records.py, and its test asserts the difference itself, so a change on either side shows here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.differential.cluster import Cluster
from tests.differential.harness import Outcome, Sides, run_scenario
from tests.differential.programs import Program
from tests.differential.scenarios import KEPT, Scenario
from tests.differential.zones import Record, comparable, snapshot

pytestmark = pytest.mark.integration


def _names(records: list[Record], name: str) -> list[tuple[str, str]]:
    return sorted((r.rtype, r.rdata) for r in records if r.name == name)


def set_identifiers_on_rfc2136(outcome: Outcome, sides: Sides, scenario: Scenario) -> None:
    """Two Services claim one name with different set identifiers. RFC2136 has no routing policies: the zone
    holds one A record set with both addresses, read back without set identifiers, so both programs plan the
    set-less record as a delete and the two identified ones as creates on every run. Go sends the creates
    before the deletes: every second run removes the records (an ownership TXT stays), the next one writes them
    again. This project sends the deletes first: the records are rewritten on every run and served again when
    the run ends."""
    first, second = outcome.step("first run"), outcome.step("second run (no-op)")
    assert first.go == first.py and _names(first.py, "geo.example.org") == [("A", "192.0.2.10"), ("A", "192.0.2.20")]
    assert outcome.noop_writes.get("go") == ["example.org"]
    assert _names(second.go, "geo.example.org") == [] and second.py == first.py


def target_template_on_services_and_ingresses(outcome: Outcome, sides: Sides, scenario: Scenario) -> None:
    """`--target-template` applies to every source here; Go applies it only in sources whose targets come
    from templates (not Service, Ingress)."""
    for step in outcome.steps:
        assert _names(step.go, "web.example.org") == [("A", "192.0.2.10")], step.go
        assert _names(step.py, "web.example.org") == [("CNAME", "web.targets.example.net.")], step.py
    assert not outcome.noop_writes


def a_record_replaced_by_a_cname_in_one_run(outcome: Outcome, sides: Sides, scenario: Scenario) -> None:
    """An A record of ours is to become a CNAME (the Service with the address went, one with a load-balancer
    host name stays). Go's rfc2136 provider sends the CNAME's add before the A's delete in one UPDATE; BIND
    ignores a CNAME added beside other data (RFC 2136 3.4.2.2), so after Go's run the name has no record at
    all, and only its next run adds the CNAME. This project deletes before it adds: the CNAME is there after
    one run."""
    after = outcome.step("after the change")
    assert _names(after.py, "app.example.org") == [("CNAME", "lb-1.elb.example.net.")]
    assert _names(after.go, "app.example.org") == []
    go = sides.go
    again = go.run([*go.flags(sides.kubeconfig, sides.namespace), *scenario.program_flags()])
    assert again.returncode == 0, again.describe()
    assert comparable(snapshot(go.bind)) == after.py  # Go converges on its next run


CHECKS: dict[str, Callable[[Outcome, Sides, Scenario], None]] = {
    "set-identifiers-on-rfc2136": set_identifiers_on_rfc2136,
    "target-template-on-services-and-ingresses": target_template_on_services_and_ingresses,
    "a-record-replaced-by-a-cname-in-one-run": a_record_replaced_by_a_cname_in_one_run,
}


def test_every_kept_difference_has_a_check_and_a_doc_entry() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text()
    assert sorted(CHECKS) == sorted(s.kept for s in KEPT)
    missing = [k for k in CHECKS if f'<a id="{k}"></a>' not in doc]
    assert not missing, f"docs/migrating.md has no entry for {missing}"


@pytest.mark.parametrize("scenario", KEPT, ids=[s.id for s in KEPT])
def test_kept_difference(scenario: Scenario, go_side: Program, py_side: Program, diff_cluster: Cluster,
                         tmp_path: Path) -> None:
    namespace = f"kept-{scenario.id}"[:63].rstrip("-")
    kubeconfig = diff_cluster.write_kubeconfig(tmp_path / "kubeconfig", namespace)
    sides = Sides(go_side, py_side, diff_cluster, namespace, kubeconfig)
    run_scenario(sides, scenario, then=lambda outcome: CHECKS[scenario.kept](outcome, sides, scenario))
