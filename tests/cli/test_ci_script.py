"""`.ci/run` on a machine that lacks things: it installs the missing Debian packages, then runs `make venv`,
`make lint`, `make image` and `make test` with CI=true, and stops at the first failure (fake apt-get/make/python3 on PATH)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run(tmp_path: Path, *, ensurepip: bool, make_fails_on: str = "") -> tuple[int, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    _fake(bin_dir, "apt-get", f'echo "apt-get $*" >> {log}\n')
    _fake(bin_dir, "make", f'echo "make $* CI=$CI" >> {log}\n[ "$1" = "{make_fails_on}" ] && exit 7\nexit 0\n')
    # python3: `-c 'import ensurepip'` fails when the machine lacks python3-venv; the version check passes.
    _fake(bin_dir, "python3", f'echo "python3 $1 $2" >> {log}\n'
                              f'case "$2" in *ensurepip*) exit {0 if ensurepip else 1};; esac\nexit 0\n')
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    env.pop("CI", None)
    proc = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    calls = log.read_text().splitlines() if log.exists() else []
    return proc.returncode, calls


def test_installs_python3_venv_when_missing_then_lints_and_tests_with_ci_true(tmp_path: Path) -> None:
    rc, calls = _run(tmp_path, ensurepip=False)
    assert rc == 0
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert len(installs) == 1 and "python3-venv" in installs[0]
    assert "bind9" in installs[0] or os.access("/usr/sbin/named", os.X_OK)
    assert [c for c in calls if c.startswith("make")] == ["make venv CI=true", "make lint CI=true",
                                                          "make image CI=true", "make test CI=true"]
    # the real kube-apiserver's Go build is started first, in the background, beside the installs (when the
    # background job gets to run is up to the scheduler: the script's order is what is checked); the Go
    # ExternalDNS is built in the same job after it
    script = (ROOT / ".ci" / "run").read_text()
    assert script.index("python3 -m tests.realkube.build") < script.index("apt-get install")
    assert calls.index("python3 -m tests.realkube.build") < calls.index("python3 -m tests.differential.peer")


def test_nothing_installed_when_present_and_a_lint_failure_stops_the_run(tmp_path: Path) -> None:
    rc, calls = _run(tmp_path, ensurepip=True, make_fails_on="lint")
    assert rc == 7
    if os.access("/usr/sbin/named", os.X_OK):
        assert not [c for c in calls if c.startswith("apt-get")]
    assert [c for c in calls if c.startswith("make")] == ["make venv CI=true", "make lint CI=true"]
