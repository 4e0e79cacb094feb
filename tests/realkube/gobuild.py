"""Builds a Go main from a published module at a version into the user's cache, once per machine.

`build(GoMain(...))` returns the binary's path: `$XDG_CACHE_HOME/external-dns-py/go/<name>-<version>-<recipe>/`
(`~/.cache` without XDG_CACHE_HOME), where `<recipe>` hashes what goes into the binary besides the version (the
wrapper's main.go, ldflags), so a changed wrapper builds anew beside the old one. Concurrent builders (two
worktrees, CI's early background build and `make kube`) take an exclusive lock per binary; the build runs in a
temporary folder beside the final one and is renamed into place whole, so a reader never sees half a build.

Two ways in, both with CGO_ENABLED=0 and `-trimpath`:
- `package` set: `go install <package>@<version>` (a module without replace lines, its main at `package`);
- `wrapper` set: a folder holding our own main.go; the builder writes its go.mod (require `module@version` plus
  what `go_mod` adds from upstream's own go.mod), runs `go mod tidy` and `go build`.

Standard library only: `.ci/run` starts it with the system Python before the virtualenv exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Bumped when the way binaries are built changes in a way the recipe hash does not see.
BUILDER_VERSION = "1"
_INFO = "build-info.json"


class GoBuildError(Exception):
    """A build that could not be done; the message says why."""


class ProxyError(GoBuildError):
    """The Go module proxy refused a module or could not be reached; the message quotes its answer."""


@dataclass(frozen=True)
class GoModule:
    """Upstream's go.mod as `go mod edit -json` reads it, and the release's commit time from the proxy."""

    path: str
    version: str
    gomod: dict[str, Any]
    time: str  # RFC 3339, from the proxy's .info

    def requires(self) -> dict[str, str]:
        return {r["Path"]: r["Version"] for r in self.gomod.get("Require") or []}

    def go_directive(self) -> str:
        return str(self.gomod.get("Go") or "")

    def godebug(self) -> list[str]:
        return [f"{g['Key']}={g['Value']}" for g in self.gomod.get("Godebug") or []]


@dataclass(frozen=True)
class GoMain:
    """One binary to build: `name` in the cache, from `module` at `version` (see the module docstring)."""

    name: str
    module: str
    version: str
    package: str = ""
    wrapper: Path | None = None
    # -X settings, computed from upstream's module (its release time, say)
    ldflags: Callable[[GoModule], list[str]] = field(default=lambda _m: [])
    # replace lines (module -> version) the wrapper's go.mod needs, computed from upstream's go.mod
    replaces: Callable[[GoModule], dict[str, str]] = field(default=lambda _m: {})

    def recipe(self) -> str:
        h = hashlib.sha256(f"{BUILDER_VERSION}\0{self.module}\0{self.version}\0{self.package}".encode())
        if self.wrapper is not None:
            for f in sorted(self.wrapper.glob("*.go")):
                h.update(f.name.encode() + b"\0" + f.read_bytes())
        return h.hexdigest()[:10]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "external-dns-py" / "go"


def binary_path(main: GoMain) -> Path:
    """Where `build(main)` puts the binary; it exists only once a build finished."""
    return cache_root() / f"{main.name}-{main.version}-{main.recipe()}" / main.name


def is_built(main: GoMain) -> bool:
    path = binary_path(main)
    return path.is_file() and os.access(path, os.X_OK) and (path.parent / _INFO).is_file()


def _say(msg: str) -> None:
    print(f"gobuild: {msg}", file=sys.stderr, flush=True)


def _go_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"CGO_ENABLED": "0", "GOTOOLCHAIN": "local", "GOWORK": "off", "GO111MODULE": "on"})
    # -mod=mod lets `go build` write go.sum entries tidy left out (test-only dependencies of a package).
    env["GOFLAGS"] = " ".join(x for x in (env.get("GOFLAGS", ""), "-mod=mod", "-buildvcs=false") if x)
    env.update(extra or {})
    return env


# How `go` reports a module the proxy refused or could not serve (a dependency, met while resolving or building).
_REFUSED = re.compile(r"(\S+@v\S+): reading \S+: (?:403|404|410) [A-Za-z ]+|(\S+@v\S+): .*(?:dial tcp|"
                      r"no such host|connection refused)")


def _go(args: list[str], cwd: Path, env: dict[str, str], what: str) -> str:
    """Run `go ARGS`; a failure raises GoBuildError quoting the end of go's own message (ProxyError, naming the
    modules, when the proxy refused or could not serve a dependency)."""
    proc = subprocess.run(["go", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        output = proc.stderr or proc.stdout
        tail = "\n".join(output.strip().splitlines()[-15:])
        refused = sorted({m.group(1) or m.group(2) for m in _REFUSED.finditer(output)})
        if refused:
            proxy = _go_env_value("GOPROXY", env)
            raise ProxyError(f"{what} failed: the Go module proxy ({proxy}) did not serve {', '.join(refused)}:\n"
                             f"{tail}")
        raise GoBuildError(f"{what} failed (go {' '.join(args[:2])} ...; exit {proc.returncode}):\n{tail}")
    return proc.stdout


def _download(module: str, version: str, env: dict[str, str]) -> dict[str, Any]:
    """`go mod download -json module@version`: its answer (paths of .info, .mod, the extracted Dir); ProxyError
    naming the module and quoting the proxy's answer when it refuses or cannot be reached."""
    with tempfile.TemporaryDirectory(prefix="gobuild-") as tmp:
        proc = subprocess.run(["go", "mod", "download", "-json", f"{module}@{version}"], cwd=tmp, env=env,
                              capture_output=True, text=True, check=False)
    try:
        info: dict[str, Any] = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        info = {}
    if proc.returncode != 0 or info.get("Error") or not info.get("GoMod"):
        detail = info.get("Error") or proc.stderr.strip() or f"exit {proc.returncode}"
        proxy = _go_env_value("GOPROXY", env)
        raise ProxyError(f"the Go module proxy ({proxy}) did not serve {module}@{version}: {detail}")
    return info


