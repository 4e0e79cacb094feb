"""The project's runtime extras: every `[project.optional-dependencies]` group of pyproject.toml except the
development ones. The image and the Dockerfile install the project with all of them, so a provider extra is in
the image as soon as pyproject declares it.

`python3 image/extras.py [pyproject.toml]` prints the requirement the image installs, e.g.
`external-dns-py[azure,cloudflare]==0.1.0` (the Dockerfile's build stage runs it).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

# Groups that only developers and CI install (tests, linters, docs, benchmarks) and umbrella groups.
DEVELOPMENT_EXTRAS = frozenset({"test", "tests", "dev", "lint", "docs", "bench", "all"})


def project(pyproject: Path) -> dict[str, object]:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    assert isinstance(data, dict)
    return data


def runtime_extras(pyproject: Path) -> list[str]:
    groups = project(pyproject).get("optional-dependencies") or {}
    assert isinstance(groups, dict)
    return sorted(name for name in groups if name not in DEVELOPMENT_EXTRAS)


def requirement(pyproject: Path) -> str:
    """`name[extra,...]==version`: the one requirement the image's installer is given."""
    meta = project(pyproject)
    extras = runtime_extras(pyproject)
    return f"{meta['name']}{'[' + ','.join(extras) + ']' if extras else ''}=={meta['version']}"


if __name__ == "__main__":
    print(requirement(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml")))
