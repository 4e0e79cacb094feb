"""The built image (dist/, `make image`) as a registry or a kubelet sees it, before anything runs: its config
through skopeo (numeric non-root user, entrypoint, labels with pyproject's version and this commit), what its
layers hold (no shell, no package manager, no docs; one owner, one time stamp, no set-uid file; the project
alone in the last layer; every runtime dependency of pyproject installed), and the docker archive tagged as
the chart's default image."""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
from collections.abc import Iterator
from typing import Any

import pytest

from image.extras import project, runtime_extras
from image.oci import FILE_TIME
from image.venv import SITE_PACKAGES
from tests.charts.render import ROOT, containers, render_chart
from tests.image.runtime import Built

pytestmark = pytest.mark.integration

SITE = SITE_PACKAGES.lstrip("/") + "/"
# Programs that must not be in the image: shells, package managers, other interpreters.
FORBIDDEN = ("bin/sh", "bin/bash", "bin/dash", "bin/busybox", "bin/dpkg", "bin/apt", "bin/apt-get", "bin/perl",
             "bin/mawk", "bin/tar", "opt/external-dns/bin/pip", "opt/external-dns/bin/pip3")


def _skopeo(*args: str) -> Any:
    return json.loads(subprocess.run(["skopeo", *args], check=True, capture_output=True, text=True,
                                     timeout=120).stdout)


def _layers(image: Built) -> Iterator[list[tarfile.TarInfo]]:
    manifest = _skopeo("inspect", "--raw", image.oci_ref)
    for layer in manifest["layers"]:
        with tarfile.open(image.layout / "blobs" / "sha256" / layer["digest"].split(":", 1)[1], "r:gz") as tar:
            yield tar.getmembers()


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_config_runs_as_the_charts_user_with_external_dns_as_entrypoint(image: Built) -> None:
    config = _skopeo("inspect", "--config", "--raw", image.oci_ref)
    meta = project(ROOT / "pyproject.toml")
    assert config["config"]["User"] == "65532:65532"  # numeric: the kubelet's runAsNonRoot can verify it
    assert config["config"]["Entrypoint"] == ["external-dns"] and "Cmd" not in config["config"]
    labels = config["config"]["Labels"]
    assert labels["org.opencontainers.image.version"] == meta["version"] == image.tag
    assert labels["org.opencontainers.image.title"] == meta["name"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert labels["org.opencontainers.image.revision"] == head, "dist/ holds an image of another commit: make image"
    assert config["created"] == image.summary["created"].replace("+00:00", "Z")
    assert (config["os"], config["architecture"]) == ("linux", "amd64")
    assert len(config["rootfs"]["diff_ids"]) == len(config["history"]) == 3


def test_layers_hold_no_shell_no_package_manager_and_fixed_metadata(image: Built) -> None:
    names: set[str] = set()
    files: set[str] = set()
    for members in _layers(image):
        for m in members:
            names.add(m.name)
            if not m.isdir():
                files.add(m.name)
            assert m.mtime == FILE_TIME, m.name
            owner = (65532, 65532) if m.name == "home/nonroot" else (0, 0)
            assert (m.uid, m.gid, m.uname, m.gname) == (*owner, "", ""), m.name
            assert m.isdir() or m.isfile() or m.issym() or m.islnk(), f"{m.name}: no device nodes or fifos"
            assert not m.mode & 0o6000 or m.isdir(), f"{m.name}: set-uid/set-gid"
            assert not m.mode & 0o022 or m.issym() or m.name in ("tmp", "var/tmp"), f"{m.name}: writable by others"
    for program in FORBIDDEN:
        assert not {program, f"usr/{program}"} & names, program
    assert not any(n.startswith(f"{SITE}{p}") for n in names for p in ("pip/", "setuptools/", "wheel/"))
    docs = [n for n in files if n.startswith("usr/share/doc/")]
    assert docs and all(n.endswith("/copyright") for n in docs), docs  # licences stay, docs go
    assert not [n for n in names if n.startswith(("usr/share/man/", "usr/share/locale/", "usr/share/info/"))]
    assert "etc/ssl/certs/ca-certificates.crt" in names and "usr/share/zoneinfo/Etc/UTC" in names
    assert "etc/passwd" in names and "var/lib/dpkg/status" in names


def test_the_project_alone_in_the_last_layer(image: Built) -> None:
    *_, last = _layers(image)
    files = [m.name for m in last if not m.isdir()]
    assert files and all(f.startswith((f"{SITE}external_dns/", f"{SITE}external_dns_py-"))
                         or f == "opt/external-dns/bin/external-dns" for f in files), files[:5]


def test_every_runtime_dependency_is_installed(image: Built) -> None:
    """pyproject's dependencies and every runtime extra's, as installed distributions in the venv."""
    installed = {_normalize(m.name[len(SITE):].split("-")[0]) for members in _layers(image) for m in members
                 if m.name.startswith(SITE) and m.name.endswith(".dist-info") and m.isdir()}
    meta = project(ROOT / "pyproject.toml")
    groups = meta.get("optional-dependencies") or {}
    wanted = [*meta["dependencies"], *(r for extra in runtime_extras(ROOT / "pyproject.toml") for r in groups[extra])]
    names = {_normalize(re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0]) for req in wanted}
    assert names <= installed, names - installed
    assert {"pip", "setuptools", "wheel"}.isdisjoint(installed)
    assert _normalize(str(meta["name"])) in installed


def test_docker_archive_is_the_charts_default_image(image: Built) -> None:
    archive = ROOT / "dist" / image.summary["archive"]
    with tarfile.open(archive) as tar:
        member = tar.extractfile("manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
    chart_image = containers(render_chart({}))["external-dns"]["image"]  # the chart's default values
    assert chart_image == image.summary["reference"]
    # the kubelet and `docker load` name both docker.io/library/<name>:<tag>
    assert manifest[0]["RepoTags"] == [f"docker.io/library/{chart_image}"]
    in_archive = _skopeo("inspect", "--config", "--raw", f"docker-archive:{archive}")
    assert in_archive == _skopeo("inspect", "--config", "--raw", image.oci_ref)


def test_summary_figures(image: Built) -> None:
    """dist/image.json: what the docs quote (size within the 60 MB goal, every .so resolvable at build time)."""
    layers = _skopeo("inspect", "--raw", image.oci_ref)["layers"]
    assert image.summary["compressed_bytes"] == sum(layer["size"] for layer in layers) + len(
        subprocess.run(["skopeo", "inspect", "--config", "--raw", image.oci_ref], check=True, capture_output=True,
                       timeout=60).stdout)
    assert image.summary["compressed_bytes"] <= 60_000_000
    assert image.summary["shared_objects_checked"] > 50
    assert image.summary["digest"] == json.loads((image.layout / "index.json").read_text())["manifests"][0]["digest"]

