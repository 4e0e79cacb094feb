"""The README's RFC2136 example works as shown (issue 28 item 2): its command, taken from README.md, run
against a real BIND9 (tests/servers/bind.py) and the test Kubernetes API server. Only what names this
machine is replaced: the server's address, port and key name, the API server (`KUBECONFIG`, as a user's
shell has it) and the metrics port (a free one: the machine is shared). Started twice: the first run creates
the records, the second plans nothing and, on an event, updates a changed one. Without `--rfc2136-axfr` the
program says loudly, at the first read, what a sync cannot do."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import dns.message
import dns.query
import pytest

from tests.helpers.cli import ROOT, clean_env, running
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer
from tests.sources.informer.conftest import PREFIX, ingress, service, set_lb_status

pytestmark = pytest.mark.integration


def readme_command() -> list[str]:
    """The arguments of the README's `external-dns ...` command (the block after "Against a cluster")."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("Against a cluster, the same program", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    line = next(line for line in block.replace("\\\n", " ").splitlines() if line.startswith("external-dns "))
    return shlex.split(line)[1:]


def on_this_machine(args: list[str], srv: BindServer) -> list[str]:
    """README's arguments with this machine's server, port and key (the flags stay where they are)."""
    here = {"--rfc2136-host": srv.host, "--rfc2136-port": str(srv.port), "--rfc2136-tsig-keyname": srv.key_name}
    out = []
    for arg in args:
        flag, eq, _value = arg.partition("=")
        out.append(f"{flag}={here[flag]}" if eq and flag in here else arg)
    return [*out, "--metrics-address=127.0.0.1:0"]


def answer(srv: BindServer, name: str, rdtype: str) -> list[str]:
    reply = dns.query.udp(dns.message.make_query(name, rdtype), srv.host, port=srv.port, timeout=5)
    return sorted(r.to_text() for rrset in reply.answer for r in rrset)


def until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)  # polling another process's DNS answers: there is nothing to wait on
    return False


def stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(timeout=30)


def test_readme_example_creates_then_plans_nothing_then_updates(kubeapi: KubeAPIServer, bind_server: BindServer,
                                                                  tmp_path: Path) -> None:
    srv = bind_server
    srv.reset()
    args = readme_command()
    assert "--rfc2136-axfr" in args, "the example must read the zone back"
    assert f"--rfc2136-tsig-secret-alg={srv.key_algorithm}" in args and "--rfc2136-zone=example.org" in args
    kubeapi.create(service("web", hostname="web.example.org"))
    set_lb_status(kubeapi, "web", {"ip": "192.0.2.10"})
    kubeapi.create(ingress("shop", hosts=["shop.example.org"], annotations={PREFIX + "target": "192.0.2.20"}))
    env = {**clean_env(), "KUBECONFIG": kubeapi.write_kubeconfig(tmp_path / "kubeconfig"),
           "EXTERNAL_DNS_RFC2136_TSIG_SECRET": srv.key_secret}

    with running(on_this_machine(args, srv), env, "first") as (proc, tail):
        assert until(lambda: answer(srv, "web.example.org", "A") == ["192.0.2.10"]
                     and answer(srv, "shop.example.org", "A") == ["192.0.2.20"], 60), tail.text()[-4000:]
        assert stop(proc) == 0, tail.text()[-4000:]
    owner = answer(srv, "a-web.example.org", "TXT")
    assert owner and "external-dns/owner=cluster-a" in owner[0]

    with running(on_this_machine(args, srv), env, "second") as (proc, tail):
        assert tail.wait_for("All records are already up to date", 60), tail.text()[-4000:]
        assert "Desired change" not in tail.text(), "the second run read the zone back: nothing to create again"
        kubeapi.patch("v1", "Service", "default", "web", {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.11"}]}}},
                      subresource="status")
        assert until(lambda: answer(srv, "web.example.org", "A") == ["192.0.2.11"], 60), tail.text()[-4000:]
        assert stop(proc) == 0
    log = tail.text()
    assert "Desired change: UPDATE web.example.org A" in log and "Desired change: CREATE" not in log, log[-4000:]
    assert answer(srv, "shop.example.org", "A") == ["192.0.2.20"]


def test_without_axfr_the_first_read_says_what_sync_cannot_do(kubeapi: KubeAPIServer, bind_server: BindServer,
                                                              tmp_path: Path) -> None:
    """The example without `--rfc2136-axfr` (as it was): the program warns, naming the flag and what
    --policy=sync then cannot do (issue 27 item 3 landed the warning; this checks the example reaches it)."""
    srv = bind_server
    srv.reset()
    args = [a for a in on_this_machine(readme_command(), srv) if a not in ("--rfc2136-axfr", "--events")]
    env = {**clean_env(), "KUBECONFIG": kubeapi.write_kubeconfig(tmp_path / "kubeconfig"),
           "EXTERNAL_DNS_RFC2136_TSIG_SECRET": srv.key_secret}
    proc = subprocess.run([sys.executable, "-m", "external_dns", *args, "--once"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    warning = next((line for line in proc.stderr.splitlines() if "--rfc2136-axfr is off" in line), "")
    assert "level=warning" in warning and "never updated or deleted" in warning and "--policy=sync" in warning, \
        proc.stderr[-4000:]
