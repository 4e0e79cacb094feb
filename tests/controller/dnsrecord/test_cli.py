"""The real CLI with `--source=dnsrecord` as a subprocess: the process hook starts the DNSRecord controller
beside the zone controller; a DNSRecord is published to the zone file and Ready; SIGTERM exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.controller.dnsrecord.helpers import a_record, get, record
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]


class StderrTail:
    """Reads a subprocess's stderr on a thread; `wait_for(text, timeout)` blocks on a Condition."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.closed = False
        self.thread = threading.Thread(target=self._read, name="dnsrecord-cli-stderr", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self.cond:
                self.lines.append(raw.decode(errors="replace"))
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def wait_for(self, needle: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not any(needle in line for line in self.lines):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    return False
                self.cond.wait(remaining)
            return True

    def text(self) -> str:
        with self.cond:
            return "".join(self.lines)


def test_cli_publishes_a_dnsrecord(kubeapi: KubeAPIServer, kubeconfig_file: str, tmp_path: Path) -> None:
    zones = tmp_path / "zones"
    zones.mkdir()
    kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "192.0.2.5")]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}
    env["PYTHONPATH"] = str(ROOT)
    env["EXTERNAL_DNS_MIN_REQUEUE_TIME"] = "1s"
    args = ["--source=dnsrecord", f"--kubeconfig={kubeconfig_file}", "--provider=zonefile",
            f"--zonefile-dir={zones}", "--zonefile-create-zone=example.com", "--policy=sync", "--interval=1h",
            "--metrics-address=127.0.0.1:0", "--txt-owner-id=zone-wide"]
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    tail = StderrTail(proc)
    try:
        ok = tail.wait_for("DNSRecord ready", 30.0)
        obj = get(kubeapi, "app")
        assert ok, f"DNSRecord not Ready; status {obj}; log:\n{tail.text()[-4000:]}"
        assert obj is not None
        cond = next(c for c in obj["status"]["conditions"] if c["type"] == "Ready")
        assert (cond["status"], cond["reason"]) == ("True", "ProviderSuccess")
        text = (zones / "example.com.zone").read_text()
        assert "192.0.2.5" in text and "kuadrant-" in text
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        tail.thread.join(5)
    assert proc.returncode == 0, tail.text()[-4000:]
