"""Route53 client settings (providers/aws/config.py): adaptive retries, timeouts and no client-side validation, one
client per --aws-profile, and --aws-assume-role (with its external id) through STS on the moto server."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.providers.aws.config import (
    CONNECT_TIMEOUT,
    READ_TIMEOUT,
    AWSConfig,
    client_config,
    make_session,
    route53_clients,
)


def test_client_config() -> None:
    options = vars(client_config(5))  # botocore's Config sets its options as attributes
    assert options["retries"] == {"mode": "adaptive", "max_attempts": 5}
    assert (options["connect_timeout"], options["read_timeout"], options["parameter_validation"]) == (
        CONNECT_TIMEOUT, READ_TIMEOUT, False)
    assert vars(client_config(0))["retries"] == {"mode": "adaptive", "max_attempts": 1}  # at least one attempt


def test_one_client_per_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file = tmp_path / "config"
    config_file.write_text("[profile a]\nregion = eu-west-1\n[profile b]\nregion = us-east-2\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config_file))
    for name in ("AWS_DEFAULT_REGION", "AWS_REGION", "AWS_PROFILE"):  # the profile's own region, not the tests'
        monkeypatch.delenv(name, raising=False)
    assert sorted(route53_clients(AWSConfig(profiles=["a", "b"]))) == ["a", "b"]
    assert (make_session(AWSConfig(), "a").profile_name, make_session(AWSConfig(), "b").region_name) == ("a", "us-east-2")
    assert list(route53_clients(AWSConfig(region="us-east-1"))) == [""]  # the environment's default


@pytest.mark.integration
def test_assume_role_uses_the_roles_credentials(moto_server: str) -> None:
    plain = make_session(AWSConfig(region="us-east-1", endpoint_url=moto_server))
    config = AWSConfig(region="us-east-1", endpoint_url=moto_server, assume_role="arn:aws:iam::123456789012:role/dns",
                       assume_role_external_id="ext-1")
    session = make_session(config)
    creds = session.get_credentials()
    assert creds is not None and creds.token  # a session token: the role's temporary credentials
    assert creds.access_key != plain.get_credentials().access_key  # type: ignore[union-attr]
    assert session.region_name == "us-east-1"
