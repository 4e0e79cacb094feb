"""image/prune.py: the AWS services and Google APIs the project's code names are all kept in the image (a new
boto3 client or discovery.build for one the image was pruned of fails here, not in a cluster), and pruning a
site-packages removes the other models and documents and their RECORD lines, keeping botocore's own data
files. The Cloudflare SDK's APIs the provider calls are those compiled ahead."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from image import prune
from image.venv import CLOUDFLARE_APIS, NOT_COMPILED
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
    (tmp_path / "m.py").write_text("import boto3\nc = boto3.client('ec2')\nr = session.resource(\"s3\")\n"
                                   "s = discovery.build('dns', 'v1', static_discovery=True)\n")
    assert _services_named_in(tmp_path) == {"ec2", "s3"}
    assert _discovery_documents_in(tmp_path) == {"dns.v1.json"}


def _discovery_documents_in(package: Path) -> set[str]:
    """`<api>.<version>.json` of every `discovery.build("api", "version", ...)` call."""
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "build"
                    and len(node.args) >= 2 and all(isinstance(a, ast.Constant) for a in node.args[:2])):
                found.add(f"{node.args[0].value}.{node.args[1].value}.json")  # type: ignore[attr-defined]
    return found


def test_every_google_api_the_code_builds_is_kept() -> None:
    named = _discovery_documents_in(ROOT / "external_dns")
    assert "dns.v1.json" in named
    assert named <= prune.GOOGLE_DISCOVERY_DOCUMENTS, named - prune.GOOGLE_DISCOVERY_DOCUMENTS


def test_every_cloudflare_api_the_provider_calls_is_compiled_ahead() -> None:
    """The provider reaches the SDK's APIs as `client.<api>`: each is one compileall keeps (image/venv.py)."""
    import re

    source = "".join(p.read_text() for p in (ROOT / "external_dns" / "providers" / "cloudflare").glob("*.py"))
    apis = set(re.findall(r"\bclient\.([a-z_]+)\b", source))
    assert {"dns", "zones"} <= apis
    assert apis <= set(CLOUDFLARE_APIS), apis - set(CLOUDFLARE_APIS)
    skipped = re.compile(NOT_COMPILED)
    site = "/opt/external-dns/lib/python3.11/site-packages/cloudflare"
    assert skipped.search(f"{site}/resources/workers/scripts.py") and skipped.search(f"{site}/types/ai/x.py")
    for path in (f"{site}/resources/dns/records.py", f"{site}/types/shared/x.py", f"{site}/types/__init__.py",
                 f"{site}/_client.py", "/usr/lib/python3.11/os.py"):
        assert not skipped.search(path), path


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


def test_prune_removes_other_discovery_documents(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    docs = site / "googleapiclient" / "discovery_cache" / "documents"
    docs.mkdir(parents=True)
    record = []
    for name in ("dns.v1.json", "dns.v2.json", "compute.v1.json"):
        (docs / name).write_text("{}")
        record.append(f"googleapiclient/discovery_cache/documents/{name},sha256=z,2\n")
    (docs.parent / "__init__.py").write_text("")
    record.append("googleapiclient/discovery_cache/__init__.py,sha256=w,0\n")
    (site / "google_api_python_client-2.0.dist-info").mkdir()
    (site / "google_api_python_client-2.0.dist-info" / "RECORD").write_text("".join(record))
    assert prune.prune(site) == {"google-api-python-client": 4}
    assert [p.name for p in docs.iterdir()] == ["dns.v1.json"]
    assert (site / "google_api_python_client-2.0.dist-info" / "RECORD").read_text() == record[0] + record[3]


def test_prune_refuses_a_botocore_without_a_kept_service(tmp_path: Path) -> None:
    site = _site(tmp_path, ["ec2"])
    with pytest.raises(RuntimeError, match="route53"):
        prune.prune(site)
