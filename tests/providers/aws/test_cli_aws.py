"""The real CLI (`python -m external_dns --once`) against the moto server: manifest source -> TXT or
DynamoDB registry -> Route53, configured only through the standard AWS environment (AWS_ENDPOINT_URL,
credentials, region) with no `--aws-*` flag."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.providers.aws.conftest import by_name_type, create_zone

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
SECRET = "sEcReT-KeY-0123456789"

MANIFEST = textwrap.dedent("""\
    apiVersion: externaldns.k8s.io/v1alpha1
    kind: DNSEndpoint
    metadata:
      name: records
      namespace: default
    spec:
      endpoints:
      - dnsName: www.example.com
        recordType: CNAME
        targets: ["k8s-web-123.us-east-1.elb.amazonaws.com"]
      - dnsName: api.example.com
        recordType: A
        setIdentifier: us
        targets: ["10.0.0.1"]
        providerSpecific:
        - {name: aws/weight, value: "100"}
      - dnsName: api.example.com
        recordType: A
        setIdentifier: eu
        targets: ["10.0.0.2"]
        providerSpecific:
        - {name: aws/weight, value: "50"}
      - dnsName: mail.example.com
        recordType: A
        recordTTL: 60
        targets: ["10.0.0.3"]
    """)


def run_cli(moto_server: str, manifests: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "EXTERNAL_DNS_"))}
    env.update(AWS_ENDPOINT_URL=moto_server, AWS_ACCESS_KEY_ID="AKIDTEST", AWS_SECRET_ACCESS_KEY=SECRET,
               AWS_DEFAULT_REGION="us-east-1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
           "--provider=aws", "--policy=sync", "--aws-batch-change-interval=0s", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_cli_syncs_route53_with_txt_registry(moto_server: str, r53: Any, tmp_path: Path) -> None:
    zone = create_zone(r53, "example.com")
    (tmp_path / "records.yaml").write_text(MANIFEST)
    first = run_cli(moto_server, tmp_path)
    assert first.returncode == 0, first.stderr
    sets = by_name_type(r53, zone)
    assert sets[("www.example.com", "A", "")]["AliasTarget"]["HostedZoneId"] == "Z35SXDOTRQ7X7K"
    assert ("www.example.com", "AAAA", "") in sets
    assert sets[("api.example.com", "A", "eu")]["Weight"] == 50
    assert sets[("a-api.example.com", "TXT", "us")]["Weight"] == 100
    assert sets[("mail.example.com", "A", "")]["TTL"] == 60
    assert "Desired change: CREATE www.example.com A" in first.stderr + first.stdout
    second = run_cli(moto_server, tmp_path)
    assert second.returncode == 0, second.stderr
    assert "All records are already up to date" in second.stderr + second.stdout
    for out in (first, second):
        assert SECRET not in out.stdout + out.stderr


def test_cli_dry_run_writes_nothing(moto_server: str, r53: Any, tmp_path: Path) -> None:
    zone = create_zone(r53, "example.com")
    (tmp_path / "records.yaml").write_text(MANIFEST)
    result = run_cli(moto_server, tmp_path, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Desired change: CREATE mail.example.com A" in result.stderr + result.stdout
    assert by_name_type(r53, zone) == {}


def test_cli_dynamodb_registry(moto_server: str, r53: Any, tmp_path: Path) -> None:
    import boto3

    zone = create_zone(r53, "example.com")
    (tmp_path / "records.yaml").write_text(MANIFEST)
    missing = run_cli(moto_server, tmp_path, "--registry=dynamodb", "--dynamodb-table=ownership")
    assert missing.returncode != 0
    assert "--dynamodb-table" in missing.stderr and "'ownership' does not exist" in missing.stderr
    assert by_name_type(r53, zone) == {}

    ddb = boto3.client("dynamodb", endpoint_url=moto_server)
    ddb.create_table(TableName="ownership", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    ok = run_cli(moto_server, tmp_path, "--registry=dynamodb", "--dynamodb-table=ownership",
                 "--txt-owner-id=cluster-1")
    assert ok.returncode == 0, ok.stderr
    keys = {i["k"]["S"]: i["o"]["S"] for i in ddb.scan(TableName="ownership")["Items"]}
    assert keys == {"www.example.com#A#": "cluster-1", "www.example.com#AAAA#": "cluster-1",
                    "api.example.com#A#us": "cluster-1", "api.example.com#A#eu": "cluster-1",
                    "mail.example.com#A#": "cluster-1"}
    assert not any(t == "TXT" for (_n, t, _s) in by_name_type(r53, zone))
    again = run_cli(moto_server, tmp_path, "--registry=dynamodb", "--dynamodb-table=ownership",
                    "--txt-owner-id=cluster-1")
    assert again.returncode == 0 and "All records are already up to date" in again.stderr + again.stdout
