"""cmd/ builders import a provider, registry or source only when it is chosen: `--once` over manifests
with a zone file or RFC2136 provider never imports the Kubernetes client or boto3 (start-up time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # runs the real CLI in a subprocess

HEAVY = ("kubernetes", "boto3", "botocore")
PROBE = "\n".join([
    "import json, sys",
    "from external_dns.cmd.main import main",
    "code = main(sys.argv[1:])",
    f"print(json.dumps({{'code': code, 'loaded': [m for m in {HEAVY!r} if m in sys.modules]}}))",
])


@pytest.mark.parametrize("provider", [
    ["--provider=zonefile", "--zonefile-create-zone=example.org"],
    # nothing listens on port 1: the sync fails (exit 1), the imports are what is checked
    ["--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-port=1", "--rfc2136-zone=example.org",
     "--rfc2136-insecure"],
])
def test_once_over_manifests_imports_neither_kubernetes_nor_boto3(tmp_path: Path, provider: list[str]) -> None:
    (tmp_path / "manifests").mkdir()
    argv = ["--once", "--dry-run", "--source=manifest", f"--manifest-dir={tmp_path / 'manifests'}",
            f"--zonefile-dir={tmp_path}", "--txt-owner-id=lazy", "--policy=sync", *provider]
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] in (0, 1), proc.stderr
    assert result["loaded"] == [], proc.stderr
