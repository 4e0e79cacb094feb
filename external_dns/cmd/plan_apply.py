"""The two-phase sub-commands. `external-dns plan [plan.json] [flags]` (or `--plan-file plan.json`) is
`--once --dry-run` that also writes the plan file. `external-dns apply plan.json [flags]` takes the same provider/registry
flags (`--source` is not needed; `--policy`, when given, is honoured: it can only leave changes of the plan out),
verifies the file (readable, untampered, same owner ID, provider and registry) and applies it through
controller/once.py. Exit codes: controller/once.py."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence

import structlog

from external_dns.cmd.config import Config
from external_dns.cmd.run import run_once_safely
from external_dns.cmd.usage import APPLY, PLAN
from external_dns.cmd.wiring import build_registry, install_safety_gate, once_options
from external_dns.controller.once import (
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STALE_PLAN,
    EXIT_UNSAFE_PLAN,
    apply_plan,
)
from external_dns.errors import ConfigError, error_text
from external_dns.logging_setup import configure_logging
from external_dns.plan import planfile
from external_dns.plan.policy import get_policy

__all__ = ["EXIT_CONFIG", "EXIT_FAILED", "EXIT_OK", "EXIT_STALE_PLAN", "EXIT_UNSAFE_PLAN", "apply_main",
           "install_safety_gate", "plan_main", "run_once_safely"]

log = structlog.get_logger(__name__)


def _error(message: str) -> int:
    print(f"external-dns: error: {message}", file=sys.stderr, flush=True)
    return EXIT_CONFIG


def plan_main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """`external-dns plan [PLAN_FILE] [flags]`: the `--once --dry-run` sync that writes the plan file (the
    first word, as `apply PLAN_FILE` takes it, or `--plan-file`)."""
    from external_dns.cmd.run import run

    args = list(argv)
    if args and not args[0].startswith("-"):
        args = [f"--plan-file={args[0]}", *args[1:]]
    # appended: a boolean flag the user gave last never takes them as its value, and ours win
    return run([*args, "--once", "--dry-run"], environ, PLAN)


def _load_apply_config(argv: Sequence[str], environ: Mapping[str, str] | None) -> tuple[dict[str, str], Config]:
    """The configuration, and the start-up `config` line's fields (the flags as given, before the ones apply
    never uses are filled in)."""
    from external_dns.cmd.config import build_parser, parse_config, validate

    parser = build_parser(APPLY)
    cfg = parse_config(argv, environ, parser)
    fields = parser.config_fields(cfg)
    # Sources and the policy made the plan; apply never uses them.
    core, sources = cfg.core, cfg.sources
    if not core.source_names:
        core = dataclasses.replace(core, source_names=("manifest",))
        sources = dataclasses.replace(sources, manifest_dir=sources.manifest_dir or "(not used by apply)")
    cfg = dataclasses.replace(cfg, core=dataclasses.replace(core, policy=core.policy or "sync", once=True),
                              sources=sources)
    validate(cfg)
    return fields, cfg


def honour_policy(plan: planfile.PlanFile, policy: str) -> None:
    """`apply --policy`: the plan's changes through that policy too (upsert-only drops its deletes,
    create-only its updates and deletes), each zone's, saying what is left out; it can only take away."""
    for zone, planned in sorted(plan.zones.items()):
        before = planned.changes
        after = get_policy(policy).apply(before)
        dropped = {kind: len(getattr(before, kind)) - len(getattr(after, kind))
                   for kind in ("create", "update_new", "delete")
                   if len(getattr(before, kind)) != len(getattr(after, kind))}
        if dropped:
            log.info(f"apply --policy={policy}: changes of the plan left out", zone=zone or "(all)", **dropped)
        planned.changes = after


def apply_main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """`external-dns apply PLAN_FILE [flags]`. Returns the exit code."""
    args = list(argv)
    if "-h" in args or "--help" in args:
        from external_dns.cmd.config import build_parser

        build_parser(APPLY).parser.print_help()
        return EXIT_OK
    if not args or args[0].startswith("-"):
        return _error("apply: the plan file is missing (usage: external-dns apply PLAN_FILE [flags])")
    path, rest = args[0], args[1:]
    try:
        fields, cfg = _load_apply_config(rest, environ)
        given_policy = fields.get("policy", "")  # only flags given are among the fields
    except ConfigError as exc:
        return _error(str(exc))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_CONFIG)
    try:
        configure_logging(cfg.log.level, cfg.log.format)
    except ValueError as exc:
        return _error(str(exc))
    log.info("config", **fields)  # the start-up line, as the other commands
    try:
        plan = planfile.load(path)
    except planfile.PlanFileError as exc:
        return _error(str(exc))
    if given_policy:
        honour_policy(plan, given_policy)
    try:
        registry = build_registry(cfg)
        options = once_options(cfg)
    except ConfigError as exc:
        return _error(str(exc))
    except Exception as exc:
        log.error(f"failed to start: {error_text(exc)}", error_type=type(exc).__name__)
        return EXIT_FAILED
    try:
        plan.check_identity(registry.owner_id(), cfg.core.provider)
        if plan.registry != cfg.core.registry:
            raise planfile.PlanFileError(f"plan file was made for registry {plan.registry!r}, not "
                                         f"{cfg.core.registry!r} (--registry)")
    except planfile.PlanFileError as exc:
        return _error(f"{path}: {exc}")
    return apply_plan(plan, path, registry, options)
