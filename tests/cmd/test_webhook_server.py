"""cmd/webhook_server.py: `external-dns webhook-server --provider=<ours>` serves one of our providers over the
webhook protocol until stopped; configuration errors exit 2 with one line (the sub-command run in-process)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

import pytest

from external_dns.cmd.webhook_server import webhook_server_main


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _get(url: str, deadline: float) -> tuple[int, bytes, str]:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return resp.status, resp.read(), resp.headers.get("Content-Type", "")
        except OSError:
            assert time.monotonic() < deadline, f"{url} never answered"
            time.sleep(0.05)


def test_serves_the_provider_until_stopped() -> None:
    port = _free_port()
    stop = threading.Event()
    codes: list[int] = []
    argv = ["--provider=inmemory", "--inmemory-zone=example.org", "--domain-filter=example.org",
            f"--webhook-server-address=127.0.0.1:{port}"]
    thread = threading.Thread(target=lambda: codes.append(webhook_server_main(argv, stop)), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        status, body, ctype = _get(f"http://127.0.0.1:{port}/", deadline)  # negotiation: the domain filter
        assert status == 200 and "external.dns.webhook+json" in ctype
        assert json.loads(body) == {"include": ["example.org"]}
        status, body, _ = _get(f"http://127.0.0.1:{port}/records", deadline)
        assert status == 200 and json.loads(body) == []
    finally:
        stop.set()
        thread.join(timeout=15)
    assert codes == [0]


@pytest.mark.parametrize(("argv", "message"), [
    ([], "--provider must be set to the provider to serve (one of: aws, "),
    (["--provider=webhook"], "webhook-server cannot serve --provider=webhook"),
    (["--provider=inmemory", "--webhook-server-address=127.0.0.1:70000"], "port must be 0-65535"),
])
def test_configuration_errors_exit_2_with_one_line(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert webhook_server_main(argv, threading.Event()) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("external-dns webhook-server: error: ") and message in last
