"""AWS provider configuration (`AWSConfig`, from the `--aws-*` flags) and boto3 client construction.

With no `--aws-*` flag the standard AWS environment applies unchanged: credentials and region from the
usual variables/files, `AWS_ENDPOINT_URL` (or `AWS_ENDPOINT_URL_ROUTE_53`) to redirect the API, which is
how tests point the provider at moto. Retries use botocore's adaptive mode (client-side rate limiting on
throttling) with `--aws-api-retries` attempts; every call has connect/read timeouts. Credentials are never
logged: `AWSConfig.__repr__` has no secret in it, and errors are formatted from the API error code/message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.config

from external_dns.endpoint.domain_filter import DomainFilter

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0


@dataclass
class AWSConfig:
    """Everything the Route53 provider needs (defaults as external-dns)."""

    domain_filter: DomainFilter = field(default_factory=DomainFilter)
    zone_id_filter: list[str] = field(default_factory=list)
    zone_type: str = ""
    zone_tags: list[str] = field(default_factory=list)
    zone_match_parent: bool = False
    profiles: list[str] = field(default_factory=list)
    assume_role: str = ""
    assume_role_external_id: str = field(default="", repr=False)
    batch_change_size: int = 1000
    batch_change_size_bytes: int = 32000
    batch_change_size_values: int = 1000
    batch_change_interval: float = 1.0
    evaluate_target_health: bool = True
    api_retries: int = 3
    prefer_cname: bool = False
    zones_cache_duration: float = 0.0
    dry_run: bool = False
    endpoint_url: str | None = None
    region: str | None = None


def client_config(api_retries: int) -> botocore.config.Config:
    """Adaptive retries, timeouts, and no client-side parameter validation: every request is built by our
    own code from validated record sets (records.py), and validating thousands of changes per batch again
    costs more CPU than building them."""
    return botocore.config.Config(
        retries={"mode": "adaptive", "max_attempts": max(1, api_retries)},
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
        parameter_validation=False,
    )


def make_session(config: AWSConfig, profile: str = "") -> boto3.session.Session:
    """A session for `profile` ("" = the environment's default), assuming `--aws-assume-role` if set."""
    session = boto3.session.Session(profile_name=profile or None, region_name=config.region)
    if not config.assume_role:
        return session
    sts = session.client("sts", endpoint_url=config.endpoint_url, config=client_config(config.api_retries))
    kwargs: dict[str, Any] = {"RoleArn": config.assume_role, "RoleSessionName": "external-dns"}
    if config.assume_role_external_id:
        kwargs["ExternalId"] = config.assume_role_external_id
    creds = sts.assume_role(**kwargs)["Credentials"]
    return boto3.session.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name=config.region or session.region_name,
    )


def route53_clients(config: AWSConfig) -> dict[str, Any]:
    """One Route53 client per `--aws-profile` (key "" for the default profile)."""
    profiles = config.profiles or [""]
    return {
        profile: make_session(config, profile).client(
            "route53", endpoint_url=config.endpoint_url, config=client_config(config.api_retries))
        for profile in profiles
    }
