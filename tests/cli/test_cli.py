"""The real CLI (`python -m external_dns`) as a subprocess on temporary directories: manifest source ->
TXT registry -> zonefile provider, as `make run` uses it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, Env, clean_env, dns_endpoint, read_until, run_cli, service

pytestmark = pytest.mark.integration

AES_KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def env(tmp_path: Path) -> Env:
    e = Env(tmp_path)
    e.write("web.yaml", dns_endpoint("web", "www.example.org", "192.0.2.10"))
    e.write("api.yaml", service("api", "api.example.org", "192.0.2.20"))
    return e


def owner_txt(records: dict[tuple[str, str], list[str]], name: str) -> str:
    values = records[(name, "TXT")]
    assert len(values) == 1
    return values[0]


def test_first_sync_creates_records_and_ownership(env: Env) -> None:
    proc = env.run()
    assert "Desired change: CREATE www.example.org A" in proc.stderr
    assert "Desired change: CREATE api.example.org A" in proc.stderr
    assert proc.stdout == ""
    recs = env.records()
    assert recs[("www.example.org", "A")] == ["192.0.2.10"]
    assert recs[("api.example.org", "A")] == ["192.0.2.20"]
    assert "external-dns/owner=cli-test" in owner_txt(recs, "a-www.example.org")
    assert "external-dns/resource=service/default/api" in owner_txt(recs, "a-api.example.org")
    assert "external-dns/resource=crd/default/web" in owner_txt(recs, "a-www.example.org")


def test_second_sync_is_a_no_op(env: Env) -> None:
    env.run()
    before = env.zone_file.read_bytes()
    proc = env.run()
    assert "All records are already up to date" in proc.stderr
    assert "Desired change" not in proc.stderr
    assert env.zone_file.read_bytes() == before


def test_removing_a_manifest_deletes_only_our_records(env: Env) -> None:
    env.run()
    (env.manifests / "api.yaml").unlink()
    proc = env.run()
    assert "Desired change: DELETE api.example.org A" in proc.stderr
    recs = env.records()
    assert ("api.example.org", "A") not in recs
    assert ("a-api.example.org", "TXT") not in recs
    assert ("www.example.org", "A") in recs
    assert ("a-www.example.org", "TXT") in recs
    assert ("example.org", "NS") in recs


def test_hand_added_records_are_never_touched(env: Env) -> None:
    env.run()
    with env.zone_file.open("a") as f:
        f.write("manual 600 IN A 10.0.0.1\n")
        f.write("taken 600 IN A 10.0.0.2\n")
    env.write("taken.yaml", dns_endpoint("taken", "taken.example.org", "192.0.2.99"))
    proc = env.run()
    assert "taken.example.org" not in proc.stderr.replace("a-taken", "")  # not planned at all
    recs = env.records()
    assert recs[("manual.example.org", "A")] == ["10.0.0.1"]
    assert recs[("taken.example.org", "A")] == ["10.0.0.2"]
    # removing every manifest deletes ours (a wipe of what we own: --force) and still keeps the hand-made ones
    for manifest in env.manifests.iterdir():
        manifest.unlink()
    env.run("--force")
    recs = env.records()
    assert ("www.example.org", "A") not in recs
    assert recs[("manual.example.org", "A")] == ["10.0.0.1"]
    assert recs[("taken.example.org", "A")] == ["10.0.0.2"]


def test_upsert_only_never_deletes(env: Env) -> None:
    env.run(policy="upsert-only")
    (env.manifests / "api.yaml").unlink()
    env.write("web.yaml", dns_endpoint("web", "www.example.org", "192.0.2.11"))
    env.run(policy="upsert-only")
    recs = env.records()
    assert recs[("api.example.org", "A")] == ["192.0.2.20"]
    assert recs[("www.example.org", "A")] == ["192.0.2.11"]


def test_dry_run_writes_nothing(env: Env) -> None:
    proc = env.run("--dry-run")
    assert "Desired change: CREATE www.example.org A" in proc.stderr
    assert not env.zones.exists()
    env.run()
    before = env.zone_file.read_bytes()
    env.write("web.yaml", dns_endpoint("web", "www.example.org", "192.0.2.77"))
    proc = env.run("--dry-run")
    assert "Desired change: UPDATE www.example.org A" in proc.stderr
    assert env.zone_file.read_bytes() == before


def test_encrypted_txt_round_trips(env: Env) -> None:
    proc = env.run("--txt-encrypt-enabled", f"--txt-encrypt-aes-key={AES_KEY}")
    assert AES_KEY not in proc.stderr, "the AES key must be masked in the config log line"
    assert "******" in proc.stderr
    recs = env.records()
    value = owner_txt(recs, "a-www.example.org")
    assert "heritage" not in value and "cli-test" not in value
    proc = env.run("--txt-encrypt-enabled", f"--txt-encrypt-aes-key={AES_KEY}")
    assert "All records are already up to date" in proc.stderr
    (env.manifests / "web.yaml").unlink()
    env.run("--txt-encrypt-enabled", f"--txt-encrypt-aes-key={AES_KEY}")
    recs = env.records()
    assert ("www.example.org", "A") not in recs
    assert ("a-www.example.org", "TXT") not in recs, "the encrypted ownership TXT is deleted with its record"
    assert ("a-api.example.org", "TXT") in recs


@pytest.mark.parametrize(
    ("extra", "policy", "message"),
    [
        ((), None, "--policy must be set explicitly (one of: sync, upsert-only, create-only)"),
        (("--txt-prefix=p-", "--txt-suffix=-s"), "sync", "txt-prefix and txt-suffix are mutual exclusive"),
        (("--txt-encrypt-enabled", "--txt-encrypt-aes-key=short"), "sync", "--txt-encrypt-aes-key"),
        (("--zonefile-create-zone=bad..name",), "sync", "--zonefile-create-zone"),
        (("--log-format=xml",), "sync", "argument --log-format: invalid value 'xml' (one of: text, json)"),
    ],
)
def test_config_errors_exit_2_with_the_message(env: Env, extra: tuple[str, ...], policy: str | None,
                                               message: str) -> None:
    proc = env.run(*extra, policy=policy, expect=2)
    assert message in proc.stderr
    assert not env.zone_file.exists()


def test_unknown_flag_value_and_missing_dir_exit_2(tmp_path: Path) -> None:
    proc = run_cli(["--once", "--source=manifest", "--provider=zonefile", "--policy=sync"], expect=2)
    assert "--zonefile-dir" in proc.stderr
    proc = run_cli(["--once", "--source=nonsense", f"--zonefile-dir={tmp_path}", "--provider=zonefile",
                    "--policy=sync"], expect=2)
    assert "unknown source 'nonsense'" in proc.stderr
    proc = run_cli(["--once", "--source=manifest", "--provider=zonefile", f"--zonefile-dir={tmp_path}",
                    "--policy=sometimes"], expect=2)
    assert "sometimes" in proc.stderr
    proc = run_cli(["frobnicate"], expect=2)
    assert "unknown sub-command 'frobnicate'" in proc.stderr


def test_flags_from_environment(env: Env) -> None:
    proc = env.run(policy=None, env={"EXTERNAL_DNS_POLICY": "sync", "EXTERNAL_DNS_LOG_FORMAT": "json"})
    assert ("www.example.org", "A") in env.records()
    lines = [line for line in proc.stderr.splitlines() if line.startswith("{")]
    assert any('"msg":"Desired change: CREATE www.example.org A' in line for line in lines)  # compact, as logrus
    # the command line wins over the environment
    (env.manifests / "api.yaml").unlink()
    env.run(policy="upsert-only", env={"EXTERNAL_DNS_POLICY": "sync"})
    assert ("api.example.org", "A") in env.records()


def test_bad_manifest_fails_the_sync_and_deletes_nothing(env: Env) -> None:
    env.run()
    before = env.records()
    assert ("www.example.org", "A") in before
    env.write("broken.yaml", "apiVersion: v1\nkind: Service\nmetadata: [unclosed\n")
    proc = env.run(expect=1)  # input that cannot be read never turns into deletes: the sync fails
    assert "broken.yaml" in proc.stderr and "refusing to sync from partial input" in proc.stderr
    assert env.records() == before


def test_loop_mode_syncs_and_stops_on_sigterm(env: Env) -> None:
    args = [a for a in env.args() if a != "--once"] + ["--interval=1h", "--metrics-address=127.0.0.1:0"]
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, env=clean_env(), cwd=ROOT)
    output = b""
    try:
        output = read_until(proc.stderr, b"Applied: ", 60)
        assert ("www.example.org", "A") in env.records()
        proc.send_signal(signal.SIGTERM)
        output += proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    text = output.decode()
    assert proc.returncode == 0, text
    assert "Received SIGTERM. Terminating..." in text
    assert "Terminating main controller loop" in text
