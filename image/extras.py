"""The project's runtime extras: every `[project.optional-dependencies]` group of pyproject.toml except the
development ones. The image and the Dockerfile install the project with all of them, so a provider extra is in
the image as soon as pyproject declares it.

`python3 image/extras.py` prints the requirement the image installs, e.g.
`external-dns-py[azure,cloudflare]==0.1.0`; `python3 image/extras.py --source DIR` the same for building from
the source tree DIR (`DIR[azure,cloudflare]`). The Dockerfile's build stage runs both.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

# Groups that only developers and CI install (tests, linters, docs, benchmarks) and umbrella groups.
DEVELOPMENT_EXTRAS = frozenset({"test", "tests", "dev", "lint", "docs", "bench", "all"})


def project(pyproject: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return data


def runtime_extras(pyproject: Path) -> list[str]:
    groups = project(pyproject).get("optional-dependencies") or {}
    return sorted(name for name in groups if name not in DEVELOPMENT_EXTRAS)


def dependency_requirements(pyproject: Path) -> list[str]:
    """What the project needs installed beside itself: its dependencies and those of its runtime extras."""
    meta = project(pyproject)
    groups = meta.get("optional-dependencies") or {}
    own = re.sub(r"[-_.]+", "-", meta["name"]).lower()
    wanted = [*meta.get("dependencies", []), *(r for extra in runtime_extras(pyproject) for r in groups[extra])]
    return [r for r in wanted if re.sub(r"[-_.]+", "-", re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]).lower() != own]


def _with_extras(name: str, pyproject: Path) -> str:
    extras = runtime_extras(pyproject)
    return f"{name}[{','.join(extras)}]" if extras else name


def requirement(pyproject: Path) -> str:
    """`name[extra,...]==version`: the one requirement the image's installer is given."""
    meta = project(pyproject)
    return f"{_with_extras(str(meta['name']), pyproject)}=={meta['version']}"


def source_requirement(source: Path) -> str:
    """`DIR[extra,...]`: the project built from its source tree, with the same extras."""
    return _with_extras(str(source), source / "pyproject.toml")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--source"] and len(args) == 2:
        print(source_requirement(Path(args[1])))
    elif not args:
        print(requirement(Path("pyproject.toml")))
    else:
        sys.exit("usage: extras.py [--source DIR]")
