"""The typed configuration: the flag parser built from the flag groups, and the one frozen `Config` made from
the parsed flags right after parsing (nothing past this module sees the argparse namespace).

To add a group: a module `cmd/flags_<area>.py` with `add_flags(p)`, a frozen dataclass whose fields name
their flags (`flag("--area-x")`) and `validate(cfg: Config)`; list the module in FLAG_GROUPS and the
dataclass as a field of `Config` (and in `_typed`) below.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from types import ModuleType

from external_dns.cmd import (
    flags_aws,
    flags_azure,
    flags_cloudflare,
    flags_controller,
    flags_core,
    flags_dnsrecord,
    flags_google,
    flags_pdns,
    flags_providers_local,
    flags_rfc2136,
    flags_safety,
    flags_sources,
    flags_webhook,
)
from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, flag_group, group_from
from external_dns.cmd.usage import RUN, Command

FLAG_GROUPS: tuple[ModuleType, ...] = (
    flags_core,
    flags_providers_local,
    flags_controller,
    flags_rfc2136,
    flags_webhook,
    flags_sources,
    flags_aws,
    flags_pdns,
    flags_cloudflare,
    flags_google,
    flags_azure,
    flags_safety,
    flags_dnsrecord,
)


@flag_group
class Config(FlagGroup):
    """Every flag's value, grouped as the flags are (each group's dataclass sits beside its flags)."""

    core: flags_core.CoreFlags
    log: flags_core.LogFlags
    txt: flags_core.TXTFlags
    filters: flags_core.FilterFlags
    local: flags_providers_local.LocalProviderFlags
    controller: flags_controller.ControllerFlags
    leader_election: flags_controller.LeaderElectionFlags
    kube: flags_controller.KubeAPIFlags
    rfc2136: flags_rfc2136.RFC2136Flags
    webhook: flags_webhook.WebhookFlags
    sources: flags_sources.SourceFlags
    aws: flags_aws.AWSFlags
    dynamodb: flags_aws.DynamoDBFlags
    pdns: flags_pdns.PDNSFlags
    tls: flags_pdns.TLSFlags
    cloudflare: flags_cloudflare.CloudflareFlags
    google: flags_google.GoogleFlags
    azure: flags_azure.AzureFlags
    safety: flags_safety.SafetyFlags
    plan_output: flags_safety.PlanOutputFlags
    dnsrecord: flags_dnsrecord.DNSRecordFlags


def _typed(ns: argparse.Namespace) -> Config:
    values = vars(ns)
    return Config(
        core=group_from(flags_core.CoreFlags, values),
        log=group_from(flags_core.LogFlags, values),
        txt=group_from(flags_core.TXTFlags, values),
        filters=group_from(flags_core.FilterFlags, values),
        local=group_from(flags_providers_local.LocalProviderFlags, values),
        controller=group_from(flags_controller.ControllerFlags, values),
        leader_election=group_from(flags_controller.LeaderElectionFlags, values),
        kube=group_from(flags_controller.KubeAPIFlags, values),
        rfc2136=group_from(flags_rfc2136.RFC2136Flags, values),
        webhook=group_from(flags_webhook.WebhookFlags, values),
        sources=group_from(flags_sources.SourceFlags, values),
        aws=group_from(flags_aws.AWSFlags, values),
        dynamodb=group_from(flags_aws.DynamoDBFlags, values),
        pdns=group_from(flags_pdns.PDNSFlags, values),
        tls=group_from(flags_pdns.TLSFlags, values),
        cloudflare=group_from(flags_cloudflare.CloudflareFlags, values),
        google=group_from(flags_google.GoogleFlags, values),
        azure=group_from(flags_azure.AzureFlags, values),
        safety=group_from(flags_safety.SafetyFlags, values),
        plan_output=group_from(flags_safety.PlanOutputFlags, values),
        dnsrecord=group_from(flags_dnsrecord.DNSRecordFlags, values),
    )


def build_parser(command: Command = RUN) -> FlagParser:
    """Every flag group's flags, with `command`'s name, usage line and description for --help and errors."""
    parser = FlagParser(prog=command.prog, description=command.description, usage=command.usage)
    for group in FLAG_GROUPS:
        group.add_flags(parser)
    return parser


def parse_config(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                 parser: FlagParser | None = None) -> Config:
    """The typed configuration of a command line (and the environment), not validated; argparse usage
    errors exit 2 on their own."""
    return _typed((parser or build_parser()).parse(argv, environ))


def validate(cfg: Config) -> None:
    for group in FLAG_GROUPS:
        group.validate(cfg)


def load_config(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                command: Command = RUN) -> tuple[FlagParser, Config]:
    """Parse and validate; raises ConfigError (argparse usage errors exit 2 on their own)."""
    parser = build_parser(command)
    cfg = parse_config(argv, environ, parser)
    validate(cfg)
    return parser, cfg


__all__ = ["Config", "ConfigError", "build_parser", "load_config", "parse_config", "validate"]
