"""The real CLI on manifest directories with bad input: one clear error per bad object, everything else still
synced; a file that does not parse fails the sync (exit 1, nothing deleted); source flag errors exit 2 naming
the flag."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dns.rdatatype
import dns.zone
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "external_dns", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60, check=False)


def sync(manifests: Path, zones: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli("--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=zonefile",
                   f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync",
                   "--txt-owner-id=src-test", *extra)


def records(zone_file: Path) -> dict[tuple[str, str], list[str]]:
    z = dns.zone.from_file(str(zone_file), origin=None, relativize=False, check_origin=False)
    out: dict[tuple[str, str], list[str]] = {}
    for name, node in z.nodes.items():
        for rds in node.rdatasets:
            out[(name.to_text(omit_final_dot=True), dns.rdatatype.to_text(rds.rdtype))] = sorted(
                r.to_text() for r in rds)
    return out


GOOD = textwrap.dedent("""\
    apiVersion: v1
    kind: Service
    metadata:
      name: web
      annotations:
        external-dns.kubernetes.io/hostname: web.example.org
        external-dns.kubernetes.io/ttl: abc
    spec: {type: LoadBalancer}
    status: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}
    ---
    apiVersion: externaldns.k8s.io/v1alpha1
    kind: DNSEndpoint
    metadata: {name: recs}
    spec:
      endpoints:
      - {dnsName: ok.example.org, recordType: A, targets: [192.0.2.2]}
      - {dnsName: dot.example.org, recordType: A, targets: [192.0.2.3.]}
    """)

BROKEN = "apiVersion: v1\nkind: Service\nmetadata: {name: [oops\n"


def test_bad_objects_reported_rest_synced_unparsable_file_fails_the_sync(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "m", tmp_path / "z"
    manifests.mkdir()
    (manifests / "good.yaml").write_text(GOOD)
    proc = sync(manifests, zones, "--fqdn-template={{.Name}}.example.org")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "service/default/web: external-dns.kubernetes.io/ttl='abc'" in err
    assert "dnsendpoint/default/recs: spec.endpoints[1].targets[0]='192.0.2.3.'" in err
    recs = records(zones / "example.org.zone")
    assert recs[("web.example.org", "A")] == ["192.0.2.1"]
    assert recs[("ok.example.org", "A")] == ["192.0.2.2"]
    assert ("dot.example.org", "A") not in recs
    assert "external-dns/resource=service/default/web" in recs[("a-web.example.org", "TXT")][0]
    before = (zones / "example.org.zone").read_bytes()

    # The file describing web.example.org stops parsing: the sync fails (exit 1) and deletes nothing.
    (manifests / "good.yaml").write_text(GOOD.replace("spec: {type: LoadBalancer}", "spec: {type: [Load"))
    (manifests / "broken.yaml").write_text(BROKEN)
    proc = sync(manifests, zones, "--fqdn-template={{.Name}}.example.org")
    assert proc.returncode == 1, proc.stderr
    assert f"{manifests / 'broken.yaml'} document 1: invalid YAML" in proc.stderr
    assert "refusing to sync from partial input" in proc.stderr
    assert (zones / "example.org.zone").read_bytes() == before


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--annotation-prefix=nope", "--annotation-prefix must end with '/'"),
        ("--ignore-hostname-annotation", "FQDN Template must be set if ignoring annotations"),
        ("--label-filter=a in (", "--label-filter does not specify a valid label selector"),
        ("--fqdn-template={{ .Name | system }}", "function 'system' not defined"),
    ],
)
def test_source_flag_errors_exit_2(tmp_path: Path, flag: str, message: str) -> None:
    proc = sync(tmp_path, tmp_path / "z", flag)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert not (tmp_path / "z" / "example.org.zone").exists()
