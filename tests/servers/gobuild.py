"""Go programs built from their published modules, once per machine, into the user's cache directory.

The peers this project is proven against (the Go ExternalDNS, and any other Go main at a pinned version) are
built from the Go module proxy with the machine's Go toolchain: static (`CGO_ENABLED=0`), with the version
stamped in through `-ldflags -X`, inside a small wrapper module of our own that requires the module at its
version (plus `replace` pins where the proxy refuses a version the module asks for, and optionally a main of
our own), and cached by version:

    ${EXTERNAL_DNS_PY_CACHE:-${XDG_CACHE_HOME:-~/.cache}/external-dns-py}/go/<name>@<version>/<name>

A build holds an exclusive `flock` on `go/<name>@<version>.lock` (every process of every checkout on the
machine waits for the first one's build, then uses its binary), builds into a temporary directory beside the
final one and renames it into place, so a half-built binary is never seen; the wrapper's go.mod and go.sum stay
beside the binary as the record of what was built. Go's own module and build caches
(GOMODCACHE, GOCACHE) are shared with every other Go build of the machine.

`python -m tests.servers.gobuild external-dns` builds (or finds) a program and prints its path; a refusal of
the module proxy is reported as such, quoting Go's error, and exits 2.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

BUILD_TIMEOUT = 45 * 60.0  # a cold build of a large module on 2 cores takes minutes, never this long
LOCK_TIMEOUT = BUILD_TIMEOUT + 60.0
# Lines of `go` output that mean the proxy said no (or could not be reached), not that the code failed.
_PROXY_REFUSALS = ("404 Not Found", "410 Gone", "403 Forbidden", "not found:", "unknown revision",
                   "invalid version", "dial tcp", "no such host", "connection refused", "i/o timeout",
                   "verifying module", "TLS handshake")


class GoBuildError(RuntimeError):
    """A Go program could not be built; the message says why and quotes Go."""


class ModuleProxyRefused(GoBuildError):
    """The Go module proxy refused (or could not serve) a module the build needs."""


@dataclass(frozen=True)
class GoMain:
    """A main package of a published Go module at a version, built inside a wrapper module that requires it."""

    name: str  # the binary's name and the cache entry's
    module: str
    version: str
    package: str = ""  # the main package's import path; default: the module root ("." when main_go is set)
    ldflags_x: Mapping[str, str] = field(default_factory=dict)  # `-X name=value` pairs
    # module path -> "path version": `replace` lines of the wrapper (a dependency's replace lines are ignored by
    # Go, so pins and redirects have to live in the main module)
    replace: Mapping[str, str] = field(default_factory=dict)
    main_go: str = ""  # the wrapper's own main.go (a main that calls into the module), if any

    @property
    def target(self) -> str:
        return f"{self.module}@{self.version}"

    def ldflags(self) -> str:
        return " ".join(f"-X {name}={value}" for name, value in sorted(self.ldflags_x.items()))

    def go_mod(self, go_version: str) -> str:
        lines = [f"module external-dns-py.local/build/{self.name}", "", f"go {go_version}", "",
                 f"require {self.module} {self.version}", ""]
        lines += [f"replace {old} => {new}" for old, new in sorted(self.replace.items())]
        return "\n".join(lines) + "\n"

    def stamp(self) -> dict[str, object]:
        return {"target": self.target, "package": self.package, "ldflags": self.ldflags(),
                "replace": dict(sorted(self.replace.items())), "main_go": self.main_go}


EXTERNAL_DNS = GoMain(
    name="external-dns",
    module="sigs.k8s.io/external-dns",
    version="v0.22.0",
    ldflags_x={"sigs.k8s.io/external-dns/pkg/apis/externaldns.Version": "v0.22.0"},
    replace={
        # v0.22.0 requires openshift/api at af5c920502e2, which the module proxy here refuses (403 "This module
        # version is not available"); the openshift/client-go that v0.22.0 requires was itself built against
        # 8f52beb625b5, which the proxy serves. Only the OpenShift Route source uses it.
        "github.com/openshift/api": "github.com/openshift/api v0.0.0-20260810132456-8f52beb625b5",
        # v0.22.0 requires v3.1.44, refused by the proxy (403); v3.1.50 is the next served release of the same
        # major version. Only the Exoscale provider uses it.
        "github.com/exoscale/egoscale/v3": "github.com/exoscale/egoscale/v3 v3.1.50",
    },
)
PROGRAMS: dict[str, GoMain] = {EXTERNAL_DNS.name: EXTERNAL_DNS}


def cache_root() -> Path:
    """Where the built programs live: `$EXTERNAL_DNS_PY_CACHE`, else `$XDG_CACHE_HOME/external-dns-py`, else
    `~/.cache/external-dns-py`."""
    explicit = os.environ.get("EXTERNAL_DNS_PY_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "external-dns-py"


def entry_dir(main: GoMain) -> Path:
    return cache_root() / "go" / f"{main.name}@{main.version}"


def binary_path(main: GoMain) -> Path:
    return entry_dir(main) / main.name


def is_built(main: GoMain) -> bool:
    stamp = entry_dir(main) / "build.json"
    try:
        recorded = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    return bool(recorded.get("spec") == main.stamp() and os.access(binary_path(main), os.X_OK))


def go_env() -> dict[str, str]:
    """The environment of a build: static, this machine's toolchain only (a module asking for a newer Go fails
    with Go's own message instead of downloading one), module cache files removable (`-modcacherw`)."""
    env = dict(os.environ)
    env.update(CGO_ENABLED="0", GOTOOLCHAIN="local", GOWORK="off")
    flags = env.get("GOFLAGS", "").split()
    env["GOFLAGS"] = " ".join([*(f for f in flags if f != "-modcacherw"), "-modcacherw"])
    return env


