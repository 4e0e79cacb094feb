"""The log lines of a `--once` run as a user reads them (the real program): one spelling of `zone=` in every
line (no trailing dot, `.` for the catch-all zone), "Applied: N created, N updated, N deleted" instead of
"successfully updated" for creates, the zone file's counts of planned records with the TXT record sets apart,
and no key without a value (`field= value=`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.cli import dns_endpoint, run_cli, service

pytestmark = pytest.mark.integration

EMPTY_FIELD = re.compile(r'(?:^| )[A-Za-z_]+=(?= |$)')


def zone_fields(stderr: str) -> set[str]:
    return set(re.findall(r' zone=("[^"]*"|\S*)', stderr))


def run(manifests: Path, *args: str) -> str:
    return run_cli(["--once", "--source=manifest", f"--manifest-dir={manifests}", "--policy=sync",
                    "--txt-owner-id=wording", "--progress=log", *args]).stderr


def test_zonefile_run_lines(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "m", tmp_path / "z"
    manifests.mkdir()
    (manifests / "a.yaml").write_text(dns_endpoint("a", "a.corp.test", "192.0.2.1"))
    (manifests / "b.yaml").write_text(dns_endpoint("b", "b.corp.test", "192.0.2.2"))
    zonefile = ["--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=corp.test"]
    first = run(manifests, *zonefile)
    assert zone_fields(first) == {"corp.test"}, first  # not corp.test. in the --once lines
    assert 'msg="Applied: 2 created, 0 updated, 0 deleted" zone=corp.test' in first
    assert "successfully updated" not in first
    written = next(line for line in first.splitlines() if 'msg="Zone file written"' in line)
    assert " create=2 " in written and " update=0 " in written and " txt=2 " in written, written
    (manifests / "a.yaml").write_text(dns_endpoint("a", "a.corp.test", "192.0.2.9"))
    second = run(manifests, *zonefile)
    assert 'msg="Applied: 0 created, 1 updated, 0 deleted" zone=corp.test' in second, second
    written = next(line for line in second.splitlines() if 'msg="Zone file written"' in line)
    assert " create=0 " in written and " update=1 " in written, written
    assert not EMPTY_FIELD.search(first + second)


def test_catch_all_zone_is_named_and_problem_lines_have_no_empty_fields(tmp_path: Path) -> None:
    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "a.yaml").write_text(dns_endpoint("a", "a.corp.test", "192.0.2.1"))
    (manifests / "bad-target.yaml").write_text(dns_endpoint("bad", "bad.corp.test", "not-an-ip"))
    bad_ttl = service("ttl", "ttl.corp.test", "192.0.2.3").replace(
        "  annotations:\n", "  annotations:\n    external-dns.kubernetes.io/ttl: abc\n")
    (manifests / "bad-ttl.yaml").write_text(bad_ttl)
    # a problem without a value (the name is empty): its line carries no `value=`
    (manifests / "empty.yaml").write_text(dns_endpoint("empty", '""', "192.0.2.4"))
    stderr = run(manifests, "--provider=inmemory")
    assert zone_fields(stderr) == {"."}, stderr
    assert "dnsendpoint/default/empty: spec.endpoints[0].dnsName: DNS name is empty" in stderr  # reported
    assert not [line for line in stderr.splitlines() if EMPTY_FIELD.search(line)]
