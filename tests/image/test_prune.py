"""image/prune.py: the AWS services the project's code names are all kept in the image (a new boto3 client
for a service botocore's models were pruned of fails here, not in a cluster), and pruning a site-packages
removes the other services' models and their RECORD lines, keeping botocore's own data files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from image import prune
from tests.charts.render import ROOT

# boto3.client("x"), session.client("x"), boto3.resource("x"), botocore's create_client("x")
_CALLS = {"client", "resource", "create_client"}


def _services_named_in(package: Path) -> set[str]:
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CALLS
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.add(node.args[0].value)
    return found


def test_every_aws_service_the_code_names_is_kept() -> None:
    named = _services_named_in(ROOT / "external_dns")
    assert "sts" in named  # the scan sees the provider's calls
    assert named <= prune.BOTOCORE_SERVICES, named - prune.BOTOCORE_SERVICES


def test_the_scan_finds_service_names(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import boto3\nc = boto3.client('ec2')\nr = session.resource(\"s3\")\n")
    assert _services_named_in(tmp_path) == {"ec2", "s3"}


def _site(tmp_path: Path, services: list[str]) -> Path:
    site = tmp_path / "site-packages"
    data = site / "botocore" / "data"
    lines = []
    for service in services:
        (data / service / "2020-01-01").mkdir(parents=True)
        (data / service / "2020-01-01" / "service-2.json.gz").write_bytes(b"model")
        lines.append(f"botocore/data/{service}/2020-01-01/service-2.json.gz,sha256=x,5\n")
    (data / "endpoints.json").write_text("{}")
    lines.append("botocore/data/endpoints.json,sha256=y,2\n")
    (site / "botocore-1.0.dist-info").mkdir()
    (site / "botocore-1.0.dist-info" / "RECORD").write_text("".join(lines))
    return site


def test_prune_removes_other_services_and_their_record_lines(tmp_path: Path) -> None:
    site = _site(tmp_path, [*sorted(prune.BOTOCORE_SERVICES), "ec2", "s3"])
    assert prune.prune(site) == {"botocore": 10}
    data = site / "botocore" / "data"
    assert {p.name for p in data.iterdir()} == prune.BOTOCORE_SERVICES | {"endpoints.json"}
    record = (site / "botocore-1.0.dist-info" / "RECORD").read_text()
    assert "/ec2/" not in record and "/s3/" not in record
    assert "botocore/data/route53/" in record and "botocore/data/endpoints.json" in record


def test_prune_refuses_a_botocore_without_a_kept_service(tmp_path: Path) -> None:
    site = _site(tmp_path, ["ec2"])
    with pytest.raises(RuntimeError, match="route53"):
        prune.prune(site)
