"""The smaller hostile-input items: secrets never echoed, configuration errors exit 2 with one line and no
traceback, bounded plan-file parsing, a MemoryError with a message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError
from external_dns.errors import error_text
from external_dns.plan import planfile
from external_dns.providers.provider import ProviderError
from external_dns.providers.webhook.client import WebhookClientConfig, WebhookProvider
from tests.helpers.cli import run_cli


def test_webhook_url_password_never_in_errors() -> None:
    with pytest.raises(ProviderError) as info:
        WebhookProvider(WebhookClientConfig(url="http://user:s3cretpw@127.0.0.1:1/", negotiate_attempts=1,
                                            read_timeout=1, write_timeout=1))
    assert "s3cretpw" not in str(info.value) and "user:******@" in str(info.value)


def test_plan_file_nesting_and_size_are_bounded(tmp_path: Path) -> None:
    with pytest.raises(planfile.PlanFileError, match="nested too deeply"):
        planfile.loads("[" * 200_000)
    with pytest.raises(planfile.PlanFileError, match="not valid JSON"):
        planfile.loads('{"a": ' + "9" * 10_000 + "}")
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    with pytest.raises(planfile.PlanFileError, match="not a regular file"):
        planfile.load(str(fifo))


def test_memory_error_has_a_message() -> None:
    assert error_text(MemoryError()) == "out of memory (MemoryError)"
    assert str(RunOnceError("source endpoints", MemoryError())) == "source endpoints: out of memory (MemoryError)"
    assert error_text(ValueError()) == "ValueError"


@pytest.mark.integration
@pytest.mark.parametrize(("args", "words"), [
    (["--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-port=53", "--rfc2136-zone=example.org",
      "--rfc2136-tsig-keyname=k", "--rfc2136-tsig-secret=not base64!!", "--rfc2136-tsig-secret-alg=hmac-sha256"],
     "--rfc2136-tsig-secret is not valid base64"),
    (["--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-port=53", "--rfc2136-zone=bad zone/x",
      "--rfc2136-insecure"], "--rfc2136-zone: invalid zone name"),
    (["--provider=zonefile", "--zonefile-dir=.", "--zonefile-create-zone=x/y"], "--zonefile-create-zone: invalid"),
    (["--provider=zonefile", "--zonefile-dir=.", "--txt-prefix=bad prefix."], "--txt-prefix makes invalid"),
    (["--provider=rfc2136", "--rfc2136-tsig-secrett=TOPSECRET"], "unrecognized arguments: --rfc2136-tsig-secrett"),
    (["--provider=rfc2136", "--rfc2136-tsig-secrett", "TOPSECRET"], "unrecognized arguments: --rfc2136-tsig-secrett"),
])
def test_configuration_errors_exit_2_without_secrets_or_tracebacks(tmp_path: Path, args: list[str],
                                                                   words: str) -> None:
    proc = run_cli(["--once", "--source=manifest", f"--manifest-dir={tmp_path}", "--policy=sync", *args], expect=2)
    assert words in proc.stderr
    assert "Traceback" not in proc.stderr and "TOPSECRET" not in proc.stderr


@pytest.mark.integration
def test_broken_kubeconfig_exits_2_without_traceback(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: 5\n")
    proc = run_cli(["--once", "--source=service", "--provider=inmemory", "--policy=sync"],
                   env={"KUBECONFIG": str(kubeconfig)}, expect=2)
    assert "not a valid kubeconfig" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.integration
@pytest.mark.parametrize("address", ["127.0.0.1:99999", "127.0.0.1:abc"])
def test_webhook_server_bad_port_exits_2(address: str) -> None:
    proc = run_cli(["webhook-server", "--provider=inmemory", f"--webhook-server-address={address}"], expect=2)
    assert "invalid listen address" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.integration
def test_webhook_url_password_not_in_the_config_line(tmp_path: Path) -> None:
    proc = run_cli(["--once", "--source=manifest", f"--manifest-dir={tmp_path}", "--policy=sync",
                    "--provider=webhook", "--webhook-provider-url=http://user:s3cretpw@127.0.0.1:1/"],
                   expect=None, timeout=60)
    assert "user:******@127.0.0.1" in proc.stderr and "s3cretpw" not in proc.stderr


@pytest.mark.integration
def test_webhook_server_sigterm_does_not_wait_for_a_trickling_client() -> None:
    import re
    import signal
    import socket
    import subprocess
    import sys
    import time

    from tests.helpers.cli import ROOT, clean_env

    proc = subprocess.Popen([sys.executable, "-m", "external_dns", "webhook-server", "--provider=inmemory",
                             "--webhook-server-address=127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=clean_env(), cwd=ROOT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        s = socket.create_connection(("127.0.0.1", int(match[1])), timeout=5)
        s.sendall(b"POST /records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100000\r\n\r\n{")  # a body that never comes
        time.sleep(0.5)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert time.monotonic() - started < 5
        s.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
