"""The real CLI in long-running mode as subprocesses: SIGTERM during a reconcile (a slow webhook provider)
exits 0 after the in-flight write finished, and two `--leader-elect` processes against the test Kubernetes
API server hand over when the leader is SIGKILLed (fail-over time printed)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from external_dns.providers.webhook.protocol import MEDIA_TYPE
from tests.helpers.cli import ROOT, LogTail, clean_env, dns_endpoint
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def start_cli(args: list[str], name: str) -> tuple[subprocess.Popen[bytes], LogTail]:
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=clean_env(), cwd=ROOT)
    return proc, LogTail(proc, name)


def finish(proc: subprocess.Popen[bytes], tail: LogTail) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    tail.join()


# -- a slow webhook provider ---------------------------------------------------------------------------------
class SlowWebhook:
    """A webhook provider whose `POST /records` blocks until released (or 20 s)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.writes_started = 0
        self.writes_finished = 0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, code: int, body: bytes = b"") -> None:
                self.send_response(code)
                self.send_header("Content-Type", MEDIA_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path == "/":
                    self._send(200, b"{}")
                elif self.path == "/records":
                    with owner.lock:
                        self._send(200, json.dumps(owner.records).encode())
                else:
                    self._send(404)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/adjustendpoints":
                    self._send(200, body)
                    return
                changes = json.loads(body)
                with owner.lock:
                    owner.writes_started += 1
                owner.entered.set()
                owner.release.wait(20)
                with owner.lock:
                    owner.records.extend(changes.get("create") or [])
                    owner.writes_finished += 1
                self._send(204)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                       name="slow-webhook", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> SlowWebhook:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def slow_webhook() -> Iterator[SlowWebhook]:
    with SlowWebhook() as hook:
        yield hook


def test_sigterm_during_a_reconcile_lets_it_finish_and_exits_zero(tmp_path: Path,
                                                                  slow_webhook: SlowWebhook) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=webhook",
            f"--webhook-provider-url={slow_webhook.url}", "--webhook-provider-read-timeout=30s",
            "--txt-owner-id=lr-test", "--policy=sync", "--interval=1h", "--metrics-address=127.0.0.1:0"]
    proc, tail = start_cli(args, "sigterm")
    try:
        assert slow_webhook.entered.wait(30), tail.text()
        proc.send_signal(signal.SIGTERM)
        assert tail.wait_for("Received SIGTERM", 10), tail.text()
        signalled = time.monotonic()
        threading.Timer(0.5, slow_webhook.release.set).start()  # the write finishes after the signal
        code = proc.wait(timeout=15)
        elapsed = time.monotonic() - signalled
    finally:
        finish(proc, tail)
    text = tail.text()
    assert code == 0, text
    assert elapsed < 10, elapsed
    assert slow_webhook.writes_started == slow_webhook.writes_finished == 1
    assert "Applied: " in text  # the in-flight reconcile completed
    assert "Terminating main controller loop" in text
    assert {r["dnsName"] for r in slow_webhook.records} >= {"www.example.org"}


def _health_url(tail: LogTail) -> str:
    found = re.search(r"Serving /healthz, /readyz and /metrics\"?\s+url=\"?([^\s\"]+)", tail.text())
    assert found, tail.text()
    return found.group(1)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


# -- leader election -------------------------------------------------------------------------------------------
def test_standby_takes_over_after_the_leader_is_killed(tmp_path: Path, kubeapi: KubeAPIServer,
                                                       kubeconfig_file: str) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    zones = tmp_path / "zones"
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=zonefile", f"--zonefile-dir={zones}",
            "--zonefile-create-zone=example.org", "--txt-owner-id=lr-test", "--policy=sync", "--interval=1s",
            "--metrics-address=127.0.0.1:0", f"--kubeconfig={kubeconfig_file}", "--leader-elect",
            "--leader-elect-name=lr-test", "--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=1.5s",
            "--leader-elect-retry-period=0.25s"]
    first, first_tail = start_cli(args, "first")
    procs = [(first, first_tail)]
    try:
        assert first_tail.wait_for("successfully acquired lease", 30), first_tail.text()
        assert first_tail.wait_for("Applied: ", 30), first_tail.text()
        second, second_tail = start_cli(args, "second")
        procs.append((second, second_tail))
        assert second_tail.wait_for("Waiting for leadership", 30), second_tail.text()
        assert second_tail.wait_for("new leader elected", 30), second_tail.text()
        assert second_tail.count("successfully acquired lease") == 0
        assert _get(_health_url(second_tail) + "/readyz") == (200, "OK")  # a standby is ready
        first.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        first.wait(timeout=10)
        assert second_tail.wait_for("successfully acquired lease", 15), second_tail.text()
        failover = time.monotonic() - killed
        # the new leader reconciles: a manifest change reaches the zone file
        (manifests / "api.yaml").write_text(dns_endpoint("api", "api.example.org", "192.0.2.20"))
        assert second_tail.wait_for("Applied: ", 15), second_tail.text()
        assert "192.0.2.20" in (zones / "example.org.zone").read_text()
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=15) == 0, second_tail.text()
    finally:
        for proc, tail in procs:
            finish(proc, tail)
    lease = kubeapi.get("coordination.k8s.io/v1", "Lease", "default", "lr-test")
    assert lease is not None and lease["spec"]["holderIdentity"] == ""  # released on clean shutdown
    print(f"\nleader fail-over after SIGKILL: {failover:.2f}s (lease 2s, retry 0.25s)")
    assert failover <= 6.0


# -- the event path through the real in-cluster Service source ---------------------------------------------------
def _service(name: str, hostname: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"external-dns.kubernetes.io/hostname": hostname}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}


def _set_ip(kubeapi: KubeAPIServer, name: str, ip: str) -> None:
    kubeapi.patch("v1", "Service", "default", name, {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}},
                  subresource="status")


def test_service_changes_reach_the_zone_through_informer_events(tmp_path: Path, kubeapi: KubeAPIServer,
                                                                kubeconfig_file: str) -> None:
    zones = tmp_path / "zones"
    kubeapi.create(_service("web", "web.example.org"))
    _set_ip(kubeapi, "web", "192.0.2.1")
    # a second Service keeps the zone from being emptied by web's deletion (a wipe would need --force)
    kubeapi.create(_service("keep", "keep.example.org"))
    _set_ip(kubeapi, "keep", "192.0.2.9")
    args = ["--source=service", f"--kubeconfig={kubeconfig_file}", "--provider=zonefile", f"--zonefile-dir={zones}",
            "--zonefile-create-zone=example.org", "--txt-owner-id=lr-test", "--policy=sync", "--interval=1h",
            "--events", "--min-event-sync-interval=0s", "--metrics-address=127.0.0.1:0"]
    proc, tail = start_cli(args, "events")
    zone_file = zones / "example.org.zone"
    try:
        assert tail.wait_for("Applied: ", 30), tail.text()
        assert "192.0.2.1" in zone_file.read_text()
        _set_ip(kubeapi, "web", "192.0.2.2")  # with --interval=1h only the informer event can sync this
        assert tail.wait_for("Applied: ", 15, occurrences=2), tail.text()
        assert "192.0.2.2" in zone_file.read_text()
        kubeapi.delete("v1", "Service", "default", "web")
        assert tail.wait_for("Applied: ", 15, occurrences=3), tail.text()
        assert "192.0.2.2" not in zone_file.read_text() and "192.0.2.9" in zone_file.read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0, tail.text()
    finally:
        finish(proc, tail)
    assert "Informer caches synced" in tail.text()
