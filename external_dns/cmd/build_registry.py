"""Registry builders (`REGISTRY_BUILDERS` in cmd/build.py): the flags become a registry over the provider.
A configuration mistake (empty owner, both --txt-prefix and --txt-suffix, a bad AES key, a missing
DynamoDB table) is a ConfigError naming the flag. boto3 is imported only for `--registry=dynamodb`."""

from __future__ import annotations

import argparse

from external_dns.endpoint.endpoint import DEFAULT_MANAGED_RECORD_TYPES
from external_dns.errors import ConfigError
from external_dns.providers.provider import Provider, ProviderError
from external_dns.registry.noop import NoopRegistry
from external_dns.registry.registry import Registry
from external_dns.registry.txt import TXTRegistry


def _flag_for(message: str) -> str:
    if "owner id" in message:
        return "--txt-owner-id"
    if "mutual exclusive" in message:
        return "--txt-prefix/--txt-suffix"
    if "AES" in message:
        return "--txt-encrypt-aes-key"
    return "--registry=txt"


def build_txt(cfg: argparse.Namespace, provider: Provider) -> TXTRegistry:
    """`--registry=txt`."""
    try:
        return TXTRegistry(
            provider,
            prefix=getattr(cfg, "txt_prefix", "") or "",
            suffix=getattr(cfg, "txt_suffix", "") or "",
            owner_id=getattr(cfg, "txt_owner_id", "default"),
            cache_interval=float(getattr(cfg, "txt_cache_interval", 0.0) or 0.0),
            wildcard_replacement=getattr(cfg, "txt_wildcard_replacement", "") or "",
            managed_record_types=tuple(getattr(cfg, "managed_record_types", None) or DEFAULT_MANAGED_RECORD_TYPES),
            exclude_record_types=tuple(getattr(cfg, "exclude_record_types", None) or ()),
            txt_encrypt_enabled=bool(getattr(cfg, "txt_encrypt_enabled", False)),
            txt_encrypt_aes_key=getattr(cfg, "txt_encrypt_aes_key", "") or "",
            old_owner_id=getattr(cfg, "migrate_from_txt_owner", "") or "",
        )
    except ValueError as exc:
        raise ConfigError(f"{_flag_for(str(exc))}: {exc}") from None


def build_noop(cfg: argparse.Namespace, provider: Provider) -> NoopRegistry:
    """`--registry=noop`."""
    return NoopRegistry(provider)


def build_dynamodb(cfg: argparse.Namespace, provider: Provider) -> Registry:
    """REGISTRY_BUILDERS["dynamodb"]: `--dynamodb-table`, `--dynamodb-region`, `--txt-owner-id` and the TXT
    naming flags (for the migration from the TXT registry)."""
    from external_dns.providers.aws.config import AWSConfig, client_config, make_session
    from external_dns.registry.dynamodb import DynamoDBRegistry, DynamoDBTableError

    aws = AWSConfig(api_retries=int(getattr(cfg, "aws_api_retries", 3) or 3),
                    region=getattr(cfg, "dynamodb_region", "") or None,
                    assume_role=getattr(cfg, "aws_assume_role", "") or "",
                    assume_role_external_id=getattr(cfg, "aws_assume_role_external_id", "") or "")
    profiles = [p for p in getattr(cfg, "aws_profile", None) or [] if p]
    client = make_session(aws, profiles[0] if profiles else "").client(
        "dynamodb", config=client_config(aws.api_retries))
    table = getattr(cfg, "dynamodb_table", "external-dns")
    try:
        return DynamoDBRegistry(
            provider,
            owner_id=getattr(cfg, "txt_owner_id", "default"),
            client=client,
            table=table,
            managed_record_types=tuple(getattr(cfg, "managed_record_types", None) or DEFAULT_MANAGED_RECORD_TYPES),
            exclude_record_types=tuple(getattr(cfg, "exclude_record_types", None) or ()),
            txt_prefix=getattr(cfg, "txt_prefix", "") or "",
            txt_suffix=getattr(cfg, "txt_suffix", "") or "",
            txt_wildcard_replacement=getattr(cfg, "txt_wildcard_replacement", "") or "",
            txt_encrypt_aes_key=getattr(cfg, "txt_encrypt_aes_key", "") or "",
        )
    except DynamoDBTableError as exc:
        raise ConfigError(f"--dynamodb-table: {exc}") from None
    except ProviderError:
        raise
    except ValueError as exc:
        raise ConfigError(f"--registry=dynamodb: {exc}") from None
