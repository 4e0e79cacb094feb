"""What a new user meets on the command line, through the real program (a subprocess): a bad value is one line
naming the flag (exit 2, never a traceback), `--help` opens with a short usage and lists the commands and the
values of --source/--provider/--policy, each command has its own help, a bare `external-dns` says how to start,
a mistyped flag gets a suggestion, owner ids and record types are checked at start-up, and plan outputs name
their own file when they cannot be written and follow the umask when they can."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, clean_env, dns_endpoint, run_cli

pytestmark = pytest.mark.integration

BASE = ["--source=manifest", "--manifest-dir=examples/manifests", "--provider=inmemory",
        "--inmemory-zone=example.org"]


def one_error_line(proc: subprocess.CompletedProcess[str], prog: str = "external-dns") -> str:
    """The single stderr line of a usage error: no traceback, no usage dump."""
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{prog}: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(("args", "needle"), [
    (["--once=maybe", "--policy=sync"], "argument --once: invalid boolean 'maybe' (use true or false)"),
    (["--policy=sync", "--force", "now"], "argument --force: invalid boolean 'now' (use true or false)"),
    (["--policy=sync", "--once", "plan.json"], "argument --once: invalid boolean 'plan.json'"),
    (["--policy=sync", "--dry-run=yes please"], "argument --dry-run: invalid boolean 'yes please'"),
])
def test_a_bad_boolean_is_a_usage_error_naming_the_flag(args: list[str], needle: str) -> None:
    proc = run_cli([*BASE, *args], expect=2)
    assert needle in one_error_line(proc)


def test_a_bad_boolean_from_the_environment_names_the_variable() -> None:
    proc = run_cli([*BASE, "--policy=sync"], env={"EXTERNAL_DNS_ONCE": "maybe"}, expect=2)
    assert "environment variable EXTERNAL_DNS_ONCE: invalid boolean 'maybe'" in one_error_line(proc)


def test_plan_takes_the_plan_file_as_its_first_word(tmp_path: Path) -> None:
    """`external-dns plan plan.json ...` as `apply plan.json` is written: the file, not --once's value."""
    plan = tmp_path / "plan.json"
    proc = run_cli(["plan", str(plan), *BASE, "--policy=sync", "--progress=none"], expect=0)
    assert plan.is_file() and '"kind"' in plan.read_text(), proc.stderr
    # and a boolean flag given last does not swallow what plan adds
    run_cli(["plan", str(tmp_path / "b.json"), *BASE, "--policy=sync", "--force"], expect=0)
    assert (tmp_path / "b.json").is_file()


def test_help_opens_with_a_short_usage_and_lists_commands_and_values() -> None:
    out = run_cli(["--help"]).stdout
    lines = out.splitlines()
    assert lines[0] == "usage: external-dns [run] --source=SOURCE... --provider=PROVIDER --policy=POLICY [flags]"
    assert lines[1].strip() == "external-dns COMMAND [flags]" and lines[2] == ""
    for command in ("run", "plan", "apply", "webhook-server", "rbac", "informer-probe"):
        assert f"\n  {command} " in out
    flat = " ".join(out.split())
    assert "(repeatable; one of: crd, dnsrecord, gateway-grpcroute," in flat and "manifest, node, pod, service)" in flat
    assert "DNS provider (one of: aws, " in flat and " inmemory, pdns, rfc2136, webhook, zonefile)" in flat
    assert "(required; one of: sync, upsert-only, create-only)" in flat
    assert "ownership registry (one of: txt, noop, dynamodb) (default: txt)" in flat
    for group in ("sources and provider:", "TXT registry:", "filters:", "plan safety:", "RFC2136 provider:"):
        assert f"\n{group}\n" in out


@pytest.mark.parametrize(("command", "usage"), [
    ("plan", "usage: external-dns plan [PLAN_FILE] --source=SOURCE... --provider=PROVIDER --policy=POLICY [flags]"),
    ("apply", "usage: external-dns apply PLAN_FILE --provider=PROVIDER [flags]"),
    ("webhook-server", "usage: external-dns webhook-server --provider=PROVIDER [flags]"),
    ("rbac", "usage: external-dns rbac"),
    ("informer-probe", "usage: external-dns informer-probe"),
])
def test_every_command_has_its_own_help(command: str, usage: str) -> None:
    proc = run_cli([command, "--help"], expect=0)
    assert proc.stdout.startswith(usage), proc.stdout[:300]
    assert proc.stderr == ""


def test_apply_help_comes_before_the_missing_plan_file() -> None:
    proc = run_cli(["apply", "--provider=inmemory", "-h"], expect=0)
    assert proc.stdout.startswith("usage: external-dns apply PLAN_FILE")


def test_a_bare_external_dns_prints_how_to_start() -> None:
    proc = run_cli([], expect=2)
    assert proc.stderr.startswith("usage: external-dns [run] ")
    for text in ("commands:", "  plan ", "  apply ", "example:", "external-dns --once --source=manifest",
                 "`external-dns --help` lists every flag."):
        assert text in proc.stderr
    assert proc.stderr.rstrip().endswith("external-dns: error: --policy must be set explicitly (one of: sync, "
                                         "upsert-only, create-only)")


