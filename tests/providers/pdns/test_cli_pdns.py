"""The real CLI against a real PowerDNS: `python -m external_dns --once --provider=pdns --source=manifest ...` as a
subprocess through create, no-op (no PATCH received by the server), update, another owner, delete, dry run, a
bad API key (exit code, message naming --pdns-api-key, key never printed) and an unreachable server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.provider_cli import write
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration

def cli(srv: PdnsServer, manifests: Path, *extra: str, key: str | None = None, owner: str = "cli-test",
        expect: int | None = 0) -> subprocess.CompletedProcess[str]:
    args = ["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=pdns", *srv.pdns_flags(),
            "--policy=sync", "--registry=txt", f"--txt-owner-id={owner}",
            "--managed-record-types=A,AAAA,CNAME,TXT,MX,SRV", "--log-level=debug", *extra]
    return run_cli(args, env={"EXTERNAL_DNS_PDNS_API_KEY": srv.api_key if key is None else key}, expect=expect)


@pytest.fixture
def manifests(tmp_path: Path, pdns: PdnsServer) -> Path:
    d = tmp_path / "manifests"
    d.mkdir()
    return d


def both(srv: PdnsServer) -> dict[tuple[str, str], tuple[int, list[str]]]:
    return {**srv.records("example.org"), **srv.records("example.com")}


def test_cli_create_noop_update_delete(pdns: PdnsServer, manifests: Path) -> None:
    pdns.patch("example.org", [{"name": "manual.example.org.", "type": "A", "ttl": 600, "changetype": "REPLACE",
                                "records": [{"content": "203.0.113.7", "disabled": False}]}])
    write(manifests)
    out = cli(pdns, manifests)
    got = both(pdns)
    assert got[("web.example.org", "A")] == (300, ["192.0.2.10"])
    assert got[("inbox.example.com", "MX")] == (300, ["10 mail.example.net.", "20 backup.example.net."])
    assert got[("_sip._udp.example.com", "SRV")] == (120, ["10 60 5060 sip.example.net."])
    assert got[("note.example.org", "TXT")] == (300, ['"v=1 \\"quoted\\" and spaced"'])
    assert got[("alias.example.com", "CNAME")] == (300, ["web.example.org."])
    assert "external-dns/owner=cli-test" in got[("a-web.example.org", "TXT")][1][0]
    log = out.stdout + out.stderr
    assert pdns.api_key not in log and "******" in log  # the start-up config line masks the key

    mark = pdns.mark()
    out = cli(pdns, manifests)
    assert "All records are already up to date" in out.stdout + out.stderr
    assert [r for r in pdns.requests_since(mark) if r[0] == "PATCH"] == []

    write(manifests, ip="192.0.2.11", ttl="600")
    cli(pdns, manifests)
    assert pdns.records("example.org")[("web.example.org", "A")] == (600, ["192.0.2.11"])

    cli(pdns, manifests, owner="someone-else")  # another owner leaves our records alone
    assert pdns.records("example.org")[("web.example.org", "A")] == (600, ["192.0.2.11"])

    write(manifests, ip="192.0.2.11", ttl="600", records=False)
    cli(pdns, manifests, "--force")
    got = both(pdns)
    for key in (("inbox.example.com", "MX"), ("_sip._udp.example.com", "SRV"), ("note.example.org", "TXT"),
                ("alias.example.com", "CNAME"), ("mx-inbox.example.com", "TXT")):
        assert key not in got, key
    assert got[("web.example.org", "A")] == (600, ["192.0.2.11"])
    assert got[("manual.example.org", "A")] == (600, ["203.0.113.7"])


def test_cli_dry_run_writes_nothing(pdns: PdnsServer, manifests: Path) -> None:
    write(manifests)
    mark = pdns.mark()
    out = cli(pdns, manifests, "--dry-run")
    assert "Desired change: CREATE web.example.org A" in out.stdout + out.stderr
    assert [r for r in pdns.requests_since(mark) if r[0] == "PATCH"] == []
    assert ("web.example.org", "A") not in pdns.records("example.org")


def test_cli_bad_api_key(pdns: PdnsServer, manifests: Path) -> None:
    write(manifests)
    bad = "not-the-key-" + pdns.api_key[:6]
    out = cli(pdns, manifests, key=bad, expect=None)
    assert out.returncode == 1  # the sync fails, as Go's log.Fatal (docs/troubleshooting.md)
    log = out.stdout + out.stderr
    assert "refused the API key" in log and "--pdns-api-key" in log
    assert bad not in log and pdns.api_key not in log


def test_cli_key_with_a_trailing_line_break_works_and_one_inside_is_refused_unseen(
        pdns: PdnsServer, manifests: Path) -> None:
    write(manifests, records=False)
    cli(pdns, manifests, key=pdns.api_key + "\n")  # a Secret made from a file
    assert pdns.records("example.org")[("web.example.org", "A")] == (300, ["192.0.2.10"])
    out = cli(pdns, manifests, key=pdns.api_key[:8] + "\n" + pdns.api_key[8:], expect=2)
    assert "--pdns-api-key holds a control character" in out.stderr
    assert pdns.api_key[:8] not in out.stdout + out.stderr and pdns.api_key[8:] not in out.stdout + out.stderr


def test_cli_missing_api_key_is_a_usage_error(pdns: PdnsServer, manifests: Path) -> None:
    out = cli(pdns, manifests, key="", expect=2)
    assert "missing API Key for PDNS" in out.stdout + out.stderr


def test_cli_unreachable_server_exits_1(pdns: PdnsServer, manifests: Path) -> None:
    write(manifests)
    args = ["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=pdns",
            f"--pdns-server=http://127.0.0.1:{pdns.dns_port}", "--policy=sync"]
    pdns.stop()  # nothing listens on the API port any more... and the DNS port never spoke HTTP over TCP
    try:
        out = run_cli(args, env={"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key}, expect=1)
    finally:
        pdns.start()
    assert "PowerDNS at http://127.0.0.1" in out.stdout + out.stderr


def test_cli_plan_then_apply(pdns: PdnsServer, manifests: Path, tmp_path: Path) -> None:
    """Two-phase: `plan --plan-file` writes nothing, `apply` writes the plan; a zone changed in between is
    refused (exit 4)."""
    write(manifests)
    cli(pdns, manifests)
    write(manifests, ip="192.0.2.99")
    base = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=pdns", *pdns.pdns_flags(),
            "--policy=sync", "--registry=txt", "--txt-owner-id=cli-test",
            "--managed-record-types=A,AAAA,CNAME,TXT,MX,SRV"]
    env = {"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key}
    plan = tmp_path / "plan.json"
    # The key on the command line this time (the worst case): never in the plan file nor the output.
    out = run_cli(["plan", *base, f"--plan-file={plan}", f"--pdns-api-key={pdns.api_key}"], env={})
    assert pdns.api_key not in plan.read_text() and pdns.api_key not in out.stdout + out.stderr
    assert pdns.records("example.org")[("web.example.org", "A")] == (300, ["192.0.2.10"])
    run_cli(["apply", str(plan), *base], env=env)
    assert pdns.records("example.org")[("web.example.org", "A")] == (300, ["192.0.2.99"])

    write(manifests, ip="192.0.2.100")
    run_cli(["plan", *base, f"--plan-file={plan}"], env=env)
    pdns.patch("example.org", [{"name": "web.example.org.", "type": "A", "ttl": 300, "changetype": "REPLACE",
                                "records": [{"content": "203.0.113.1", "disabled": False}]}])
    run_cli(["apply", str(plan), *base], env=env, expect=4)
    assert pdns.records("example.org")[("web.example.org", "A")] == (300, ["203.0.113.1"])


def write_many(manifests: Path, n: int, last_octet: int) -> None:
    """One DNSEndpoint per zone holding `n` A records (host-NNNN.<zone> -> 10.0.x.<last_octet>)."""
    docs = []
    for zone in ("example.org", "example.com"):
        eps = "".join(f"  - {{dnsName: host-{i:04d}.{zone}, recordType: A, targets: [10.0.{i % 250}.{last_octet}]}}\n"
                      for i in range(n))
        docs.append(f"apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: many-{zone}\n"
                    f"  namespace: default\nspec:\n  endpoints:\n{eps}")
    (manifests / "many.yaml").write_text("---\n".join(docs))


def patches_per_zone(srv: PdnsServer, mark: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for method, path, _status in srv.requests_since(mark):
        if method == "PATCH":
            zone = path.rsplit("/", 1)[-1]
            out[zone] = out.get(zone, 0) + 1
    return out


def test_cli_one_patch_per_zone_unless_the_batch_size_is_given(pdns: PdnsServer, manifests: Path) -> None:
    """--apply-batch-size not given: the pdns provider takes a zone's whole plan per call, so 1,200 creates per
    zone (over the flag's default of 1,000 changes per call) reach the server as one PATCH per zone. Given,
    even at its default, the flag keeps its meaning: two calls, two PATCHes per zone."""
    write_many(manifests, 1200, 1)
    mark = pdns.mark()
    cli(pdns, manifests)
    assert patches_per_zone(pdns, mark) == {"example.org.": 1, "example.com.": 1}
    records = pdns.records("example.com")
    assert records[("host-1199.example.com", "A")] == (300, ["10.0.199.1"])
    assert sum(1 for _name, rtype in records if rtype == "TXT") == 1200  # every ownership TXT with its record

    write_many(manifests, 1200, 2)  # every record changes: 1,200 updates per zone
    mark = pdns.mark()
    cli(pdns, manifests, "--apply-batch-size=1000", "--force")
    assert patches_per_zone(pdns, mark) == {"example.org.": 2, "example.com.": 2}
    assert pdns.records("example.org")[("host-0000.example.org", "A")] == (300, ["10.0.0.2"])

    mark = pdns.mark()
    out = cli(pdns, manifests)
    assert "All records are already up to date" in out.stdout + out.stderr
    assert patches_per_zone(pdns, mark) == {}
