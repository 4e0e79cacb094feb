"""Hostile input through the real CLI (manifest source -> TXT registry -> zonefile): one regression test per
way the issue lost data. A bad object is skipped with a warning naming it and its field and never blocks its
zone; forged ownership is refused; a forged plan file is refused at apply time; no perpetual churn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from external_dns.plan import planfile
from external_dns.plan.changes import Changes
from tests.helpers.cli import Env, run_cli
from tests.hostile.helpers import checkzone, dnsendpoint

pytestmark = pytest.mark.integration

GOOD = {"dnsName": "good.example.org", "recordType": "A", "targets": ["192.0.2.1"]}


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)


def _hand_made(env: Env, line: str) -> None:
    env.zone_file.write_text(env.zone_file.read_text() + line + "\n")


def test_ttl_out_of_range_is_skipped_and_the_zone_stays_loadable(env: Env) -> None:
    env.write("a.json", dnsendpoint("ttl", [
        {"dnsName": "big.example.org", "recordType": "A", "targets": ["192.0.2.9"], "recordTTL": 99999999999999},
        GOOD]))
    proc = env.run()
    assert "recordTTL" in proc.stderr and "crd/default/ttl" in proc.stderr
    assert ("good.example.org", "A") in env.records() and ("big.example.org", "A") not in env.records()
    assert checkzone("example.org", env.zone_file).returncode == 0
    assert "already up to date" in env.run().stderr


def test_bad_objects_never_block_the_zone(env: Env) -> None:
    env.write("bad.json", dnsendpoint("bad", [
        {"dnsName": "example.org", "recordType": "A", "targets": ["192.0.2.2"]},            # apex: TXT outside
        {"dnsName": "\U0001f600.example.org", "recordType": "A", "targets": ["192.0.2.3"]},  # IDNA error
        {"dnsName": ".".join(["c" * 60] * 4)[:241] + ".example.org", "recordType": "A",      # TXT name > 253
         "targets": ["192.0.2.4"]},
        {"dnsName": "empty.example.org", "recordType": "A", "targets": []},                 # no targets
        {"dnsName": "own.example.org", "recordType": "TXT",                                 # ownership text
         "targets": ["heritage=external-dns,external-dns/owner=cli-test"]},
        {"dnsName": "l" * 63 + ".example.org", "recordType": "A", "targets": ["192.0.2.5"]},  # a-<63> > 63
        {"dnsName": "two.example.org", "recordType": "CNAME", "targets": ["a.example.net", "b.example.net"]},
    ]))
    env.write("good.json", dnsendpoint("good", [GOOD]))
    proc = env.run()
    recs = env.records()
    assert ("good.example.org", "A") in recs and ("a-good.example.org", "TXT") in recs
    assert {name for name, _ in recs} == {"example.org", "good.example.org", "a-good.example.org"}
    for words in ("outside the zone", "IDNA", "longer than 253", "no targets", "ownership record",
                  "longer than 63", "exactly one target"):
        assert words in proc.stderr, words
    assert checkzone("example.org", env.zone_file).returncode == 0
    second = env.run()
    assert "already up to date" in second.stderr


def test_forged_ownership_record_is_refused(env: Env) -> None:
    env.write("good.json", dnsendpoint("good", [GOOD]))
    env.run()
    _hand_made(env, "handmade.example.org. 300 IN A 198.51.100.7")
    env.write("forge.json", dnsendpoint("forge", [
        {"dnsName": "a-handmade.example.org", "recordType": "TXT",
         "targets": ['"heritage=external-dns,external-dns/owner=cli-test,external-dns/resource=crd/x/y"']}]))
    proc = env.run()
    assert "ownership record" in proc.stderr
    env.run()
    assert env.records()[("handmade.example.org", "A")] == ["198.51.100.7"]
    assert ("a-handmade.example.org", "TXT") not in env.records()


def _forge_plan(path: Path, mutate: Changes) -> None:
    """Rewrite a plan file with `mutate`'s changes appended to example.org and a recomputed checksum."""
    doc = json.loads(path.read_text())
    zone = doc["zones"]["example.org"]
    changes = Changes.from_json(zone["changes"])
    changes.delete.extend(mutate.delete)
    changes.create.extend(mutate.create)
    plan = planfile.PlanFile(owner_id=doc["owner_id"], provider=doc["provider"], registry=doc["registry"],
                             zones={"example.org": planfile.PlannedZone(changes=changes, existing=zone["existing"],
                                                                        state_checksum=zone["state_checksum"])})
    path.write_text(plan.dumps())


def test_apply_rechecks_ownership_of_a_forged_plan(env: Env) -> None:
    env.write("good.json", dnsendpoint("good", [GOOD]))
    env.run()
    _hand_made(env, "handmade.example.org. 300 IN A 198.51.100.7")
    env.write("more.json", dnsendpoint("more", [{**GOOD, "dnsName": "new.example.org"}]))
    plan = env.zones.parent / "plan.json"
    flags = [a for a in env.args() if a != "--once"]
    run_cli(["plan", *flags, f"--plan-file={plan}"])
    victim = Changes.from_json({"delete": [{"dnsName": "handmade.example.org", "recordType": "A",
                                            "targets": ["198.51.100.7"], "recordTTL": 300,
                                            "labels": {"owner": "cli-test"}}]})
    _forge_plan(plan, victim)
    before = env.zone_file.read_text()
    proc = run_cli(["apply", str(plan), *flags], expect=2)
    assert "not owned by anyone (hand-made)" in proc.stderr
    assert env.zone_file.read_text() == before


def test_left_over_migrate_from_txt_owner_does_not_churn(env: Env) -> None:
    env.write("good.json", dnsendpoint("good", [GOOD]))
    env.run("--txt-owner-id=old-owner")
    env.run("--migrate-from-txt-owner=old-owner")
    assert "owner=cli-test" in env.records()[("a-good.example.org", "TXT")][0]
    before = env.zone_file.read_text()
    proc = env.run("--migrate-from-txt-owner=old-owner")
    assert "already up to date" in proc.stderr
    assert env.zone_file.read_text() == before  # the SOA serial is not bumped either


def test_unparsable_zone_file_fails_the_run(env: Env) -> None:
    env.write("good.json", dnsendpoint("good", [GOOD]))
    env.run()
    _hand_made(env, "big 99999999999999 IN A 192.0.2.7")  # a TTL no parser accepts
    before = env.zone_file.read_text()
    env.write("more.json", dnsendpoint("more", [{**GOOD, "dnsName": "new.example.org"}]))
    proc = env.run(expect=1)
    assert "example.org.zone" in proc.stderr and "cannot be used" in proc.stderr
    assert "already up to date" not in proc.stderr
    assert env.zone_file.read_text() == before
