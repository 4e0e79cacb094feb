"""`--progress=auto` on a real terminal (a pty): the bar is drawn, and every log line written while it is
shown first clears it (no log text runs into a bar), then the bar is redrawn below the log line."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

CLEAR_LINE = "\r\x1b[K"


def _read_all(fd: int, timeout: float = 60.0) -> str:
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    return out.decode()


def test_bar_is_cleared_before_each_log_line_on_a_terminal(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "m", tmp_path / "z"
    manifests.mkdir()
    zones.mkdir()
    body = ["apiVersion: externaldns.k8s.io/v1alpha1", "kind: DNSEndpoint",
            "metadata: {name: many, namespace: default}", "spec:", "  endpoints:"]
    for i in range(12):
        body += [f"  - dnsName: h{i}.example.org", "    recordType: A", f"    targets: [192.0.2.{i + 1}]"]
    (manifests / "ep.yaml").write_text("\n".join(body) + "\n")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
         "--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org",
         "--policy=sync", "--txt-owner-id=pty", "--apply-batch-size=4", "--progress=auto"],
        stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    try:
        out = _read_all(master)
    finally:
        os.close(master)
        assert proc.wait(timeout=60) == 0
    screen_lines = out.split("\r\n")  # the pty turns "\n" into "\r\n"
    with_bar = [line for line in screen_lines if "changes, zone 1/1" in line]
    assert with_bar, out
    for line in with_bar:
        if "time=" in line:  # a log line written while the bar was shown
            assert CLEAR_LINE + "time=" in line, line
            before = line.split(CLEAR_LINE + "time=")[0]
            assert "time=" not in before, line
    assert "100% 12/12 changes, zone 1/1" in screen_lines[-2] and screen_lines[-1] == ""
    assert "Applied: 12 created, 0 updated, 0 deleted" in out
