"""docs/migrate-from-external-dns.md, checked: a zone written by Go ExternalDNS (v0.18+ ownership TXT
format, with and without --txt-prefix) is adopted by the real CLI with no change at the provider, as long as
the owner ID and TXT settings are the same; another owner ID makes the records foreign (never touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import Env, dns_endpoint, run_cli, service

pytestmark = pytest.mark.integration

OWNER = "prod-eu-1"


def go_zone(prefix: str) -> str:
    """example.org as Go ExternalDNS leaves it for the Service `api` and the DNSEndpoint `web`."""
    def owner(resource: str) -> str:
        return f'"heritage=external-dns,external-dns/owner={OWNER},external-dns/resource={resource}"'

    return "\n".join([
        "$ORIGIN example.org.",
        "@ 300 IN SOA ns1.example.org. hostmaster.example.org. 7 3600 600 86400 300",
        "@ 300 IN NS ns1.example.org.",
        "ns1 300 IN A 192.0.2.1",
        "api 300 IN A 192.0.2.20",
        f"{prefix}a-api 300 IN TXT {owner('service/default/api')}",
        "www 300 IN A 192.0.2.10",
        f"{prefix}a-www 300 IN TXT {owner('crd/default/web')}",
        "",
    ])


def migration_env(tmp_path: Path, prefix: str) -> Env:
    e = Env(tmp_path)
    e.write("web.yaml", dns_endpoint("web", "www.example.org", "192.0.2.10"))
    e.write("api.yaml", service("api", "api.example.org", "192.0.2.20"))
    e.zones.mkdir()
    e.zone_file.write_text(go_zone(prefix))
    return e


def migrate_args(e: Env, owner: str, prefix: str, *extra: str) -> list[str]:
    args = [a for a in e.args(*extra) if not a.startswith("--txt-owner-id=")]
    args.append(f"--txt-owner-id={owner}")
    if prefix:
        args.append(f"--txt-prefix={prefix}")
    return args


@pytest.mark.parametrize("prefix", ["", "edns-"])
def test_go_external_dns_zone_is_adopted_without_churn(tmp_path: Path, prefix: str) -> None:
    e = migration_env(tmp_path, prefix)
    before = e.zone_file.read_text()
    plan_md = tmp_path / "plan.md"
    # step 2 of the guide: a dry run with the same settings plans nothing
    proc = run_cli(migrate_args(e, OWNER, prefix, "--dry-run", "--plan-output=log",
                                f"--plan-output-file=markdown={plan_md}"))
    assert "All records are already up to date" in proc.stderr
    assert "No changes were planned" in plan_md.read_text()
    # step 4: the real run writes nothing either
    proc = run_cli(migrate_args(e, OWNER, prefix))
    assert "All records are already up to date" in proc.stderr
    assert e.zone_file.read_text() == before
    # and once adopted, a change is applied to the adopted records in place
    e.write("api.yaml", service("api", "api.example.org", "192.0.2.21"))
    run_cli(migrate_args(e, OWNER, prefix))
    recs = e.records()
    assert recs[("api.example.org", "A")] == ["192.0.2.21"]
    assert f"external-dns/owner={OWNER}" in recs[(f"{prefix}a-api.example.org", "TXT")][0]


def test_another_owner_id_leaves_the_go_records_alone(tmp_path: Path) -> None:
    e = migration_env(tmp_path, "")
    before = e.zone_file.read_text()
    e.write("api.yaml", service("api", "api.example.org", "192.0.2.99"))
    proc = run_cli(migrate_args(e, "someone-else", ""))
    assert "All records are already up to date" in proc.stderr
    assert e.zone_file.read_text() == before
