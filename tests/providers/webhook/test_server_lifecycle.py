"""Shutting the webhook server down: requests in progress finish, idle keep-alive connections do not hold
it up, and no thread is left behind."""

from __future__ import annotations

import http.client
import json
import threading
import time

from external_dns.plan.changes import Changes
from external_dns.providers.webhook.protocol import MEDIA_TYPE
from external_dns.providers.webhook.server import WebhookServer
from tests.providers.webhook.conftest import DictProvider


class SlowProvider(DictProvider):
    def __init__(self) -> None:
        super().__init__(include=["example.com"])
        self.entered = threading.Event()
        self.release = threading.Event()

    def apply_changes(self, changes: Changes) -> None:
        self.entered.set()
        assert self.release.wait(timeout=20)
        super().apply_changes(changes)


def test_stop_with_idle_keepalive_connection_and_request_in_flight() -> None:
    before = threading.active_count()
    provider = SlowProvider()
    server = WebhookServer(provider, "127.0.0.1:0").start()

    idle = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    idle.request("GET", "/healthz")
    assert idle.getresponse().read() == b"ok\n"  # HTTP/1.1: the connection stays open, its thread waits

    result: dict[str, int] = {}

    def post() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        body = json.dumps({"create": [{"dnsName": "a.example.com", "recordType": "A", "targets": ["1.1.1.1"]}]})
        conn.request("POST", "/records", body=body, headers={"Content-Type": MEDIA_TYPE})
        result["status"] = conn.getresponse().status
        conn.close()

    poster = threading.Thread(target=post)
    poster.start()
    assert provider.entered.wait(timeout=10)

    stopper = threading.Thread(target=server.stop)
    started = time.monotonic()
    stopper.start()
    stopper.join(timeout=0.5)
    assert stopper.is_alive()  # waits for the request in progress ...
    provider.release.set()
    stopper.join(timeout=10)
    poster.join(timeout=10)
    assert not stopper.is_alive() and time.monotonic() - started < 10  # ... but not for the idle connection
    assert result["status"] == 204
    assert ("a.example.com", "A", "") in provider.store
    idle.close()
    assert threading.active_count() <= before  # serve_forever and request threads were all joined
