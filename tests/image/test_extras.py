"""image/extras.py: the image installs the project with every runtime extra pyproject declares (not the
development groups), pinned to pyproject's version; the Dockerfile asks the same script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from image.extras import dependency_requirements, project, requirement, runtime_extras, source_requirement
from tests.charts.render import ROOT

PYPROJECT = """\
[project]
name = "external-dns-py"
version = "1.2.3"
[project.optional-dependencies]
test = ["pytest"]
cloudflare = ["cloudflare>=4"]
azure = ["azure-identity"]
docs = ["mkdocs"]
all = ["external-dns-py[azure,cloudflare]"]
"""


def test_runtime_extras_leave_the_development_groups_out(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert runtime_extras(tmp_path / "pyproject.toml") == ["azure", "cloudflare"]
    assert requirement(tmp_path / "pyproject.toml") == "external-dns-py[azure,cloudflare]==1.2.3"
    assert source_requirement(tmp_path) == f"{tmp_path}[azure,cloudflare]"


def test_dependency_requirements_are_the_dependencies_and_the_runtime_extras(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('version = "1.2.3"',
                                                               'version = "1.2.3"\ndependencies = ["dnspython>=2"]'))
    assert dependency_requirements(tmp_path / "pyproject.toml") == ["dnspython>=2", "azure-identity", "cloudflare>=4"]


def test_no_extras_no_brackets(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1"\n')
    assert requirement(tmp_path / "pyproject.toml") == "x==1"
    assert source_requirement(tmp_path) == str(tmp_path)


def test_the_script_prints_the_projects_requirement() -> None:
    out = subprocess.run([sys.executable, "image/extras.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    meta = project(ROOT / "pyproject.toml")
    assert out.stdout.strip() == requirement(ROOT / "pyproject.toml")
    assert out.stdout.startswith(meta["name"]) and out.stdout.strip().endswith(f"=={meta['version']}")
    assert "test" not in runtime_extras(ROOT / "pyproject.toml")
