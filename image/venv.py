"""The project in the image: wheels made on the host, installed into a virtualenv by the image's own Python.

The host's pip (a pinned version, in a tools venv under the cache) builds the project's wheel from a copy of
what the Dockerfile copies and fetches every dependency as a wheel, only ones uploaded before
SOURCE_DATE_EPOCH: one commit always resolves to the same versions (kept in the cache by that key). Inside the root filesystem (chroot), the
image's /usr/bin/python3.11 makes /opt/external-dns without pip and runs pip from its wheel with
`--no-index`: nothing is fetched there, and neither pip nor setuptools stays in the image. Then every module,
the standard library's included, is byte-compiled with hash-checked .pyc (`unchecked-hash`: the same bytes
every build, and no source stat or hash at import).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from image.extras import dependency_requirements

PIP_VERSION = "26.3"
# The project's build backend, pinned too: its version is in the wheel's metadata (WHEEL's Generator), and a
# build without isolation skips setting up a fresh one each time.
SETUPTOOLS_VERSION = "84.2.1"
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"
VENV = "/opt/external-dns"
SITE_PACKAGES = f"{VENV}/lib/python3.11/site-packages"
PYTHON = "/usr/bin/python3.11"
LOADER = "/lib64/ld-linux-x86-64.so.2"
# The build context, as the Dockerfile copies it (.dockerignore).
SOURCES = ("pyproject.toml", "README.md", "external_dns")
# pip settings of this machine that would change what is resolved; the index and its certificate stay.
_PIP_ENV_DROPPED = ("PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "PIP_REQUIREMENT",
                    "PIP_PRE", "PIP_UPLOADED_PRIOR_TO", "PIP_ONLY_BINARY", "PIP_NO_BINARY")


def _host_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _PIP_ENV_DROPPED}
    env.update(PIP_CACHE_DIR=str(cache / "pip"), PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def tools_pip(cache: Path) -> Path:
    """The pinned pip and build backend, in a venv under the cache (made once)."""
    venv = cache / f"tools-pip-{PIP_VERSION}-setuptools-{SETUPTOOLS_VERSION}"
    pip = venv / "bin" / "pip"
    if not (venv / ".complete").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        subprocess.run([str(pip), "install", "-q", f"pip=={PIP_VERSION}", f"setuptools=={SETUPTOOLS_VERSION}"],
                       check=True, env=_host_env(cache))
        (venv / ".complete").touch()
    for old in cache.glob("tools-pip-*"):
        if old != venv:
            shutil.rmtree(old)
    return pip


def copy_sources(repo: Path, dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in SOURCES:
        src = repo / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dest / name)
    return dest


def wheels(repo: Path, work: Path, cache: Path, epoch: int) -> Path:
    """A directory with the project's wheel (built from the source tree every time), every dependency's and
    pip's own. The dependency wheels are kept in the cache under a key of what decides them (the requirements,
    the upload cut-off, pip's and Python's versions): the same key always resolves to the same wheels."""
    pip = tools_pip(cache)
    out = work / "wheels"
    src = copy_sources(repo, work / "src")
    cutoff = datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    env = {**_host_env(cache), "SOURCE_DATE_EPOCH": str(epoch), "PIP_UPLOADED_PRIOR_TO": cutoff}
    subprocess.run([str(pip), "wheel", "-q", "--no-deps", "--no-build-isolation", "--wheel-dir", str(out), str(src)],
                   check=True, env=env)
    requirements = [*dependency_requirements(repo / "pyproject.toml"), f"pip=={PIP_VERSION}"]
    key = hashlib.sha256(json.dumps([requirements, cutoff, PIP_VERSION, PYTHON]).encode()).hexdigest()[:16]
    store = cache / "wheels"
    kept = store / key
    if not (kept / ".complete").exists():
        shutil.rmtree(kept, ignore_errors=True)
        (work / "requirements.txt").write_text("".join(f"{r}\n" for r in requirements), encoding="utf-8")
        subprocess.run([str(pip), "wheel", "-q", "--wheel-dir", str(kept), "-r", str(work / "requirements.txt")],
                       check=True, env=env)
        (kept / ".complete").touch()
    for other in store.iterdir():
        if other != kept:
            shutil.rmtree(other)
    for wheel in kept.glob("*.whl"):
        shutil.copy2(wheel, out / wheel.name)
    return out


def _chroot(rootfs: Path, *args: str, epoch: int) -> None:
    env = {"PATH": "/usr/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "SOURCE_DATE_EPOCH": str(epoch)}
    subprocess.run([CHROOT, str(rootfs), *args], check=True, env=env, stdin=subprocess.DEVNULL)


def install(rootfs: Path, wheel_dir: Path, requirement: str, epoch: int) -> None:
    staged = rootfs / "tmp" / "wheels"
    shutil.copytree(wheel_dir, staged)
    try:
        pip_wheel = next(staged.glob(f"pip-{PIP_VERSION}-*.whl")).name
        _chroot(rootfs, PYTHON, "-m", "venv", "--without-pip", VENV, epoch=epoch)
        _chroot(rootfs, f"{VENV}/bin/python", f"/tmp/wheels/{pip_wheel}/pip", "install", "--quiet", "--no-index",
                "--find-links=/tmp/wheels", "--no-compile", "--no-cache-dir", "--disable-pip-version-check",
                requirement, epoch=epoch)
    finally:
        shutil.rmtree(staged)


def check_shared_libraries(rootfs: Path) -> int:
    """Every ELF shared object of the venv and the standard library finds its libraries in the image (the
    image's own loader lists them); a wheel needing a library Debian's set lacks fails the build here, not at
    import time in a cluster. The number of objects checked."""
    objects = sorted(p for d in (SITE_PACKAGES, "/usr/lib/python3.11/lib-dynload")
                     for p in (rootfs / d.lstrip("/")).rglob("*.so*") if p.is_file())
    missing = {}
    for path in objects:
        inside = "/" + path.relative_to(rootfs).as_posix()
        out = subprocess.run([CHROOT, str(rootfs), LOADER, "--list", inside], capture_output=True, text=True,
                             env={"PATH": "/usr/bin"}, check=False).stdout
        if "not found" in out:
            missing[inside] = [line.split()[0] for line in out.splitlines() if "not found" in line]
    if missing:
        raise RuntimeError(f"shared libraries missing from the image: {missing}")
    return len(objects)


# The Cloudflare SDK has a package of resources and one of types for each of its ~120 APIs (6,000 modules,
# 5.7 MB of compressed .pyc), loaded only when used: only the APIs the cloudflare provider calls are compiled
# ahead (tests/image/test_prune.py checks the provider names no other); another one, if ever imported, is
# compiled in memory at import.
CLOUDFLARE_APIS = ("addressing", "dns", "shared", "zones")  # addressing: regional hostnames
NOT_COMPILED = rf"/cloudflare/(resources|types)/(?!({'|'.join(CLOUDFLARE_APIS)})/)[^/]+/"


def byte_compile(rootfs: Path, epoch: int) -> None:
    _chroot(rootfs, PYTHON, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
            "-x", NOT_COMPILED, "/usr/lib/python3.11", SITE_PACKAGES, epoch=epoch)
