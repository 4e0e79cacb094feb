"""The Makefile's set-up steps (`make -n`, nothing run): `make run` installs only the runtime dependencies, the
targets that test, lint or benchmark add the test extras."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def planned(target: str, venv: Path) -> str:
    """The commands `make TARGET` would run for a virtualenv that does not exist yet."""
    proc = subprocess.run(["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    return proc.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_run_installs_the_runtime_dependencies_only(tmp_path: Path) -> None:
    steps = planned("run", tmp_path / "venv")
    assert "pip install -q -e ." in steps and "[test]" not in steps
    assert "examples/demo.sh" in steps


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["venv", "lint", "test-unit"])
def test_the_test_targets_add_the_test_extras(tmp_path: Path, target: str) -> None:
    steps = planned(target, tmp_path / "venv")
    assert steps.index("pip install -q -e . ") < steps.index("pip install -q -e '.[test]'")
