"""A zone file is written once per run (one file write, one serial bump), whatever the plan's size and
--apply-batch-size: `--once`, `plan` + `apply` and the long-running mode's full pass, each on 5,000 records
through the real CLI (issue 28 item 8). Batches stay what they were for the providers that pay per message
(RFC2136, PowerDNS): `OnceOptions.batch_size`."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from external_dns.controller.once import OnceOptions
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.pdns import PDNSConfig, PDNSProvider
from external_dns.providers.provider import CachedProvider
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.zonefile import ZoneFileProvider
from tests.helpers.cli import ROOT, clean_env, read_until, run_cli

ZONE = "example.org"
RECORDS = 5000
START_SERIAL = 41


class Env:
    """A hand-written zone file at serial START_SERIAL and one DNSEndpoint of RECORDS A records."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.manifests, self.zones = tmp / "manifests", tmp / "zones"
        self.manifests.mkdir()
        self.zones.mkdir()
        self.zone_file = self.zones / f"{ZONE}.zone"
        self.zone_file.write_text(f"$ORIGIN {ZONE}.\n@ 3600 IN SOA ns.{ZONE}. hostmaster.{ZONE}. {START_SERIAL} "
                                  f"3600 600 86400 300\n@ 3600 IN NS ns.{ZONE}.\nns 3600 IN A 192.0.2.53\n")
        eps = "".join(f"  - dnsName: h{i:04d}.{ZONE}\n    recordType: A\n    targets: [\"10.0.{i // 250}.{i % 250}\"]\n"
                      for i in range(RECORDS))
        (self.manifests / "records.yaml").write_text(
            "apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: many\n"
            f"  namespace: default\nspec:\n  endpoints:\n{eps}")

    def flags(self, *extra: str) -> list[str]:
        return ["--source=manifest", f"--manifest-dir={self.manifests}", "--provider=zonefile",
                f"--zonefile-dir={self.zones}", "--txt-owner-id=writes", "--policy=sync", *extra]

    def serial(self) -> int:
        found = re.search(r"IN SOA \S+ \S+ (\d+) ", self.zone_file.read_text())
        assert found is not None
        return int(found.group(1))

    def assert_written_once(self, log: str) -> None:
        assert log.count('msg="Zone file written"') == 1, log[-3000:]
        assert f"create={RECORDS} " in log and f"txt={RECORDS} " in log  # records and their TXTs together
        assert self.serial() == START_SERIAL + 1
        text = self.zone_file.read_text()
        assert text.count(" IN A 10.0.") == RECORDS and text.count("heritage=external-dns") == RECORDS


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)


@pytest.mark.integration
@pytest.mark.parametrize("batch", [[], ["--apply-batch-size=10"]], ids=["default", "batch-10"])
def test_once_writes_the_zone_once(env: Env, batch: list[str]) -> None:
    proc = run_cli(["--once", *env.flags(*batch)])
    env.assert_written_once(proc.stderr)
    assert "Applied: 5000 created" in proc.stderr


@pytest.mark.integration
def test_plan_then_apply_writes_the_zone_once(env: Env) -> None:
    plan = env.tmp / "plan.json"
    run_cli(["plan", *env.flags(f"--plan-file={plan}")])
    assert env.serial() == START_SERIAL  # a plan writes nothing
    proc = run_cli(["apply", str(plan), *env.flags("--apply-batch-size=100")])
    env.assert_written_once(proc.stderr)


@pytest.mark.integration
def test_long_running_full_pass_writes_the_zone_once(env: Env) -> None:
    args = [*env.flags("--interval=1h", "--metrics-address=127.0.0.1:0")]
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, env=clean_env(), cwd=ROOT)
    output = b""
    try:
        output = read_until(proc.stderr, b"Applied: ", 120)
        proc.send_signal(signal.SIGTERM)
        output += proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, output.decode()[-3000:]
    env.assert_written_once(output.decode())


def test_batch_size_per_provider(tmp_path: Path) -> None:
    """A zone file takes a zone's whole plan (also behind --provider-cache-time) whatever the flag says;
    PowerDNS its whole plan unless the flag is given; RFC2136 and the others the flag's value (their own
    message limits split a call further)."""
    given, default = OnceOptions(apply_batch_size=10), OnceOptions(apply_batch_size=1000, apply_batch_size_given=False)
    zonefile = ZoneFileProvider(str(tmp_path))
    for whole in (zonefile, CachedProvider(zonefile, 60.0)):
        assert (given.batch_size(whole), default.batch_size(whole)) == (0, 0)
    pdns = PDNSProvider(PDNSConfig(server="http://127.0.0.1:9", api_key="k"))
    assert (given.batch_size(pdns), default.batch_size(pdns)) == (10, 0)
    rfc2136 = RFC2136Provider(RFC2136Config(hosts=("127.0.0.1",), port=53, zones=(ZONE,), insecure=True))
    for provider in (rfc2136, InMemoryProvider()):
        assert (given.batch_size(provider), default.batch_size(provider)) == (10, 1000)
