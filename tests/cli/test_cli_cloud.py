"""The real CLI (`python -m external_dns --once --source=manifest ...` as a subprocess) against the strict fakes,
reaching each the way a user points the provider at another endpoint: Cloudflare through the SDK's
`CLOUDFLARE_BASE_URL` (token in `CF_API_TOKEN`), Google through `--google-api-endpoint` (a key file in
`GOOGLE_APPLICATION_CREDENTIALS`), Azure and Azure Private DNS through azure.json (`AzureStackCloud`:
`resourceManagerEndpoint`, `activeDirectoryAuthorityHost`) with the fake's CA in `REQUESTS_CA_BUNDLE`.
Covers create, a no-op re-run that writes nothing, an update, debug logs that never show the secret, and
start-up errors (exit 2) that name what is missing."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.azure import AzureDNSFake, config_file
from tests.fakes.cloudflare import CloudflareFake
from tests.fakes.google import GoogleDNSFake
from tests.helpers.cli import run_cli
from tests.helpers.provider_cli import write
from tests.providers.google.conftest import SA_EMAIL, SA_KEY, write_key_file

pytestmark = pytest.mark.integration
BASE = ["--once", "--source=manifest", "--policy=sync", "--registry=txt", "--txt-owner-id=cli-test",
        "--managed-record-types=A,AAAA,CNAME,TXT,MX,SRV", "--log-level=debug"]


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    d = tmp_path / "manifests"
    d.mkdir()
    return d


def cli(manifests: Path, provider_args: list[str], env: dict[str, str],
        expect: int | None = 0) -> subprocess.CompletedProcess[str]:
    return run_cli([*BASE, f"--manifest-dir={manifests}", *provider_args], env=env, expect=expect)


# -- Cloudflare -------------------------------------------------------------------------------------------------
@pytest.fixture
def cf() -> Iterator[CloudflareFake]:
    with CloudflareFake(token="cf-cli-token") as srv:
        srv.add_zone("example.org")
        srv.add_zone("example.com")
        yield srv


def test_cloudflare_cli_create_noop_update(cf: CloudflareFake, manifests: Path) -> None:
    env = {"CLOUDFLARE_BASE_URL": cf.url + "/client/v4", "CF_API_TOKEN": "cf-cli-token"}
    write(manifests)
    out = cli(manifests, ["--provider=cloudflare"], env)
    org, com = cf.values("example.org"), cf.values("example.com")
    assert ("web.example.org", "A", "192.0.2.10", 300, False) in org
    assert ("inbox.example.com", "MX", "20 backup.example.net", 1, False) in com
    assert ("alias.example.com", "CNAME", "web.example.org", 1, False) in com
    assert any(v[0] == "a-web.example.org" and "owner=cli-test" in v[2] for v in org)
    assert "cf-cli-token" not in out.stdout + out.stderr
    cf.reset_calls()
    cli(manifests, ["--provider=cloudflare"], env)
    assert [c for c in cf.calls if c[0] != "GET"] == []
    write(manifests, ip="192.0.2.11", ttl="600")
    cli(manifests, ["--provider=cloudflare", "--cloudflare-proxied"], env)
    org = cf.values("example.org")
    assert ("web.example.org", "A", "192.0.2.11", 1, True) in org  # proxied: automatic TTL


def test_cloudflare_cli_without_credentials_exits_2(cf: CloudflareFake, manifests: Path) -> None:
    write(manifests)
    out = cli(manifests, ["--provider=cloudflare"], {"CLOUDFLARE_BASE_URL": cf.url + "/client/v4"}, expect=2)
    assert "cloudflare credentials are not configured" in out.stderr
    out = cli(manifests, ["--provider=cloudflare"], {"CLOUDFLARE_BASE_URL": cf.url + "/client/v4",
                                                     "CF_API_TOKEN": "wrong-token"}, expect=1)
    assert "Cloudflare refused the credentials" in out.stdout + out.stderr
    assert "wrong-token" not in out.stdout + out.stderr


# -- Google -----------------------------------------------------------------------------------------------------
def test_google_cli_create_noop_update(manifests: Path, tmp_path: Path) -> None:
    with GoogleDNSFake() as g:
        g.register_service_account(SA_EMAIL, SA_KEY.public_key())
        g.add_zone("org", "example.org")
        g.add_zone("com", "example.com")
        key = write_key_file(tmp_path / "sa.json", g.url + "/token")
        env = {"GOOGLE_APPLICATION_CREDENTIALS": str(key), "CLOUDSDK_CONFIG": str(tmp_path / "gcloud")}
        args = ["--provider=google", f"--google-api-endpoint={g.url}/", "--google-batch-change-interval=0s"]
        write(manifests)
        cli(manifests, args, env)  # the project comes from the key file
        assert g.rrsets("org")[("web.example.org.", "A")] == (300, ["192.0.2.10"])
        assert g.rrsets("com")[("alias.example.com.", "CNAME")] == (300, ["web.example.org."])
        g.reset_calls()
        cli(manifests, [*args, "--google-project=test-project"], env)
        assert g.count("POST", "/changes") == 0
        write(manifests, ip="192.0.2.11", ttl="600")
        cli(manifests, args, env)
        assert g.rrsets("org")[("web.example.org.", "A")] == (600, ["192.0.2.11"])


# -- Azure ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("private", [False, True], ids=["azure", "azure-private-dns"])
def test_azure_cli_through_azure_json(manifests: Path, tmp_path: Path, private: bool) -> None:
    with AzureDNSFake(tmp_path / "certs", private=private) as az:
        az.add_zone("example.org")
        az.add_zone("example.com")
        path = config_file(tmp_path / "azure.json", az, resourceGroup="not-this-one")
        env = {"REQUESTS_CA_BUNDLE": az.ca_file}
        args = [f"--provider={'azure-private-dns' if private else 'azure'}", f"--azure-config-file={path}",
                f"--azure-resource-group={az.resource_group}"]  # the flag overrides the file
        (manifests / "records.yaml").unlink(missing_ok=True)
        write(manifests, records=False)
        out = cli(manifests, args, env)
        assert az.values("example.org")[("web", "A")] == (300, [{"ipv4Address": "192.0.2.10"}])
        assert az.client_secret not in out.stdout + out.stderr
        az.reset_calls()
        cli(manifests, args, env)
        assert az.count("PUT") == az.count("DELETE") == 0
        write(manifests, ip="192.0.2.11", ttl="600", records=False)
        cli(manifests, args, env)
        assert az.values("example.org")[("web", "A")] == (600, [{"ipv4Address": "192.0.2.11"}])


def test_azure_cli_needs_a_readable_config_file(manifests: Path, tmp_path: Path) -> None:
    write(manifests, records=False)
    out = cli(manifests, ["--provider=azure", f"--azure-config-file={tmp_path / 'missing.json'}"], {}, expect=2)
    assert "failed to read Azure config file" in out.stderr
