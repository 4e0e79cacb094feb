"""The long-running CLI with `--provider=webhook` against a webhook that refuses our credentials (401): no
retry can fix it, so the process logs one fatal line naming the provider and the cause and exits 1 (as
ExternalDNS's fatal non-soft errors); a webhook answering 503 instead keeps it running (soft, retried)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from external_dns.providers.webhook.protocol import MEDIA_TYPE
from tests.helpers.cli import dns_endpoint, ends_fatally, running
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


class Refusing:
    """A webhook provider that negotiates, then answers every records request with `status`."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.record_requests = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/":
                    body, code = b"{}", 200
                else:
                    owner.record_requests += 1
                    body, code = b"token rejected", owner.status
                self.send_response(code)
                self.send_header("Content-Type", MEDIA_TYPE if code == 200 else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                       name="refusing-webhook", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def refusing(request: pytest.FixtureRequest) -> Iterator[Refusing]:
    hook = Refusing(request.param)
    hook.thread.start()
    try:
        yield hook
    finally:
        hook.server.shutdown()
        hook.server.server_close()
        hook.thread.join(5)


def args(tmp_path: Path, url: str) -> list[str]:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    return ["--source=manifest", f"--manifest-dir={manifests}", "--provider=webhook",
            f"--webhook-provider-url={url}", "--policy=sync", "--interval=1s", "--metrics-address=127.0.0.1:0"]


@pytest.mark.parametrize("refusing", [401], indirect=True)
def test_a_webhook_refusing_our_credentials_ends_the_process(tmp_path: Path, refusing: Refusing) -> None:
    fatal, _text = ends_fatally(args(tmp_path, refusing.url), name="webhook-401")
    assert "provider=webhook" in fatal and "with code 401: token rejected" in fatal, fatal
    assert refusing.record_requests <= 2


@pytest.mark.parametrize("refusing", [503], indirect=True)
def test_a_webhook_answering_503_is_retried_until_sigterm(tmp_path: Path, refusing: Refusing) -> None:
    with running(args(tmp_path, refusing.url), name="webhook-503") as (proc, tail):
        assert tail.wait_for("consecutive soft errors: 2", 30), tail.text()
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    assert code == 0 and "level=fatal" not in tail.text()


@pytest.mark.parametrize("refusing", [401], indirect=True)
def test_a_fatal_end_under_leader_election_releases_the_lease(tmp_path: Path, refusing: Refusing,
                                                              kubeapi: KubeAPIServer, kubeconfig_file: str) -> None:
    """The fatal end is a clean shutdown: the leader gives its Lease back (a standby takes over at once instead
    of after the lease duration) before exiting 1."""
    leader = ["--leader-elect", f"--kubeconfig={kubeconfig_file}", "--leader-elect-name=fatal-test",
              "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
              "--leader-elect-retry-period=0.25s"]
    fatal, text = ends_fatally([*args(tmp_path, refusing.url), *leader], name="webhook-401-leader")
    assert "provider=webhook" in fatal and "successfully acquired lease" in text, text
    lease = kubeapi.get("coordination.k8s.io/v1", "Lease", "default", "fatal-test")
    assert lease is not None and lease["spec"]["holderIdentity"] == "", lease  # released
