"""The layer contract (`[tool.importlinter]` in pyproject.toml, run by `make lint`): it covers every
top-level part of the package, the tree keeps it, and an upward import (at module level, inside a function
or under TYPE_CHECKING) breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.integration  # runs the real lint-imports (installed with the test extras)


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts: list[dict[str, Any]] = config["contracts"]
    return contracts


def _layered() -> set[str]:
    [layers] = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    assert isinstance(layers, list)
    return {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}


def test_every_top_level_part_of_the_package_sits_in_a_layer() -> None:
    parts = {f"external_dns.{p.stem}" for p in (ROOT / "external_dns").iterdir()
             if (p.suffix == ".py" and p.stem not in ("__init__", "__main__")) or (p / "__init__.py").exists()}
    assert parts - _layered() == set()  # a new module must be placed in the contract


def _forbidden(source: str) -> set[str]:
    [contract] = [c for c in _contracts() if c["type"] == "forbidden" and c["source_modules"] == [source]]
    return set(contract["forbidden_modules"])


def test_providers_may_not_import_controller_sources_or_cmd() -> None:
    assert _forbidden("external_dns.providers") == {"external_dns.controller", "external_dns.sources", "external_dns.cmd"}


def test_plan_is_pure() -> None:
    assert {"external_dns.providers", "external_dns.registry", "external_dns.controller"} <= _forbidden("external_dns.plan")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=tree, capture_output=True,
                          text=True, timeout=120)


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "external_dns", tmp_path / "external_dns",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_tree_keeps_the_contract(tmp_path: Path) -> None:
    result = _lint(_copy(tmp_path))
    assert result.returncode == 0, result.stdout
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "planted", "message"), [
    ("providers/inmemory.py", "\n\ndef _planted() -> None:\n    from external_dns.controller import once\n",
     "external_dns.providers.inmemory -> external_dns.controller.once"),
    ("sources/source.py", "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
     "    from external_dns.controller.controller import Controller\n",
     "external_dns.sources.source -> external_dns.controller.controller"),
    ("plan/policy.py", "\nfrom external_dns.registry import txt\n",
     "external_dns.plan.policy -> external_dns.registry.txt"),
    ("registry/noop.py", "\nfrom external_dns.sources import source\n",  # sources | registry: independent
     "external_dns.registry.noop -> external_dns.sources.source"),
])
def test_a_planted_upward_import_breaks_the_contract(tmp_path: Path, module: str, planted: str,
                                                     message: str) -> None:
    tree = _copy(tmp_path)
    with open(tree / "external_dns" / module, "a") as f:
        f.write(planted)
    result = _lint(tree)
    assert result.returncode == 1
    assert "BROKEN" in result.stdout or "broken" in result.stdout
    assert message in result.stdout
