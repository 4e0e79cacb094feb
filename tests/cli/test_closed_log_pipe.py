"""The long-running CLI whose log reader went away (`external-dns ... 2>&1 | head -1`): later log writes hit
EPIPE. The process keeps reconciling (a manifest change still reaches the zone file), does not spin on the
failed writes, and SIGTERM still ends it within seconds with exit 0 (a clean shutdown). The same for
`webhook-server`: it keeps answering and stops on SIGTERM with exit 0."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, clean_env, dns_endpoint, read_until, zone_records
from tests.kubeapi.server import KubeAPIServer
from tests.sources.helpers import service

pytestmark = pytest.mark.integration


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` so far (/proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(check: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.1)  # observing another process's file: there is nothing to wait on
    return False


def reconcile_without_log_reader(source_flags: list[str], zones: Path, close_after: bytes,
                                 change: Callable[[], object], env: dict[str, str] | None = None) -> None:
    """Run the long-running CLI (`source_flags`, zone files in `zones`), close its output after the line
    holding `close_after`, make `change` (api.example.org A 192.0.2.20) and check that it still lands, that the
    process does not spin, and that SIGTERM ends it within 5 s with exit 0."""
    args = [sys.executable, "-m", "external_dns", *source_flags, "--provider=zonefile", f"--zonefile-dir={zones}",
            "--zonefile-create-zone=example.org", "--txt-owner-id=pipe-test", "--policy=sync", "--interval=1s",
            "--metrics-address=127.0.0.1:0",
            "--log-level=debug"]  # debug: every pass writes lines, so writes keep failing after the close
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                            env=env or clean_env(drop=["KUBECONFIG"]))
    zone_file = zones / "example.org.zone"
    try:
        read_until(proc.stdout, close_after, 30)
        assert proc.stdout is not None
        proc.stdout.close()  # the reader exits (`| head`): the next log write fails with EPIPE
        change()
        landed = wait_for(lambda: proc.poll() is not None or ("api.example.org", "A") in zone_records(zone_file), 30)
        assert proc.poll() is None, f"the process ended with {proc.returncode} when its log reader went away"
        assert landed, "the change made after the log reader went away never reached the zone file"
        before = cpu_seconds(proc.pid)
        time.sleep(2)  # an idle controller with a 1 s interval: a traceback loop would burn this CPU
        assert cpu_seconds(proc.pid) - before < 1.0
        proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        code = proc.wait(timeout=15)
        elapsed = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert code == 0
    assert elapsed < 5, elapsed  # informers, workers, health server and the signal watcher all stopped
    assert zone_records(zone_file)[("www.example.org", "A")] == ["192.0.2.10"]


@pytest.mark.parametrize("close_after", [b"msg=config", b"Applied: "],
                         ids=["during-start-up", "after-the-first-sync"])
def test_closed_log_pipe_keeps_reconciling_and_sigterm_still_stops_it(tmp_path: Path, close_after: bytes) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    reconcile_without_log_reader(
        ["--source=manifest", f"--manifest-dir={manifests}"], tmp_path / "zones", close_after,
        lambda: (manifests / "api.yaml").write_text(dns_endpoint("api", "api.example.org", "192.0.2.20")))


def test_closed_log_pipe_with_informers_against_the_test_api_server(tmp_path: Path, kubeapi: KubeAPIServer,
                                                                    kubeconfig_file: str) -> None:
    def lb_service(name: str, ip: str) -> None:
        obj = service(name, annotations={"external-dns.kubernetes.io/hostname": f"{name}.example.org"},
                      lb_ips=(ip,), spec={"ports": [{"port": 80}]})
        created = kubeapi.create(obj)  # as kube-apiserver: the status is set through its subresource
        kubeapi.update_status({**created, "status": obj["status"]})

    lb_service("www", "192.0.2.10")
    reconcile_without_log_reader(
        ["--source=service", f"--kubeconfig={kubeconfig_file}"], tmp_path / "zones", b"Informer caches synced",
        lambda: lb_service("api", "192.0.2.20"), env=clean_env())


def answers(port: int) -> bool:
    """The webhook server at `port` answers its negotiation request."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def test_webhook_server_keeps_serving_without_its_log_reader_and_stops_on_sigterm() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = [sys.executable, "-m", "external_dns", "webhook-server", "--provider=inmemory",
            "--inmemory-zone=example.org", f"--webhook-server-address=127.0.0.1:{port}",
            "--webhook-server-health-address=127.0.0.1:0", "--log-level=debug"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                            env=clean_env(drop=["KUBECONFIG"]))
    try:
        read_until(proc.stdout, b"msg=config", 30)
        assert proc.stdout is not None
        proc.stdout.close()  # before the "listening" line (stdout) and the request log lines
        assert wait_for(lambda: proc.poll() is not None or answers(port), 30)
        assert answers(port) and answers(port)
        assert proc.poll() is None, f"webhook-server ended with {proc.returncode} when its log reader went away"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert code == 0