def test_flags_from_the_environment_alone_are_not_a_bare_call(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.yaml").write_text(dns_endpoint("a", "a.example.org", "192.0.2.1"))
    env = {"EXTERNAL_DNS_SOURCE": "manifest", "EXTERNAL_DNS_MANIFEST_DIR": str(tmp_path / "m"),
           "EXTERNAL_DNS_PROVIDER": "inmemory", "EXTERNAL_DNS_INMEMORY_ZONE": "example.org",
           "EXTERNAL_DNS_POLICY": "sync", "EXTERNAL_DNS_ONCE": "true"}
    proc = run_cli([], env=env, expect=0)
    assert "commands:" not in proc.stderr


@pytest.mark.parametrize(("typo", "flag"), [("--polcy=sync", "--policy"),
                                            ("--domain-filters=a.example", "--domain-filter"),
                                            ("--rfc2136-tsig-secrett=s3cret-value", "--rfc2136-tsig-secret")])
def test_a_mistyped_flag_gets_a_suggestion(typo: str, flag: str) -> None:
    proc = run_cli([*BASE, typo], expect=2)
    line = one_error_line(proc)
    assert f"unrecognized arguments: {typo.split('=')[0]} (did you mean {flag}?)" in line
    assert typo.split("=")[1] not in line.split("(did")[0]  # values are never echoed (they may be secrets)


@pytest.mark.parametrize(("args", "message"), [
    (["--policy=synch"], "--policy: unknown policy 'synch' (one of: sync, upsert-only, create-only; "
                         "did you mean sync?)"),
    (["--policy=sync", "--log-format=logfmt"], "argument --log-format: invalid value 'logfmt' (one of: text, json)"),
    (["--policy=sync", "--txt-owner-id="], "--txt-owner-id: owner id cannot be empty"),
    (["--policy=sync", "--interval=0s"], "--interval must be positive, got 0s"),
    (["--policy=sync", "--once", "--leader-elect", "--leader-elect-lease-duration=10s"],
     "--leader-elect-lease-duration (10s) must be greater than --leader-elect-renew-deadline (10s)"),
    (["--policy=sync", "--min-requeue-time=20m", "--requeue-time=15m"],
     "--min-requeue-time (20m0s) must not exceed --requeue-time (15m0s)"),
    (["--policy=sync", "--source=servce"], "--source: unknown source 'servce' (one of: crd,"),
    (["--policy=sync", "--provider=route53"], "--provider: unknown provider 'route53' (one of: aws,"),
    (["--policy=sync", "--managed-record-types=a"], "--managed-record-types: unknown record type 'a' (one of: A, "
                                                    "AAAA, CNAME, TXT, SRV, NS, PTR, MX, NAPTR, DNAME; did you mean A?)"),
    (["--policy=sync", "--managed-record-types=A,BOGUS"], "--managed-record-types: unknown record type 'BOGUS'"),
    (["--policy=sync", "--exclude-record-types=txt"], "--exclude-record-types: unknown record type 'txt'"),
])
def test_errors_name_the_flag_and_the_allowed_values(args: list[str], message: str) -> None:
    line = one_error_line(run_cli([*BASE, *args], expect=2))
    assert message in line, line
    assert "0.0" not in line  # durations as Go durations


@pytest.mark.parametrize(("owner", "shown"), [
    ("a,external-dns/owner=victim", "holds ','"), ('a"b', "holds '\"'"), ("a\\b", "holds '\\\\'"),
    ("équipe", "holds 'é'"), ("tab\there", "holds '\\t'"), ("x" * 192, "is 192 characters long, at most 191 fit"),
])
def test_owner_ids_that_cannot_be_written_as_they_are_are_refused(owner: str, shown: str) -> None:
    for flag in ("--txt-owner-id", "--migrate-from-txt-owner"):
        line = one_error_line(run_cli([*BASE, "--policy=sync", f"{flag}={owner}"], expect=2))
        assert line.startswith(f"external-dns: error: {flag}: owner id ") and shown in line, line


def test_the_longest_owner_id_fits(tmp_path: Path) -> None:
    zones = tmp_path / "zones"
    zones.mkdir()
    run_cli(["--once", "--source=manifest", "--manifest-dir=examples/manifests", "--provider=zonefile",
             f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync",
             "--txt-owner-id=" + "o" * 191, "--progress=none"], expect=0)
    assert "external-dns/owner=" + "o" * 191 in (zones / "example.org.zone").read_text()


def test_rbac_errors_name_the_program() -> None:
    line = one_error_line(run_cli(["rbac", "nosuchsource"], expect=2), prog="external-dns rbac")
    assert "nosuchsource" in line


def _run_with_umask(args: list[str], umask: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "external_dns", *args], capture_output=True, text=True,
                          env=clean_env(), cwd=ROOT, timeout=60, check=False,
                          preexec_fn=lambda: os.umask(umask))  # the child's umask, set before exec


def test_plan_outputs_follow_the_umask_and_a_failed_write_names_the_file(tmp_path: Path) -> None:
    md, plan = tmp_path / "plan.md", tmp_path / "plan.json"
    proc = _run_with_umask(["plan", str(plan), *BASE, "--policy=sync", f"--plan-output-file=markdown={md}"], 0o027)
    assert proc.returncode == 0, proc.stderr
    for path in (md, plan):
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, path  # as `open(path, "w")` under that umask
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    target = blocker / "plan.md"
    proc = run_cli(["--once", *BASE, "--policy=sync", f"--plan-output-file=markdown={target}"], expect=1)
    assert f"cannot write the plan: [Errno 20] Not a directory: '{target}'" in proc.stderr
    assert ".plan-" not in proc.stderr
