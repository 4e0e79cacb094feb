"""Registry builders for `cmd/build.py`: turn the parsed flags (cmd/flags_core.py) into a registry.

Configuration mistakes (empty owner, both --txt-prefix and --txt-suffix, a bad AES key) raise
`ConfigError` naming the flag.
"""

from __future__ import annotations

import argparse

from external_dns.errors import ConfigError
from external_dns.endpoint.endpoint import DEFAULT_MANAGED_RECORD_TYPES
from external_dns.providers.provider import Provider
from external_dns.registry.noop import NoopRegistry
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
