"""The real CLI as a subprocess (manifest source -> TXT registry -> zonefile provider): `--once` safety
(all-or-nothing, exit 3, per-zone thresholds from the flag), plan outputs in dry-run, progress lines, and the
two-phase `plan` / `apply` round trip with its refusals (zone changed: exit 4; tampered, unreadable, other
owner or provider: exit 2)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

import dns.rdatatype
import dns.zone
import pytest

from tests.helpers.cli import run_cli

pytestmark = pytest.mark.integration

OWNER = "plan-test"


def endpoints_manifest(name: str, hosts: Sequence[str], ip: str = "192.0.2.10") -> str:
    lines = ["apiVersion: externaldns.k8s.io/v1alpha1", "kind: DNSEndpoint", "metadata:", f"  name: {name}",
             "  namespace: default", "spec:", "  endpoints:"]
    for host in hosts:
        lines += [f"  - dnsName: {host}", "    recordType: A", f'    targets: ["{ip}"]', "    recordTTL: 300"]
    return "\n".join(lines) + "\n"


class Env:
    """Two zones (example.org, example.com), one manifest per zone, and the CLI on them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.manifests = tmp / "manifests"
        self.zones = tmp / "zones"
        self.manifests.mkdir()

    def hosts(self, zone: str, n: int, start: int = 0) -> None:
        names = [f"h{i:02d}.{zone}" for i in range(start, start + n)]
        (self.manifests / f"{zone}.yaml").write_text(endpoints_manifest(zone.replace(".", "-"), names))

    def flags(self, *extra: str) -> list[str]:
        return ["--source=manifest", f"--manifest-dir={self.manifests}", "--provider=zonefile",
                f"--zonefile-dir={self.zones}", "--zonefile-create-zone=example.org",
                "--zonefile-create-zone=example.com", f"--txt-owner-id={OWNER}", "--policy=sync", *extra]

    def once(self, *extra: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
        return run_cli(["--once", *self.flags(*extra)], expect=expect)

    def zone_text(self) -> dict[str, str]:
        return {p.name: p.read_text() for p in sorted(self.zones.glob("*.zone"))}

    def names(self, zone: str) -> set[str]:
        """Names holding an A record in the zone's file."""
        z = dns.zone.from_file(str(self.zones / f"{zone}.zone"), origin=None, relativize=False, check_origin=False)
        return {name.to_text(omit_final_dot=True) for name, node in z.nodes.items()
                if any(rds.rdtype == dns.rdatatype.A for rds in node.rdatasets)}


@pytest.fixture
def env(tmp_path: Path) -> Env:
    e = Env(tmp_path)
    e.hosts("example.org", 12)
    e.hosts("example.com", 12)
    e.once()
    assert len(e.names("example.org")) == 12 and len(e.names("example.com")) == 12
    return e


# -- --once ---------------------------------------------------------------------------------------------------
def test_once_unsafe_zone_applies_nothing_anywhere(env: Env) -> None:
    before = env.zone_text()
    env.hosts("example.org", 7)  # 5 of 12 deleted: 41.67 % > 30 %
    env.hosts("example.com", 13)  # one more: safe on its own
    proc = env.once(expect=3)
    assert "[example.org.] Too many deletes, 41.67% is over 30.00% (5/12), force required" in proc.stderr
    assert "nothing was applied in any zone" in proc.stderr
    assert env.zone_text() == before
    # the refused plan was still shown (logged before the check, each change once)
    assert proc.stderr.count("Desired change: DELETE h11.example.org A 192.0.2.10") == 1
    proc = env.once("--force")
    assert "Applying with --force: [example.org.] Too many deletes" in proc.stderr
    assert len(env.names("example.org")) == 7 and len(env.names("example.com")) == 13


def test_once_zone_threshold_from_the_flag_reaches_the_check(env: Env) -> None:
    before = env.zone_text()
    env.hosts("example.org", 10)  # 2 of 12 deleted: 16.67 %, fine globally
    proc = env.once("--zone-threshold=example.org=update:0.5,delete:0.1", expect=3)
    assert "[example.org.] Too many deletes, 16.67% is over 10.00% (2/12), force required" in proc.stderr
    assert env.zone_text() == before
    env.once("--zone-threshold=example.com=delete:0.1")  # another zone's override does not apply here
    assert len(env.names("example.org")) == 10


def test_once_bad_threshold_flags_exit_2(env: Env) -> None:
    proc = env.once("--delete-threshold=1.5", expect=2)
    assert "--delete-threshold must be a fraction between 0 and 1, got 1.5" in proc.stderr
    proc = env.once("--zone-threshold=example.org:0.1", expect=2)
    assert "--zone-threshold 'example.org:0.1'" in proc.stderr


def test_outputs_in_dry_run_and_progress_lines(env: Env) -> None:
    before = env.zone_text()
    env.hosts("example.org", 12, start=5)  # h00-h04 deleted, h12-h16 created: 5/12 deletes, unsafe
    js = env.tmp / "out" / "plan.json"
    js.parent.mkdir()
    proc = env.once("--dry-run", "--plan-output=markdown", f"--plan-output-file=json={js}", expect=3)
    assert "| Delete | h00.example.org | A |  | 300 | 192.0.2.10 |" in proc.stdout
    assert "Summary: Creates=5, Updates=0, Deletes=5, Existing=12" in proc.stdout
    doc = json.loads(js.read_text())
    assert doc["zones"]["example.org."]["summary"] == {"creates": 5, "updates": 0, "deletes": 5, "existing": 12}
    assert env.zone_text() == before
    proc = env.once("--force", "--progress=log", "--apply-batch-size=3", "--progress-interval=0")
    lines = [line for line in proc.stderr.splitlines() if "Apply progress" in line]
    # a zone file takes the zone's whole plan in one write whatever --apply-batch-size says: one progress line
    # (progress per batch: tests/controller/test_progress.py)
    assert len(lines) == 1 and proc.stderr.count('msg="Zone file written"') == 1, proc.stderr
    assert "done=10" in lines[-1] and "total=10" in lines[-1] and "percent=100" in lines[-1]
    assert env.names("example.org") == {f"h{i:02d}.example.org" for i in range(5, 17)}


# -- plan / apply ---------------------------------------------------------------------------------------------
def test_plan_then_apply_round_trip(env: Env) -> None:
    before = env.zone_text()
    env.hosts("example.org", 13)
    env.hosts("example.com", 12, start=1)  # h00 deleted, h12 created
    plan = env.tmp / "plan.json"
    md = env.tmp / "plan.md"
    proc = run_cli(["plan", *env.flags(f"--plan-file={plan}", f"--plan-output-file=markdown={md}")])
    assert env.zone_text() == before, "plan writes nothing to the provider"
    assert f"Plan written to {plan}" in proc.stderr
    doc = json.loads(plan.read_text())
    assert doc["kind"] == "external-dns-plan" and doc["owner_id"] == OWNER and doc["provider"] == "zonefile"
    assert sorted(doc["zones"]) == ["example.com", "example.org"]
    assert doc["plan_checksum"].startswith("sha256:")
    assert "| Create | h12.example.org | A |" in md.read_text()
    # apply needs no source or policy, only the provider and registry flags
    proc = run_cli(["apply", str(plan), "--provider=zonefile", f"--zonefile-dir={env.zones}",
                    f"--txt-owner-id={OWNER}"])
    assert "matches the provider state" in proc.stderr
    # one start-up config line with the flags as given (not the source/policy apply fills in for itself)
    [config] = [line for line in proc.stderr.splitlines() if " msg=config " in line]
    assert config.endswith(f"provider=zonefile txt-owner-id={OWNER} zonefile-dir={env.zones}")
    assert "h12.example.org" in env.names("example.org")
    assert "h00.example.com" not in env.names("example.com") and "h12.example.com" in env.names("example.com")
    # the sources now agree with the provider
    assert "All records are already up to date" in env.once("--dry-run").stderr
    # the same plan cannot be applied twice: the zones changed since
    proc = run_cli(["apply", str(plan), *env.flags()], expect=4)
    assert "changed since the plan was made" in proc.stderr


def test_apply_refuses_when_the_zone_changed(env: Env) -> None:
    env.hosts("example.org", 13)
    plan = env.tmp / "plan.json"
    run_cli(["plan", *env.flags(f"--plan-file={plan}")])
    # someone changes example.org between plan and apply (a record added by hand)
    zone_file = env.zones / "example.org.zone"
    zone_file.write_text(zone_file.read_text() + "manual.example.org. 300 IN A 198.51.100.1\n")
    before = env.zone_text()
    proc = run_cli(["apply", str(plan), *env.flags()], expect=4)
    assert "zone example.org changed since the plan was made" in proc.stderr
    assert env.zone_text() == before, "nothing applied"
    # --dry-run verifies without writing, and a fresh plan applies
    run_cli(["plan", *env.flags(f"--plan-file={plan}")])
    run_cli(["apply", str(plan), "--dry-run", *env.flags()])
    assert env.zone_text() == before
    run_cli(["apply", str(plan), *env.flags()])
    assert "h12.example.org" in env.names("example.org") and "manual.example.org" in env.names("example.org")


def test_apply_rejects_bad_plan_files(env: Env) -> None:
    env.hosts("example.org", 13)
    plan = env.tmp / "plan.json"
    run_cli(["plan", *env.flags(f"--plan-file={plan}")])
    before = env.zone_text()

    proc = run_cli(["apply", str(env.tmp / "missing.json"), *env.flags()], expect=2)
    assert "cannot read plan file" in proc.stderr and "missing.json" in proc.stderr
    proc = run_cli(["apply", *env.flags()], expect=2)
    assert "the plan file is missing" in proc.stderr

    garbage = env.tmp / "garbage.json"
    garbage.write_text("{not json")
    proc = run_cli(["apply", str(garbage), *env.flags()], expect=2)
    assert f"plan file {garbage} is not valid JSON" in proc.stderr

    doc = json.loads(plan.read_text())
    doc["zones"]["example.org"]["changes"]["create"][0]["targets"] = ["203.0.113.66"]
    tampered = env.tmp / "tampered.json"
    tampered.write_text(json.dumps(doc))
    proc = run_cli(["apply", str(tampered), *env.flags()], expect=2)
    assert "was modified after it was made" in proc.stderr

    proc = run_cli(["apply", str(plan), *env.flags("--txt-owner-id=someone-else")], expect=2)
    assert "plan file was made for owner ID 'plan-test', not 'someone-else'" in proc.stderr
    proc = run_cli(["apply", str(plan), "--provider=inmemory", "--txt-owner-id=plan-test"], expect=2)
    assert "plan file was made for provider 'zonefile', not 'inmemory'" in proc.stderr
    assert env.zone_text() == before


def test_unsafe_plan_is_written_and_needs_force_to_apply(env: Env) -> None:
    env.hosts("example.org", 6)  # 6 of 12 deleted
    plan = env.tmp / "plan.json"
    proc = run_cli(["plan", *env.flags(f"--plan-file={plan}")], expect=3)
    assert "[example.org.] Too many deletes, 50.00% is over 30.00% (6/12), force required" in proc.stderr
    assert plan.exists(), "the unsafe plan is still written, for review"
    before = env.zone_text()
    proc = run_cli(["apply", str(plan), *env.flags()], expect=3)
    assert "Too many deletes" in proc.stderr
    assert env.zone_text() == before
    run_cli(["apply", str(plan), "--force", *env.flags()])
    assert len(env.names("example.org")) == 6
