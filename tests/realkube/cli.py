"""The project's real CLI (`python -m external_dns`) as a process against the real server, writing to a zone
file (`--provider=zonefile`): `run_once()` for a `--once` run, `Controller` for the long-running process
(stopped with SIGTERM, killed after a grace period, never left behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import dns.rdatatype
import dns.zone

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k != "KUBECONFIG"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def zone_args(zones: Path, zone: str) -> list[str]:
    return ["--provider=zonefile", f"--zonefile-dir={zones}", f"--zonefile-create-zone={zone}"]


def run_once(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "external_dns", *args, "--once"], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=timeout, check=False)


def records(zone_file: Path) -> dict[tuple[str, str], list[str]]:
    """(name, type) -> sorted values of the zone file (SOA/NS left out); {} before the first write."""
    if not zone_file.exists():
        return {}
    zone = dns.zone.from_file(str(zone_file), origin=None, relativize=False, check_origin=False)
    return {(name.to_text(omit_final_dot=True), dns.rdatatype.to_text(rds.rdtype)): sorted(r.to_text() for r in rds)
            for name, node in zone.nodes.items() for rds in node.rdatasets
            if rds.rdtype not in (dns.rdatatype.SOA, dns.rdatatype.NS)}


class Controller:
    """A long-running `python -m external_dns ARGS` with its output in `log`."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        self._out = open(log, "wb")  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], cwd=ROOT, env=_env(),
                                     stdin=subprocess.DEVNULL, stdout=self._out, stderr=subprocess.STDOUT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: the process dies without releasing anything (a crashed pod)."""
        if self.alive():
            self.proc.kill()
        self.proc.wait(10)

    def stop(self, timeout: float = 30) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._out.close()
        return self.proc.returncode
