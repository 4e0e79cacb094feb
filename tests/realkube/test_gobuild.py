"""The Go builder (gobuild.py, build.py) with the real `go` command: a module proxy that refuses or cannot be
reached gives a clear message and exit 2; two builders at once build once and leave a whole binary and no
temporary folders (a module served by a proxy laid out on disk, GOPROXY=file://...)."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realkube.build import ETCD
from tests.realkube.gobuild import GoMain, binary_path, cache_root

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
HELLO = "example.test/hello"


def _isolated_env(tmp_path: Path, proxy: str) -> dict[str, str]:
    """Empty caches (nothing comes from this machine's module cache), the given GOPROXY, no checksum db."""
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "GOMODCACHE": str(tmp_path / "mod"),
            "GOPROXY": proxy, "GOSUMDB": "off", "GOFLAGS": "-modcacherw"}


def _run_cli(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.realkube.build"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_unreachable_proxy_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = _run_cli(_isolated_env(tmp_path, f"http://127.0.0.1:{port}"))
    assert proc.returncode == 2, proc.stderr
    assert f"the Go module proxy (http://127.0.0.1:{port}) did not serve {ETCD.module}@{ETCD.version}" in proc.stderr
    assert "connection refused" in proc.stderr
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and not p.name.endswith(".lock")]


@pytest.fixture
def refusing_proxy() -> Iterator[str]:
    """A module proxy that says no (403) to every request, as a curated proxy does for what it does not serve."""
    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"not served here\n"
            self.send_response(403)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_refusing_proxy_is_a_clear_error(tmp_path: Path, refusing_proxy: str) -> None:
    proc = _run_cli(_isolated_env(tmp_path, refusing_proxy))
    assert proc.returncode == 2, proc.stderr
    assert f"did not serve {ETCD.module}@{ETCD.version}" in proc.stderr
    assert "403 Forbidden" in proc.stderr


def _file_proxy(root: Path) -> str:
    """A GOPROXY folder serving example.test/hello v1.0.0 (a main package printing a line)."""
    base = root / HELLO / "@v"
    base.mkdir(parents=True)
    (base / "list").write_text("v1.0.0\n")
    (base / "v1.0.0.info").write_text(json.dumps({"Version": "v1.0.0", "Time": "2026-01-02T03:04:05Z"}))
    gomod = f"module {HELLO}\n\ngo 1.22\n"
    (base / "v1.0.0.mod").write_text(gomod)
    with zipfile.ZipFile(base / "v1.0.0.zip", "w") as z:
        z.writestr(f"{HELLO}@v1.0.0/go.mod", gomod)
        z.writestr(f"{HELLO}@v1.0.0/main.go", 'package main\n\nimport "fmt"\n\nvar Version = "unset"\n\n'
                                              'func main() { fmt.Println("hello", Version) }\n')
    return f"file://{root}"


def test_two_builders_at_once_build_once(tmp_path: Path) -> None:
    env = _isolated_env(tmp_path, _file_proxy(tmp_path / "proxy"))
    script = ("import sys; from tests.realkube.gobuild import GoMain, build; "
              f"print(build(GoMain(name='hello', module={HELLO!r}, version='v1.0.0', package={HELLO!r}, "
              "ldflags=lambda m: [f'-X main.Version={m.version}@{m.time}'])))")
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    paths = {o[0].strip() for o in outs}
    assert len(paths) == 1
    binary = Path(paths.pop())
    assert subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout == \
        "hello v1.0.0@2026-01-02T03:04:05Z\n"
    stderr = "".join(o[1] for o in outs)
    assert stderr.count(": building") == 1, stderr
    assert stderr.count("built in") == 1, stderr
    # only the finished folder and its lock: no temporary build folder left behind
    entries = sorted(p.name for p in binary.parents[1].iterdir())
    assert entries == [binary.parent.name, binary.parent.name + ".lock"]
    assert json.loads((binary.parent / "build-info.json").read_text())["version"] == "v1.0.0"


def test_cache_location_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_root() == tmp_path / "external-dns-py" / "go"
    assert binary_path(ETCD).parent.name.startswith(f"etcd-{ETCD.version}-")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "external-dns-py" / "go"
    # a changed wrapper is another recipe: built anew beside the old binary, never mistaken for it
    other = GoMain(name="etcd", module=ETCD.module, version=ETCD.version, wrapper=tmp_path)
    assert binary_path(other) != binary_path(ETCD)


def test_a_dependency_the_proxy_refuses_is_a_proxy_error_naming_it(tmp_path: Path, refusing_proxy: str) -> None:
    """The module itself is served, one of its requirements is not (as the proxy here refuses two versions the
    Go ExternalDNS v0.22.0 requires): ProxyError naming that module@version, quoting go."""
    proxy = _file_proxy(tmp_path / "proxy")
    base = tmp_path / "proxy" / HELLO / "@v"
    gomod = f"module {HELLO}\n\ngo 1.22\n\nrequire example.test/gone v1.0.0\n"
    (base / "v1.0.0.mod").write_text(gomod)
    with zipfile.ZipFile(base / "v1.0.0.zip", "w") as z:
        z.writestr(f"{HELLO}@v1.0.0/go.mod", gomod)
        z.writestr(f"{HELLO}@v1.0.0/main.go", 'package main\n\nimport _ "example.test/gone"\n\nfunc main() {}\n')
    env = _isolated_env(tmp_path, f"{proxy},{refusing_proxy}")  # the file proxy, then one that says no
    script = ("import sys; from tests.realkube.gobuild import GoMain, ProxyError, build\n"
              "try:\n"
              f"    build(GoMain(name='hello', module={HELLO!r}, version='v1.0.0', package={HELLO!r}))\n"
              "except ProxyError as exc:\n"
              "    print(exc); sys.exit(2)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=180, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "did not serve example.test/gone@v1.0.0" in proc.stdout and "403 Forbidden" in proc.stdout, proc.stdout
