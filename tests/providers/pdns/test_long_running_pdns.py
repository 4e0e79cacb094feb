"""The long-running CLI with `--provider=pdns`: records reach PowerDNS, the server goes away (soft errors,
retried with back-off, the process keeps running), comes back, and the change made meanwhile lands; SIGTERM
ends it with exit 0 and the API key never shows in the log."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, LogTail, clean_env, dns_endpoint
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration


def eventually(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return True
        except (OSError, RuntimeError):
            pass  # the server is restarting
        time.sleep(0.1)  # observing another process's writes: there is nothing to wait on
    return False


def test_server_outage_is_survived_and_the_change_lands(tmp_path: Path, pdns: PdnsServer) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    record = manifests / "web.yaml"
    record.write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    args = [sys.executable, "-m", "external_dns", "--source=manifest", f"--manifest-dir={manifests}",
            "--provider=pdns", *pdns.pdns_flags(), "--txt-owner-id=lr-pdns", "--policy=sync", "--interval=1s",
            "--metrics-address=127.0.0.1:0", "--log-level=debug"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                            env=clean_env({"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key}))
    tail = LogTail(proc, "pdns-long-running")

    def www() -> list[str]:
        return pdns.records("example.org").get(("www.example.org", "A"), (0, []))[1]

    try:
        assert eventually(lambda: www() == ["192.0.2.10"], 30), tail.text()
        pdns.stop()
        record.write_text(dns_endpoint("web", "www.example.org", "192.0.2.20"))
        # The client's own retries run out, the sync fails softly (logged with the server it concerns).
        assert tail.wait_for(f"PowerDNS at {pdns.url}", 30), tail.text()
        assert proc.poll() is None  # soft errors never end the process
        pdns.start()
        assert eventually(lambda: www() == ["192.0.2.20"], 60), tail.text()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        tail.join()
        if pdns.process is None:
            pdns.start()
    text = tail.text()
    assert code == 0, text
    assert pdns.api_key not in text
    assert pdns.records("example.org")[("a-www.example.org", "TXT")][1][0].startswith(
        '"heritage=external-dns,external-dns/owner=lr-pdns')


def test_refused_api_key_is_logged_and_retried_with_back_off_without_showing_it(
        tmp_path: Path, pdns: PdnsServer) -> None:
    """A wrong key fails every sync (a configuration error: nothing is written); the long-running process
    keeps retrying with back-off (no hot loop against the server) and never prints the key."""
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    wrong = "wrong-key-" + pdns.api_key[:6]
    args = [sys.executable, "-m", "external_dns", "--source=manifest", f"--manifest-dir={manifests}",
            "--provider=pdns", *pdns.pdns_flags(), "--policy=sync", "--interval=1m",
            "--metrics-address=127.0.0.1:0"]
    mark = pdns.mark()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                            env=clean_env({"EXTERNAL_DNS_PDNS_API_KEY": wrong}))
    tail = LogTail(proc, "pdns-bad-key")
    try:
        assert tail.wait_for("refused the API key (HTTP 401", 30), tail.text()
        time.sleep(4)  # let retries happen: their number is what is checked
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        tail.join()
    text = tail.text()
    assert code == 0, text
    assert "check --pdns-api-key" in text and wrong not in text and pdns.api_key not in text
    refused = [r for r in pdns.requests_since(mark) if r[2] == 401]
    assert 1 <= len(refused) <= 30, refused  # back-off, not a tight loop
    assert ("www.example.org", "A") not in pdns.records("example.org")
