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
from tests.differential.zones import Record, comparable, serials, snapshot

pytestmark = pytest.mark.integration


def _names(records: list[Record], name: str) -> list[tuple[str, str]]:
    return sorted((r.rtype, r.rdata) for r in records if r.name == name)


def set_identifiers_on_rfc2136(outcome: Outcome, sides: Sides, scenario: Scenario) -> None:
    """Two Services claim one name with different set identifiers. RFC2136 has no routing policies and a zone
    reads back without set identifiers. Go keeps them: its plan deletes the set-less record and creates the two
    identified ones on every run, creates before deletes, so every second run removes the records (an ownership
    TXT stays) and the next writes them again. This project ignores the annotation (a warning), as Go's
    providers without routing policies do: the two objects resolve as any conflict does (the first resource
    wins), and a second run sends nothing."""
    first, second = outcome.step("first run"), outcome.step("second run (no-op)")
    assert _names(first.go, "geo.example.org") == [("A", "192.0.2.10"), ("A", "192.0.2.20")]
    assert _names(second.go, "geo.example.org") == []
    assert outcome.noop_writes.get("go") == ["example.org"]
    assert _names(first.py, "geo.example.org") == [("A", "192.0.2.10")]
    assert second.py == first.py and "py" not in outcome.noop_writes
    assert "Ignoring the set-identifier annotation" in first.py_run.stderr + first.py_run.stdout
    assert _names(outcome.step("after the change").py, "geo.example.org") == [("A", "192.0.2.10")]


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


def fqdn_target_template_pairs_name_their_object(outcome: Outcome, sides: Sides, scenario: Scenario) -> None:
    """`--fqdn-target-template` pairs: the same records in both zones (the Service's pair before its
    `--fqdn-template` name, the Ingress's template name only: it takes no pairs in either program), but Go's pair
    endpoints carry no labels, so its ownership TXT names no resource where ours names the Service. Each program
    adopts the other's records without sending anything."""
    for step in outcome.steps:
        assert [r for r in step.go if r.rtype != "TXT"] == [r for r in step.py if r.rtype != "TXT"]
        assert _names(step.py, "shop.example.org") == [("A", "192.0.2.40")]
        assert _names(step.py, "web.example.org") == [] and _names(step.py, "web.pairs.example.org") == [
            ("A", "192.0.2.99")]
    first = outcome.step("first run")
    assert _names(first.go, "a-web.pairs.example.org") == [
        ("TXT", '"heritage=external-dns,external-dns/owner=diff"')]
    assert _names(first.py, "a-web.pairs.example.org") == [
        ("TXT", f'"heritage=external-dns,external-dns/owner=diff,external-dns/resource=service/{sides.namespace}/web"')]
    for writer, reader in ((sides.go, sides.py), (sides.py, sides.go)):
        taker = Program(reader.name, reader.command, writer.bind, reader.env)
        before = serials(writer.bind)
        run = taker.run([*taker.flags(sides.kubeconfig, sides.namespace), *scenario.program_flags()])
        assert run.returncode == 0, run.describe()
        assert serials(writer.bind) == before, f"{reader.name} rewrote what {writer.name} wrote"


CHECKS: dict[str, Callable[[Outcome, Sides, Scenario], None]] = {
    "set-identifiers-on-rfc2136": set_identifiers_on_rfc2136,
    "a-record-replaced-by-a-cname-in-one-run": a_record_replaced_by_a_cname_in_one_run,
    "fqdn-target-template-pairs-name-their-object": fqdn_target_template_pairs_name_their_object,
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
