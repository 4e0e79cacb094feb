"""Registry builders (`REGISTRY_BUILDERS` in cmd/build.py): the flags become a registry over the provider.
A configuration mistake (empty owner, both --txt-prefix and --txt-suffix, a bad AES key, a missing
DynamoDB table) is a ConfigError naming the flag. boto3 is imported only for `--registry=dynamodb`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.errors import ConfigError
from external_dns.providers.provider import Provider, ProviderError
from external_dns.registry.noop import NoopRegistry
from external_dns.registry.registry import Registry
from external_dns.registry.txt import TXTRegistry

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


def _flag_for(message: str) -> str:
    if "owner id" in message:
        return "--txt-owner-id"
    if "mutual exclusive" in message:
        return "--txt-prefix/--txt-suffix"
    if "AES" in message:
        return "--txt-encrypt-aes-key"
    return "--registry=txt"


def build_txt(cfg: Config, provider: Provider) -> TXTRegistry:
    """`--registry=txt`."""
    txt = cfg.txt
    try:
        return TXTRegistry(
            provider,
            prefix=txt.prefix,
            suffix=txt.suffix,
            owner_id=txt.owner_id,
            cache_interval=txt.cache_interval,
            wildcard_replacement=txt.wildcard_replacement,
            managed_record_types=cfg.filters.managed_record_types,
            exclude_record_types=cfg.filters.exclude_record_types,
            txt_encrypt_enabled=txt.encrypt_enabled,
            txt_encrypt_aes_key=txt.encrypt_aes_key,
            old_owner_id=txt.migrate_from_owner,
        )
    except ValueError as exc:
        raise ConfigError(f"{_flag_for(str(exc))}: {exc}") from None


def build_noop(cfg: Config, provider: Provider) -> NoopRegistry:
    """`--registry=noop`."""
    return NoopRegistry(provider)


def build_dynamodb(cfg: Config, provider: Provider) -> Registry:
    """REGISTRY_BUILDERS["dynamodb"]: `--dynamodb-table`, `--dynamodb-region`, `--txt-owner-id` and the TXT
    naming flags (for the migration from the TXT registry)."""
    from external_dns.providers.aws.config import AWSConfig, client_config, make_session
    from external_dns.registry.dynamodb import DynamoDBRegistry, DynamoDBTableError

    aws, txt = cfg.aws, cfg.txt
    session_config = AWSConfig(api_retries=aws.api_retries, region=cfg.dynamodb.region or None,
                               assume_role=aws.assume_role, assume_role_external_id=aws.assume_role_external_id)
    profiles = [p for p in aws.profiles if p]
    client = make_session(session_config, profiles[0] if profiles else "").client(
        "dynamodb", config=client_config(session_config.api_retries))
    try:
        return DynamoDBRegistry(
            provider,
            owner_id=txt.owner_id,
            client=client,
            table=cfg.dynamodb.table,
            managed_record_types=cfg.filters.managed_record_types,
            exclude_record_types=cfg.filters.exclude_record_types,
            txt_prefix=txt.prefix,
            txt_suffix=txt.suffix,
            txt_wildcard_replacement=txt.wildcard_replacement,
            txt_encrypt_aes_key=txt.encrypt_aes_key,
        )
    except DynamoDBTableError as exc:
        raise ConfigError(f"--dynamodb-table: {exc}") from None
    except ProviderError:
        raise
    except ValueError as exc:
        raise ConfigError(f"--registry=dynamodb: {exc}") from None