def fetch_module(module: str, version: str, env: dict[str, str] | None = None) -> GoModule:
    """Download `module@version` through GOPROXY and read its go.mod and release time."""
    env = env or _go_env()
    info = _download(module, version, env)
    gomod = json.loads(_go(["mod", "edit", "-json", info["GoMod"]], Path(info["GoMod"]).parent, env,
                           "reading go.mod"))
    stamp = ""
    with contextlib.suppress(OSError, json.JSONDecodeError, KeyError):
        stamp = json.loads(Path(info["Info"]).read_text())["Time"]
    return GoModule(module, version, gomod, stamp)


def module_dir(module: str, version: str) -> Path:
    """The extracted source of `module@version` in Go's module cache (downloaded through GOPROXY first when
    missing): for files a module ships beside its Go code (CRD manifests)."""
    return Path(_download(module, version, _go_env())["Dir"])


def _go_env_value(name: str, env: dict[str, str]) -> str:
    proc = subprocess.run(["go", "env", name], env=env, capture_output=True, text=True, check=False)
    return proc.stdout.strip()


@contextlib.contextmanager
def _locked(path: Path, name: str) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"{name}: another build holds {path}; waiting for it")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _write_wrapper(main: GoMain, upstream: GoModule, into: Path) -> None:
    assert main.wrapper is not None
    for f in main.wrapper.glob("*.go"):
        shutil.copy2(f, into / f.name)
    lines = [f"module externaldnspy.test/{main.name}", ""]
    if upstream.go_directive():
        lines += [f"go {upstream.go_directive()}", ""]
    lines += [f"godebug {g}" for g in upstream.godebug()]  # upstream's runtime defaults, kept
    lines += ["", f"require {main.module} {main.version}", ""]
    lines += [f"replace {m} => {m} {v}" for m, v in sorted(main.replaces(upstream).items())]
    (into / "go.mod").write_text("\n".join(lines) + "\n")


def _compile(main: GoMain, upstream: GoModule, out_dir: Path, work: Path, env: dict[str, str]) -> None:
    ldflags = " ".join(["-s", "-w", *main.ldflags(upstream)])
    if main.package:
        _go(["install", "-trimpath", "-ldflags", ldflags, f"{main.package}@{main.version}"], work,
            {**env, "GOBIN": str(out_dir)}, f"go install {main.package}@{main.version}")
        built = out_dir / Path(main.package).name
        if built.name != main.name:
            built.rename(out_dir / main.name)
        return
    src = work / "src"
    src.mkdir()
    _write_wrapper(main, upstream, src)
    _go(["mod", "tidy"], src, env, f"resolving {main.name}'s dependencies")
    _go(["build", "-trimpath", "-ldflags", ldflags, "-o", str(out_dir / main.name), "."], src, env,
        f"building {main.name}")


def build(main: GoMain, env_extra: dict[str, str] | None = None) -> Path:
    """The cached binary for `main`, built first if no finished build is in the cache."""
    final = binary_path(main).parent
    if is_built(main):
        return final / main.name
    env = _go_env(env_extra)
    with _locked(final.with_name(final.name + ".lock"), main.name):
        if is_built(main):  # built by whoever held the lock before us
            _say(f"{main.name} {main.version}: built meanwhile by another process")
            return final / main.name
        upstream = fetch_module(main.module, main.version, env)
        started = time.monotonic()
        _say(f"{main.name} {main.version}: building (this takes minutes the first time on a machine)")
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
        try:
            out_dir = tmp / "out"
            out_dir.mkdir()
            work = tmp / "work"
            work.mkdir()
            _compile(main, upstream, out_dir, work, env)
            info = {"name": main.name, "module": main.module, "version": main.version,
                    "seconds": round(time.monotonic() - started, 1),
                    "go": _go_env_value("GOVERSION", env), "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (out_dir / _INFO).write_text(json.dumps(info, indent=1) + "\n")
            if final.exists():  # an unfinished leftover (no build-info): never finished, so replace it
                shutil.rmtree(final)
            os.rename(out_dir, final)  # atomic: readers see no binary or the whole one
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        _say(f"{main.name} {main.version}: built in {info['seconds']} s -> {final / main.name}")
    return final / main.name
