"""The real CLI with `--source=dnsrecord` as a subprocess: the process hook starts the DNSRecord controller
beside the zone controller; a DNSRecord is published to the zone file and Ready; SIGTERM exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.controller.dnsrecord.helpers import a_record, get, record
from tests.helpers.cli import ROOT, LogTail
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

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
    tail = LogTail(proc, "dnsrecord-cli")
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
