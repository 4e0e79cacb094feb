"""The real CLI against BIND: `python -m external_dns --once --source=manifest --provider=rfc2136 ...` as a
subprocess, through create, no-op, update, delete, ownership, dry run and a wrong TSIG secret."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import cli
from tests.helpers.provider_cli import write
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration

def run_cli(srv: BindServer, manifests: Path, *extra: str, secret: str | None = None,
            owner: str = "cli-test") -> subprocess.CompletedProcess[str]:
    args = ["--once", "--source=manifest", f"--manifest-dir={manifests}",
            "--provider=rfc2136", f"--rfc2136-host={srv.host}", f"--rfc2136-port={srv.port}",
            "--rfc2136-zone=example.org", "--rfc2136-zone=example.com", "--rfc2136-zone=sub.example.org",
            f"--rfc2136-tsig-keyname={srv.key_name}", "--rfc2136-tsig-axfr", "--policy=sync",
            "--registry=txt", f"--txt-owner-id={owner}", "--managed-record-types=A,AAAA,CNAME,TXT,MX,SRV",
            "--log-level=debug", *extra]
    return cli.run_cli(args, env={"EXTERNAL_DNS_RFC2136_TSIG_SECRET": secret or srv.key_secret}, expect=None,
                       timeout=120)


@pytest.fixture
def manifests(tmp_path: Path, bind_server: BindServer) -> Path:
    bind_server.reset()
    d = tmp_path / "manifests"
    d.mkdir()
    return d


def test_cli_create_noop_update_delete(bind_server: BindServer, manifests: Path) -> None:
    srv = bind_server
    foreign = srv.update("example.org")
    foreign.add("manual.example.org.", 600, "A", "203.0.113.7")
    srv.send(foreign)

    write(manifests)
    out = run_cli(srv, manifests)
    assert out.returncode == 0, out.stderr + out.stdout
    assert srv.rrset("web.example.org", "A") == (300, ["192.0.2.10"])
    assert srv.rrset("inbox.example.com", "MX") == (0, ["10 mail.example.net.", "20 backup.example.net."])
    assert srv.rrset("_sip._udp.example.com", "SRV") == (120, ["10 60 5060 sip.example.net."])
    assert srv.rrset("note.example.org", "TXT") == (0, ['"v=1 \\"quoted\\" and spaced"'])
    assert srv.rrset("alias.example.com", "CNAME") == (0, ["web.example.org."])
    owner_txt = srv.rrset("a-web.example.org", "TXT")
    assert owner_txt is not None and "external-dns/owner=cli-test" in owner_txt[1][0]
    assert srv.rrset("mx-inbox.example.com", "TXT") is not None
    log = out.stdout + out.stderr
    assert srv.key_secret not in log and "******" in log  # the start-up config line masks the secret

    # No-op: nothing planned, no UPDATE sent.
    out = run_cli(srv, manifests)
    assert out.returncode == 0, out.stderr
    log = out.stdout + out.stderr
    assert "All records are already up to date" in log
    assert "UPDATE applied" not in log

    # Update the address and TTL.
    write(manifests, ip="192.0.2.11", ttl="600")
    out = run_cli(srv, manifests)
    assert out.returncode == 0, out.stderr
    assert srv.rrset("web.example.org", "A") == (600, ["192.0.2.11"])

    # Another owner's run leaves our records alone.
    out = run_cli(srv, manifests, owner="someone-else")
    assert out.returncode == 0, out.stderr
    assert srv.rrset("web.example.org", "A") == (600, ["192.0.2.11"])

    # Delete the DNSEndpoint: its records and their ownership TXT go, the rest stays.
    write(manifests, ip="192.0.2.11", ttl="600", records=False)
    out = run_cli(srv, manifests, "--force")
    assert out.returncode == 0, out.stderr
    for name, rtype in (("inbox.example.com", "MX"), ("_sip._udp.example.com", "SRV"), ("note.example.org", "TXT"),
                        ("alias.example.com", "CNAME"), ("mx-inbox.example.com", "TXT")):
        assert srv.rrset(name, rtype) is None, (name, rtype)
    assert srv.rrset("web.example.org", "A") == (600, ["192.0.2.11"])
    assert srv.rrset("manual.example.org", "A") == (600, ["203.0.113.7"])  # foreign record untouched


def test_cli_dry_run_writes_nothing(bind_server: BindServer, manifests: Path) -> None:
    write(manifests)
    out = run_cli(bind_server, manifests, "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "Desired change" in out.stdout + out.stderr
    assert bind_server.rrset("web.example.org", "A") is None


def test_cli_wrong_tsig_secret(bind_server: BindServer, manifests: Path) -> None:
    write(manifests)
    wrong = "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw=="
    out = run_cli(bind_server, manifests, secret=wrong)
    assert out.returncode == 1, out.stderr
    log = out.stdout + out.stderr
    assert "rejected TSIG key" in log and "--rfc2136-tsig-secret" in log
    assert wrong not in log
    assert bind_server.rrset("web.example.org", "A") is None


def test_cli_missing_port_is_a_config_error(manifests: Path) -> None:
    out = cli.run_cli(["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=rfc2136",
                       "--rfc2136-host=127.0.0.1", "--policy=sync"], expect=2)
    assert "--rfc2136-port" in out.stderr


