"""`make image`: the container image without a container engine (as root; docs/image.md).

    python3 -m image.build [--dist dist] [--cache DIR] [--keep-work]

Steps: the Debian base (debian.py) -> the venv with the project (venv.py), less the data it never loads
(prune.py) -> three layers (Debian; the
dependencies; the project, so a new commit ships one small layer) -> an OCI layout in dist/oci, tagged with
the version -> the same image as a `docker load`-able archive (skopeo) -> dist/image.json: digests, sizes,
what is inside, each step's time. SOURCE_DATE_EPOCH (default: the commit's time) fixes every time stamp
and the newest wheels considered, so two builds of one commit give the same digest while Debian's mirror
serves the same packages.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from image import debian, oci, prune, venv
from image.extras import project, requirement

REPO = Path(__file__).resolve().parents[1]
NAME = "external-dns-py"
ENTRYPOINT = ["external-dns"]
PORT = "7979/tcp"
ENV = {
    "PATH": f"{venv.VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",  # the root filesystem is read-only in the pod; every module is compiled
    "PYTHONUNBUFFERED": "1",  # log lines leave the process as they are written
}
DEFAULT_CACHE = Path(os.environ.get("IMAGE_CACHE") or Path.home() / ".cache" / "external-dns-py" / "image")


def source_date_epoch(repo: Path) -> int:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                         check=True).stdout.strip()
    return int(out)


def revision(repo: Path) -> str:
    proc = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def labels(pyproject: Path, rev: str) -> dict[str, str]:
    """The OCI annotations the image carries as labels (the Dockerfile's LABEL says the same)."""
    meta = project(pyproject)
    return {
        "org.opencontainers.image.title": str(meta["name"]),
        "org.opencontainers.image.description": str(meta["description"]),
        "org.opencontainers.image.version": str(meta["version"]),
        "org.opencontainers.image.licenses": str(meta["license"]),
        "org.opencontainers.image.revision": rev,  # "" outside a git checkout
    }


def _in_app(path: str) -> bool:
    """The project's own files (its wheel's), in their own layer."""
    site = venv.SITE_PACKAGES.lstrip("/") + "/"
    if path.startswith(site):
        return path[len(site):].startswith(("external_dns/", "external_dns_py-")) or path[len(site):] == "external_dns"
    return path == venv.VENV.lstrip("/") + "/bin/external-dns"


def _in_venv(path: str) -> bool:
    top = venv.VENV.lstrip("/")
    return path == top or path.startswith(top + "/")


LAYERS = [
    oci.Layer(f"debian {debian.SUITE}: {', '.join(debian.PACKAGES)} (mmdebstrap, extracted)",
              lambda p: not _in_venv(p)),
    oci.Layer(f"dependencies in {venv.VENV} (wheels, installed by the image's python3.11)",
              lambda p: _in_venv(p) and not _in_app(p)),
    oci.Layer("external-dns-py", _in_app),
]


class Steps:
    """Times each named step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        print(f"image: {name}...", file=sys.stderr, flush=True)
        yield
        self.seconds[name] = round(time.monotonic() - start, 1)


def _docker_archive(layout: Path, archive: Path, ref: str, tag: str) -> None:
    archive.unlink(missing_ok=True)
    subprocess.run(["skopeo", "copy", "--quiet", f"oci:{layout}:{tag}", f"docker-archive:{archive}:{ref}"],
                   check=True, stdin=subprocess.DEVNULL)


def _replace(src: Path, dest: Path) -> None:
    if dest.is_dir():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(src, dest)


def build(dist: Path, cache: Path, keep_work: bool = False, repo: Path = REPO) -> dict[str, Any]:
    os.umask(0o022)
    pyproject = repo / "pyproject.toml"
    version = str(project(pyproject)["version"])
    req = requirement(pyproject)
    epoch = source_date_epoch(repo)
    steps = Steps()
    started = time.monotonic()
    cache.mkdir(parents=True, exist_ok=True)
    lock = open(cache / ".lock", "w")  # noqa: SIM115 - held for the whole build, closed in `finally`
    fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time per cache: they share its downloads and layers
    for stale in cache.glob("work-*"):  # left by a build that was killed
        shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix="work-", dir=cache))
    rootfs = work / "rootfs"
    try:
        with steps("debian base (mmdebstrap)"):
            keep, cas = debian.base(rootfs, cache, epoch)
        with steps("wheels"):
            wheel_dir = venv.wheels(repo, work, cache, epoch)
        with steps("venv"):
            venv.install(rootfs, wheel_dir, req, epoch)
            pruned = prune.prune(rootfs / venv.SITE_PACKAGES.lstrip("/"))
            shared_objects = venv.check_shared_libraries(rootfs)
        with steps("byte-compile"):
            venv.byte_compile(rootfs, epoch)
            debian.finish(rootfs)
        spec = oci.ImageSpec(epoch=epoch, user=f"{debian.NONROOT[0]}:{debian.NONROOT[1]}", entrypoint=ENTRYPOINT,
                             env=ENV, labels=labels(pyproject, revision(repo)), exposed_ports=[PORT],
                             owners={"home/nonroot": debian.NONROOT})
        with steps("oci layout"):
            digest = oci.write_layout(rootfs, work / "oci", spec, LAYERS, version, cache / "layers")
            _replace(work / "oci", dist / "oci")
        archive = dist / f"{NAME}-{version}.tar"
        with steps("docker archive (skopeo)"):
            _docker_archive(dist / "oci", archive, f"{NAME}:{version}", version)
        summary = _summary(dist / "oci", digest, version, epoch, req, keep, wheel_dir, cas, archive)
        summary.update(shared_objects_checked=shared_objects, pruned_bytes=pruned)
    finally:
        if keep_work:
            print(f"image: work directory kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
        lock.close()
    summary["seconds"] = {**steps.seconds, "total": round(time.monotonic() - started, 1)}
    (dist / "image.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _summary(layout: Path, digest: str, version: str, epoch: int, req: str, keep: list[debian.Package],
             wheel_dir: Path, cas: int, archive: Path) -> dict[str, Any]:
    blobs = layout / "blobs" / "sha256"
    manifest = json.loads((blobs / digest.split(":", 1)[1]).read_bytes())
    layers = [{"digest": layer["digest"], "size": layer["size"], "comment": spec.comment}
              for layer, spec in zip(manifest["layers"], LAYERS, strict=True)]
    return {
        "reference": f"{NAME}:{version}",
        "digest": digest,
        "compressed_bytes": sum(layer["size"] for layer in layers) + manifest["config"]["size"],
        "layers": layers,
        "archive": archive.name,
        "source_date_epoch": epoch,
        "created": datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(),
        "requirement": req,
        "debian_packages": {p.name: p.version for p in keep},
        "wheels": sorted(w.name for w in wheel_dir.glob("*.whl") if not w.name.startswith("pip-")),
        "ca_certificates": cas,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m image.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="downloaded .debs and wheels, and the pinned pip, kept across builds")
    parser.add_argument("--keep-work", action="store_true", help="keep the root filesystem for a look")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("image: must run as root (mmdebstrap --mode=root and chroot)", file=sys.stderr)
        return 1
    missing = [tool for tool in ("mmdebstrap", "skopeo", "dpkg-deb", "chroot") if not shutil.which(tool)]
    if missing:
        print(f"image: missing {', '.join(missing)}: apt-get install mmdebstrap skopeo", file=sys.stderr)
        return 1
    summary = build(args.dist, args.cache, args.keep_work)
    print(json.dumps({k: summary[k] for k in ("reference", "digest", "compressed_bytes", "seconds")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

