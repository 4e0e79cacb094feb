"""The long-running CLI with `--provider=pdns`: records reach PowerDNS, the server goes away (soft errors,
retried with back-off, the process keeps running), comes back, and the change made meanwhile lands; SIGTERM
ends it with exit 0 and the API key never shows in the log. A refused API key ends it with exit 1 and one
fatal line (as ExternalDNS's fatal non-soft errors)."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import LogTail, clean_env, dns_endpoint, one_fatal_line, running
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


@contextlib.contextmanager
def long_running(tmp_path: Path, pdns: PdnsServer, key: str,
                 *flags: str) -> Iterator[tuple[subprocess.Popen[bytes], LogTail, Path]]:
    """The long-running CLI on a manifest dir holding www.example.org A 192.0.2.10, against `pdns` with API key
    `key`: yields (process, its log, the manifest file); afterwards the process is gone (killed if it still
    runs) and the server runs again."""
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    record = manifests / "web.yaml"
    record.write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=pdns", *pdns.pdns_flags(),
            "--policy=sync", "--metrics-address=127.0.0.1:0", *flags]
    try:
        with running(args, clean_env({"EXTERNAL_DNS_PDNS_API_KEY": key}), "pdns-long-running") as (proc, tail):
            yield proc, tail, record
    finally:
        if pdns.process is None:
            pdns.start()


def test_server_outage_is_survived_and_the_change_lands(tmp_path: Path, pdns: PdnsServer) -> None:
    def www() -> list[str]:
        return pdns.records("example.org").get(("www.example.org", "A"), (0, []))[1]

    with long_running(tmp_path, pdns, pdns.api_key, "--txt-owner-id=lr-pdns", "--interval=1s",
                      "--log-level=debug") as (proc, tail, record):
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
    text = tail.text()
    assert code == 0, text
    assert pdns.api_key not in text
    assert pdns.records("example.org")[("a-www.example.org", "TXT")][1][0].startswith(
        '"heritage=external-dns,external-dns/owner=lr-pdns')


def test_refused_api_key_ends_the_long_running_process_with_one_fatal_line(
        tmp_path: Path, pdns: PdnsServer) -> None:
    """A wrong key cannot be fixed by retrying: as ExternalDNS's fatal non-soft errors, the long-running
    process logs one fatal line naming the provider and the cause, shuts down cleanly and exits 1 (Kubernetes
    restarts it with back-off), without hammering the server, writing anything or printing the key."""
    wrong = "wrong-key-" + pdns.api_key[:6]
    mark = pdns.mark()
    with long_running(tmp_path, pdns, wrong, "--interval=1m") as (proc, tail, _):
        code = proc.wait(timeout=30)
    text = tail.text()
    assert code == 1, text
    fatal = one_fatal_line(text)
    assert "refused the API key (HTTP 401" in fatal and "check --pdns-api-key" in fatal, fatal
    assert "provider=pdns" in fatal and f"PowerDNS at {pdns.url}" in fatal, fatal
    assert "Shut down" in text  # a clean shutdown before exiting
    assert "Traceback" not in text and wrong not in text and pdns.api_key not in text
    refused = [r for r in pdns.requests_since(mark) if r[2] == 401]
    assert 1 <= len(refused) <= 3, refused
    assert ("www.example.org", "A") not in pdns.records("example.org")


def test_server_errors_are_retried_and_a_refused_key_after_them_is_fatal(tmp_path: Path, pdns: PdnsServer) -> None:
    """Soft errors (the server down: connection refused) keep the process running; once the server is back
    with another key (a rotated secret), the refusal ends it with exit 1."""
    pdns.stop()
    with long_running(tmp_path, pdns, "not-" + pdns.api_key, "--interval=1s") as (proc, tail, _):
        assert tail.wait_for("consecutive soft errors: 2", 60), tail.text()
        assert proc.poll() is None  # soft errors never end the process
        pdns.start()
        code = proc.wait(timeout=60)
    text = tail.text()
    assert code == 1, text
    assert "refused the API key" in one_fatal_line(text)