def _failure(main: GoMain, output: str) -> GoBuildError:
    quoted = "\n".join(f"    {line}" for line in output.strip().splitlines()[-15:])
    if any(marker in output for marker in _PROXY_REFUSALS):
        proxy = os.environ.get("GOPROXY") or _go_env_value("GOPROXY")
        return ModuleProxyRefused(
            f"cannot build {main.name}: the Go module proxy ({proxy}) refused or could not serve "
            f"{main.target} or one of its requirements. Go said:\n{quoted}")
    return GoBuildError(f"cannot build {main.name} from {main.target}. Go said:\n{quoted}")


def _go_env_value(name: str) -> str:
    try:
        out = subprocess.run(["go", "env", name], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.stdout.strip() or "?"


def _compile(main: GoMain, into: Path) -> None:
    """Build `main` in the wrapper module written into `into`; the binary lands at `into/<name>`."""
    go = shutil.which("go")
    if go is None:
        raise GoBuildError(f"cannot build {main.name}: no `go` on PATH (Go 1.26 is needed)")
    (into / "go.mod").write_text(main.go_mod(_go_env_value("GOVERSION").removeprefix("go") or "1.26"))
    if main.main_go:
        (into / "main.go").write_text(main.main_go)
    package = main.package or ("." if main.main_go else main.module)
    # -mod=mod: the wrapper starts with an empty go.sum; Go fills it (checked against the checksum database)
    cmd = [go, "build", "-mod=mod", "-trimpath", "-ldflags", main.ldflags(), "-o", str(into / main.name), package]
    try:
        out = subprocess.run(cmd, cwd=into, env=go_env(), capture_output=True, text=True,
                             timeout=BUILD_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise GoBuildError(f"building {main.target} took longer than {BUILD_TIMEOUT:.0f} s") from exc
    if out.returncode != 0 or not (into / main.name).is_file():
        raise _failure(main, out.stdout + out.stderr)


def _lock(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + LOCK_TIMEOUT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise GoBuildError(f"{path} stayed locked for {LOCK_TIMEOUT:.0f} s (another build hung?)") from None
            time.sleep(0.5)  # another process builds the same program: wait for its result


def build(main: GoMain, log: bool = True) -> Path:
    """The path of `main`'s binary, built first when this machine has not built it yet."""
    if is_built(main):
        return binary_path(main)
    final = entry_dir(main)
    fd = _lock(final.with_name(final.name + ".lock"))
    try:
        if is_built(main):  # built by the process we waited for
            return binary_path(main)
        if log:
            print(f"building {main.target} (CGO_ENABLED=0) into {final} ...", file=sys.stderr, flush=True)
        started = time.monotonic()
        tmp = Path(tempfile.mkdtemp(prefix=f".{main.name}-", dir=final.parent))
        try:
            _compile(main, tmp)
            (tmp / "build.json").write_text(json.dumps(
                {"spec": main.stamp(), "go": _go_env_value("GOVERSION"),
                 "seconds": round(time.monotonic() - started, 1)}, indent=1))
            shutil.rmtree(final, ignore_errors=True)
            tmp.rename(final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if log:
            print(f"built {main.name} {main.version} in {time.monotonic() - started:.0f} s", file=sys.stderr)
        return binary_path(main)
    finally:
        os.close(fd)  # releases the lock


def main(argv: list[str]) -> int:
    names = argv or sorted(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        print(f"unknown program(s) {unknown}; known: {sorted(PROGRAMS)}", file=sys.stderr)
        return 2
    for name in names:
        try:
            print(build(PROGRAMS[name]))
        except GoBuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
