"""`external-dns --version` answers without importing the program (whole-process start-up cost)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers.cli import ROOT, clean_env

PROBE = """
import json, sys
from external_dns.cmd.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "ours": sorted(m for m in sys.modules if m.startswith("external_dns"))}))
"""


def test_version_imports_nothing_of_the_program() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, "--version"], capture_output=True, text=True,
                         env=clean_env(), cwd=ROOT, timeout=60, check=False)
    lines = out.stdout.strip().splitlines()
    from external_dns import __version__

    assert lines[0] == __version__
    result = json.loads(lines[-1])
    assert result["code"] == 0
    assert result["ours"] == ["external_dns", "external_dns.cmd", "external_dns.cmd.main"]
