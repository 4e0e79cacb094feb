"""An in-process moto server (Route53 + DynamoDB) on a free loopback port, for AWS integration tests.

Pytest plugin: list `tests.servers.moto` in `pytest_plugins` and use the session-scoped `moto_server`
fixture; it yields the endpoint URL (`http://127.0.0.1:<port>`). All moto state is wiped after every test
that used it (`POST /moto-api/reset`), so tests never see each other's zones or tables.

Outside pytest (benchmarks): `with start_moto() as url: ...`, or `with start_moto_process() as url: ...` for
a `moto_server` child process (so a benchmark's client and the server do not share one interpreter).

The server is `moto.server.ThreadedMotoServer` (werkzeug in a thread of this process): it starts in a few
milliseconds and stops cleanly; werkzeug's per-request access log is silenced.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Generator, Iterator, Mapping

import pytest

RESET_TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def reset(url: str) -> None:
    """Wipe all moto state (every zone, record set and table)."""
    req = urllib.request.Request(url + "/moto-api/reset", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=RESET_TIMEOUT) as resp:
        if resp.status != 200:
            raise RuntimeError(f"moto reset answered {resp.status}")


@contextlib.contextmanager
def start_moto() -> Iterator[str]:
    """Run a ThreadedMotoServer on 127.0.0.1:<free port>; yields its URL, stops it on exit."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    try:
        reset(url)  # also proves the server answers
        yield url
    finally:
        server.stop()


@contextlib.contextmanager
def start_moto_process(ready_timeout: float = 30.0, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run `moto.server` as a child process on 127.0.0.1:<free port>; yields its URL, stops it on exit. `env`:
    its environment (e.g. INITIAL_NO_AUTH_ACTION_COUNT=0: every request's credentials are checked)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(env) if env is not None else None)
    try:
        deadline = time.monotonic() + ready_timeout
        while True:
            try:
                reset(url)
                break
            except (urllib.error.URLError, ConnectionError) as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not start on {url}: {exc}") from None
                time.sleep(0.05)  # polling a child process for readiness, bounded by the deadline
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    """The endpoint URL of a moto server shared by the whole session (state reset after each test)."""
    with start_moto() as url:
        yield url


@pytest.fixture(autouse=True)
def _moto_reset(request: pytest.FixtureRequest) -> Generator[None, None, None]:
    yield
    if "moto_server" in request.fixturenames:
        reset(request.getfixturevalue("moto_server"))
