"""Core flags: sources, provider, policy, registry, TXT ownership, domain filters, record types, timing,
logging. Names and defaults follow external-dns (`pkg/apis/externaldns/types.go`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns import __version__
from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

POLICIES = ("sync", "upsert-only", "create-only")
REGISTRIES = ("txt", "noop", "dynamodb")
LOG_LEVELS = ("panic", "fatal", "error", "warning", "info", "debug", "trace")


def add_flags(p: FlagParser) -> None:
    p.group("sources and provider")
    p.add("--source", repeat=True, help="source of desired endpoints (repeatable)")
    p.add("--provider", default="", help="DNS provider")
    p.add("--policy", default="", help="how changes are applied: sync, upsert-only, create-only (required)")
    p.add("--registry", default="txt", choices=REGISTRIES, help="ownership registry")

    p.group("TXT registry")
    p.add("--txt-owner-id", default="default", help="owner ID written into ownership records")
    p.add("--txt-prefix", default="", help="prefix for ownership TXT names (may contain %%{record_type})")
    p.add("--txt-suffix", default="", help="suffix for ownership TXT names (may contain %%{record_type})")
    p.add("--txt-wildcard-replacement", default="", help="replacement for '*' in ownership TXT names")
    p.add("--txt-encrypt-enabled", type=bool, default=False, help="encrypt ownership TXT values (AES-256-GCM)")
    p.add("--txt-encrypt-aes-key", default="", secret=True,
          help="32-byte AES key, raw or standard base64")
    p.add("--txt-cache-interval", type=duration, default=0.0, help="cache TXT records for this long (0 = off)")
    p.add("--migrate-from-txt-owner", default="", help="old owner ID whose records are taken over")

    p.group("filters")
    p.add("--domain-filter", repeat=True, help="limit to these domains (repeatable)")
    p.add("--exclude-domains", repeat=True, help="exclude these domains (repeatable)")
    p.add("--regex-domain-filter", default="", help="limit to domains matching this regex")
    p.add("--regex-domain-exclusion", default="", help="exclude domains matching this regex")
    p.add("--managed-record-types", repeat=True, default=["A", "AAAA", "CNAME"],
          help="record types to manage (repeatable)")
    p.add("--exclude-record-types", repeat=True, help="record types never to manage (repeatable)")
    p.add("--create-ptr", type=bool, default=False, aliases=("--rfc2136-create-ptr",),
          help="also manage a PTR record for every A/AAAA record, in the managed reverse zones (needs PTR in "
               "--managed-record-types; the record-type annotation overrides it per object; "
               "--rfc2136-create-ptr is a deprecated alias)")

    p.group("run mode")
    # kingpin's --version: print the version and exit 0.
    p.parser.add_argument("--version", action="version", version=__version__, help="show the version and exit")
    p.add("--once", type=bool, default=False, help="run one sync and exit")
    p.add("--dry-run", type=bool, default=False, help="compute and show the plan, write nothing")
    p.add("--interval", type=duration, default=60.0, help="interval between full syncs")

    p.group("logging")
    p.add("--log-level", default="info", choices=LOG_LEVELS, help="log level")
    p.add("--log-format", default="text", help="log format: text or json")


@flag_group
class CoreFlags(FlagGroup):
    """What runs: sources, provider, policy, registry, run mode."""

    source_names: tuple[str, ...] = flag("--source")
    provider: str = flag("--provider")
    policy: str = flag("--policy")
    registry: str = flag("--registry")
    once: bool = flag("--once")
    dry_run: bool = flag("--dry-run")
    interval: float = flag("--interval")


@flag_group
class LogFlags(FlagGroup):
    """Log level and format."""

    level: str = flag("--log-level")
    format: str = flag("--log-format")


@flag_group
class TXTFlags(FlagGroup):
    """The TXT registry's ownership records (also read by the DynamoDB registry)."""

    owner_id: str = flag("--txt-owner-id")
    prefix: str = flag("--txt-prefix")
    suffix: str = flag("--txt-suffix")
    wildcard_replacement: str = flag("--txt-wildcard-replacement")
    encrypt_enabled: bool = flag("--txt-encrypt-enabled")
    encrypt_aes_key: str = flag("--txt-encrypt-aes-key", secret=True)
    cache_interval: float = flag("--txt-cache-interval")
    migrate_from_owner: str = flag("--migrate-from-txt-owner")


@flag_group
class FilterFlags(FlagGroup):
    """Which names and record types are managed."""

    domain_filter: tuple[str, ...] = flag("--domain-filter")
    exclude_domains: tuple[str, ...] = flag("--exclude-domains")
    regex_domain_filter: str = flag("--regex-domain-filter")
    regex_domain_exclusion: str = flag("--regex-domain-exclusion")
    managed_record_types: tuple[str, ...] = flag("--managed-record-types")
    exclude_record_types: tuple[str, ...] = flag("--exclude-record-types")
    create_ptr: bool = flag("--create-ptr")


def validate(cfg: Config) -> None:
    core, txt = cfg.core, cfg.txt
    if cfg.log.format not in ("text", "json"):
        raise ConfigError(f"unsupported log format: {cfg.log.format}")
    if not core.policy:
        raise ConfigError("--policy must be set explicitly (one of: sync, upsert-only, create-only)")
    if core.policy not in POLICIES:
        raise ConfigError(f"unknown policy: {core.policy}")
    if not core.source_names:
        raise ConfigError("no sources specified")
    if not core.provider:
        raise ConfigError("no provider specified")
    if txt.prefix and txt.suffix:
        raise ConfigError("txt-prefix and txt-suffix are mutual exclusive")
    if txt.prefix or txt.suffix or txt.wildcard_replacement:
        from external_dns.registry.admission import affix_problem  # lazy: keeps flag parsing light

        problem = affix_problem(txt.prefix, txt.suffix, txt.wildcard_replacement)
        if problem is not None:
            raise ConfigError(problem)
    if core.registry in ("txt", "dynamodb") and not txt.owner_id:
        raise ConfigError("owner id cannot be empty")
    if cfg.filters.create_ptr and "PTR" not in [t.upper() for t in cfg.filters.managed_record_types]:
        raise ConfigError("--create-ptr requires PTR in --managed-record-types")
    if core.interval <= 0 and not core.once:
        raise ConfigError(f"--interval must be positive, got {core.interval}")
