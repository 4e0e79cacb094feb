"""Builds the full flag parser from the flag groups and validates a parsed configuration.

To add a group: a module `cmd/flags_<area>.py` with `add_flags(p)` and optionally `validate(cfg)`, listed
in FLAG_GROUPS below.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType

from external_dns.cmd.flags import ConfigError, FlagParser

FLAG_GROUPS: tuple[str, ...] = (
    "external_dns.cmd.flags_core",
    "external_dns.cmd.flags_providers_local",
    "external_dns.cmd.flags_controller",
    "external_dns.cmd.flags_rfc2136",
    "external_dns.cmd.flags_webhook",
    "external_dns.cmd.flags_sources",
    "external_dns.cmd.flags_aws",
    "external_dns.cmd.flags_pdns",
    "external_dns.cmd.flags_safety",
    "external_dns.cmd.flags_dnsrecord",
)


def _groups() -> list[ModuleType]:
    return [importlib.import_module(name) for name in FLAG_GROUPS]


def build_parser(prog: str = "external-dns") -> FlagParser:
    parser = FlagParser(prog=prog, description="Keep DNS records in step with Kubernetes (ExternalDNS-compatible).")
    for group in _groups():
        group.add_flags(parser)
    return parser


def validate(cfg: argparse.Namespace) -> None:
    for group in _groups():
        check = getattr(group, "validate", None)
        if check is not None:
            check(cfg)


def load_config(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> tuple[FlagParser, argparse.Namespace]:
    """Parse and validate; raises ConfigError (argparse usage errors exit 2 on their own)."""
    parser = build_parser()
    cfg = parser.parse(argv, environ)
    validate(cfg)
    return parser, cfg


__all__ = ["ConfigError", "build_parser", "load_config", "validate"]
