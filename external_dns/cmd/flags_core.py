"""Core flags: sources, provider, policy, registry, TXT ownership, domain filters, record types, timing,
logging. Names and defaults follow external-dns (`pkg/apis/externaldns/types.go`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns import __version__
from external_dns.cmd.build import PROVIDER_BUILDERS, SOURCE_BUILDERS, check_name
from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group, one_of
from external_dns.durations import format_go_duration as go
from external_dns.endpoint.endpoint import KNOWN_RECORD_TYPES

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

POLICIES = ("sync", "upsert-only", "create-only")
REGISTRIES = ("txt", "noop", "dynamodb")
LOG_LEVELS = ("panic", "fatal", "error", "warning", "info", "debug", "trace")
LOG_FORMATS = ("text", "json")
# An owner id is written into every ownership TXT value, `heritage=external-dns,external-dns/owner=<id>,
# external-dns/resource=<object>`: with it, the fixed tokens fit in one 255-octet TXT character-string (the
# form every provider stores as written): 255 - 41 - 23.
MAX_OWNER_ID = 255 - len("heritage=external-dns,external-dns/owner=") - len(",external-dns/resource=")
# A `,` ends the owner label and starts another (`x,external-dns/owner=victim` would be read back as
# victim's), `"` and `\` change how the value is quoted; outside printable ASCII, providers re-encode.
_OWNER_ID_FORBIDDEN = frozenset(',"\\')


def add_flags(p: FlagParser) -> None:
    p.group("sources and provider")
    p.add("--source", repeat=True,
          help=f"source of desired endpoints (repeatable; one of: {', '.join(sorted(SOURCE_BUILDERS))})")
    p.add("--provider", default="", help=f"DNS provider (one of: {', '.join(sorted(PROVIDER_BUILDERS))})")
    p.add("--policy", default="", help=f"how changes are applied (required; one of: {', '.join(POLICIES)})")
    p.add("--registry", default="txt", choices=REGISTRIES, help="ownership registry")

    p.group("TXT registry")
    p.add("--txt-owner-id", default="default",
          help=f"owner ID written into ownership records (printable ASCII without , \" \\, at most {MAX_OWNER_ID} "
               "characters)")
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
          help=f"record types to manage (repeatable; one of: {', '.join(KNOWN_RECORD_TYPES)})")
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
    p.add("--log-format", default="text", choices=LOG_FORMATS, help="log format")


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
    if not core.policy:
        raise ConfigError("--policy must be set explicitly (one of: sync, upsert-only, create-only)")
    if core.policy not in POLICIES:
        raise ConfigError(f"--policy: unknown policy {core.policy!r} {one_of(core.policy, POLICIES)}")
    if not core.source_names:
        raise ConfigError(f"--source must be set (one of: {', '.join(sorted(SOURCE_BUILDERS))})")
    for name in core.source_names:
        if name:
            check_name(SOURCE_BUILDERS, "source", name)
    if not core.provider:
        raise ConfigError(f"--provider must be set (one of: {', '.join(sorted(PROVIDER_BUILDERS))})")
    check_name(PROVIDER_BUILDERS, "provider", core.provider)
    if txt.prefix and txt.suffix:
        raise ConfigError("--txt-prefix/--txt-suffix: txt-prefix and txt-suffix are mutual exclusive")
    if txt.prefix or txt.suffix or txt.wildcard_replacement:
        from external_dns.registry.admission import affix_problem  # lazy: keeps flag parsing light

        problem = affix_problem(txt.prefix, txt.suffix, txt.wildcard_replacement)
        if problem is not None:
            raise ConfigError(problem)
    if core.registry in ("txt", "dynamodb"):
        check_owner_id("--txt-owner-id", txt.owner_id)
    if txt.migrate_from_owner:
        check_owner_id("--migrate-from-txt-owner", txt.migrate_from_owner)
    for name, types in (("--managed-record-types", cfg.filters.managed_record_types),
                        ("--exclude-record-types", cfg.filters.exclude_record_types)):
        for rtype in types:
            if rtype and rtype not in KNOWN_RECORD_TYPES:  # `a` or `BOGUS` would manage nothing, silently
                raise ConfigError(f"{name}: unknown record type {rtype!r} {one_of(rtype, KNOWN_RECORD_TYPES)}")
    if cfg.filters.create_ptr and "PTR" not in [t.upper() for t in cfg.filters.managed_record_types]:
        raise ConfigError("--create-ptr requires PTR in --managed-record-types")
    if core.interval <= 0 and not core.once:
        raise ConfigError(f"--interval must be positive, got {go(core.interval)}")


def check_owner_id(name: str, owner_id: str) -> None:
    """ConfigError naming flag `name` when `owner_id` cannot be written into ownership records as it is."""
    if not owner_id:
        raise ConfigError(f"{name}: owner id cannot be empty")
    bad = sorted({c for c in owner_id if c in _OWNER_ID_FORBIDDEN or not " " <= c <= "~"})
    if bad:
        raise ConfigError(f"{name}: owner id {owner_id!r} holds {', '.join(repr(c) for c in bad)} (printable "
                          f"ASCII only, without , \" and \\)")
    if len(owner_id) > MAX_OWNER_ID:
        raise ConfigError(f"{name}: owner id is {len(owner_id)} characters long, at most {MAX_OWNER_ID} fit "
                          "in an ownership TXT record")
