"""Webhook end to end against BIND: our client -> our server (RFC2136 provider) -> named, in-process and with
the real `external-dns webhook-server` sub-command running as a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.webhook.client import WebhookClientConfig, WebhookProvider
from external_dns.providers.webhook.server import WebhookServer
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def clean_bind(bind_server: BindServer) -> Generator[BindServer, None, None]:
    bind_server.reset()
    yield bind_server


def _client(url: str) -> WebhookProvider:
    return WebhookProvider(WebhookClientConfig(url=url, read_timeout=10, write_timeout=10, negotiate_backoff=0.05))


def _exercise(c: WebhookProvider, srv: BindServer) -> None:
    assert c.get_domain_filter().match("x.example.org") and not c.get_domain_filter().match("x.example.net")
    desired = c.adjust_endpoints([
        Endpoint("hook.example.org", "A", Targets(["192.0.2.10"]), 60),
        Endpoint("hook.example.org", "TXT", Targets(['"spaced value" with quotes'])),
        Endpoint("mx.example.com", "MX", Targets(["10 Mail.Example.net."])),
    ])
    assert [list(e.targets) for e in desired] == [["192.0.2.10"], ['"spaced value" with quotes'],
                                                  ["10 mail.example.net"]]
    c.apply_changes(Changes(create=desired))
    assert srv.rrset("hook.example.org", "A") == (60, ["192.0.2.10"])
    keys = {(d.dns_name, d.record_type) for d in desired}
    current = [e for e in c.records() if (e.dns_name, e.record_type) in keys]
    plan = Plan(current, desired, policies=["sync"], managed_records=["A", "TXT", "MX"]).calculate()
    assert plan.changes.is_empty(), plan.changes
    c.apply_changes(Changes(delete=current))
    assert srv.rrset("hook.example.org", "A") is None and srv.rrset("mx.example.com", "MX") is None


def test_client_through_server_to_bind(clean_bind: BindServer) -> None:
    provider = RFC2136Provider(RFC2136Config(hosts=(clean_bind.host,), port=clean_bind.port, zones=clean_bind.zones,
                                             tsig_keyname=clean_bind.key_name, tsig_secret=clean_bind.key_secret,
                                             axfr=True))
    with WebhookServer(provider, "127.0.0.1:0") as server:
        _exercise(_client(server.url), clean_bind)


def test_webhook_server_subcommand(clean_bind: BindServer) -> None:
    env = {**os.environ, "EXTERNAL_DNS_RFC2136_TSIG_SECRET": clean_bind.key_secret}
    cmd = [sys.executable, "-m", "external_dns", "webhook-server", "--provider=rfc2136",
           f"--rfc2136-host={clean_bind.host}", f"--rfc2136-port={clean_bind.port}",
           *(f"--rfc2136-zone={z}" for z in clean_bind.zones), f"--rfc2136-tsig-keyname={clean_bind.key_name}",
           "--rfc2136-axfr", "--webhook-server-address=127.0.0.1:0", "--log-level=info"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()  # "webhook server listening on http://127.0.0.1:<port>"
        assert "listening on http://" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        _exercise(_client(line.rsplit(" ", 1)[1].strip()), clean_bind)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert clean_bind.key_secret not in err  # the config line masks the TSIG secret
        assert "******" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def test_webhook_server_subcommand_config_error() -> None:
    out = subprocess.run([sys.executable, "-m", "external_dns", "webhook-server", "--provider=rfc2136",
                          "--rfc2136-host=127.0.0.1"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 2 and "--rfc2136-port" in out.stderr


def test_webhook_server_flag_runs_the_server(tmp_path: Path) -> None:
    """`external-dns --webhook-server` is the sub-command under external-dns's flag name (no --source or
    --policy needed)."""
    cmd = [sys.executable, "-m", "external_dns", "--webhook-server", "--provider=inmemory",
           "--inmemory-zone=example.org", "--webhook-server-address=127.0.0.1:0"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line, line
        client = _client(line.rsplit(" ", 1)[1].strip())
        assert client.get_domain_filter().match("www.example.org")
        assert not client.get_domain_filter().match("www.example.net")
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
