"""Plan safety, plan output and apply-progress flags.

* `--update-threshold`, `--delete-threshold` (fractions in [0, 1], default 0.3), `--min-existing-records`
  (default 10), `--zone-threshold ZONE=update:0.2,delete:0.1` (repeatable; precedence over the global
  thresholds for that zone), `--force` (skip the safety checks);
* `--plan-output` (repeatable: log, markdown, html, json; default log) and `--plan-output-file
  FORMAT=PATH` (repeatable; writes that format to PATH, and implies it);
* `--plan-file PATH` (the `plan` sub-command writes the two-phase plan file there);
* `--progress` (auto, bar, log, none), `--progress-interval` (seconds between progress log lines) and
  `--apply-batch-size` (changes per provider call in `--once`/`apply`; 0 = a whole zone at once; when it is
  not given, a provider's `preferred_apply_batch_size` replaces the default: `apply_batch_size_given`).

`safety_config(cfg)` and `plan_output_files(cfg)` turn the flags into objects; both raise ConfigError
naming the flag and the value, and `validate` calls them so bad values stop the start-up.
"""

from __future__ import annotations

import argparse

from external_dns.cmd.flags import ConfigError, FlagParser, duration
from external_dns.controller.progress import MODES
from external_dns.plan.output import FORMATS
from external_dns.plan.safety import (
    DEFAULT_DELETE_THRESHOLD,
    DEFAULT_MIN_EXISTING_RECORDS,
    DEFAULT_UPDATE_THRESHOLD,
    SafetyConfig,
    ZoneThreshold,
    check_fraction,
    parse_zone_threshold,
)


class _DefaultBatchSize(int):
    """The built-in `--apply-batch-size` value: an int that tells "not given" apart from an explicit 1000
    (a value from the command line or the environment is a plain int)."""


DEFAULT_APPLY_BATCH_SIZE = _DefaultBatchSize(1000)


def apply_batch_size_given(cfg: argparse.Namespace) -> bool:
    """True when `--apply-batch-size` (or EXTERNAL_DNS_APPLY_BATCH_SIZE) was set, even to the default."""
    return not isinstance(getattr(cfg, "apply_batch_size", DEFAULT_APPLY_BATCH_SIZE), _DefaultBatchSize)


def add_flags(p: FlagParser) -> None:
    p.group("plan safety")
    p.add("--update-threshold", type=float, default=DEFAULT_UPDATE_THRESHOLD,
          help="refuse a zone's plan whose updates exceed this fraction of its existing owned records")
    p.add("--delete-threshold", type=float, default=DEFAULT_DELETE_THRESHOLD,
          help="refuse a zone's plan whose deletes exceed this fraction of its existing owned records")
    p.add("--min-existing-records", type=int, default=DEFAULT_MIN_EXISTING_RECORDS,
          help="zones with fewer existing owned records are not percentage-checked")
    p.add("--zone-threshold", repeat=True, metavar="ZONE=update:F,delete:F",
          help="per-zone thresholds, taking precedence over the global ones (repeatable)")
    p.add("--force", type=bool, default=False,
          help="apply plans that fail the safety checks (thresholds, root NS changes)")

    p.group("plan output")
    p.add("--plan-output", repeat=True, default=["log"], choices=FORMATS,
          help="how the plan is shown before it is checked and applied (repeatable)")
    p.add("--plan-output-file", repeat=True, metavar="FORMAT=PATH",
          help="write a plan output to a file instead of the log/stdout (repeatable)")
    p.add("--plan-file", default="", help="`plan` sub-command: write the plan to apply later to this file")
    p.add("--progress", default="auto", choices=MODES,
          help="apply progress: a bar on a terminal, log lines otherwise (auto), or forced")
    p.add("--progress-interval", type=duration, default=10.0, help="minimum time between progress log lines")
    p.add("--apply-batch-size", type=int, default=DEFAULT_APPLY_BATCH_SIZE,
          help="changes sent to the provider per call when applying a plan (0 = a whole zone at once); "
               "when not given, pdns sends a whole zone per call")


def _rejoin(values: list[str]) -> list[str]:
    """Repeatable flags split on commas; put `update:…,delete:…` pieces back onto their `ZONE=` value."""
    out: list[str] = []
    for piece in values:
        if "=" not in piece and out:
            out[-1] = f"{out[-1]},{piece}"
        else:
            out.append(piece)
    return out


def zone_thresholds(cfg: argparse.Namespace) -> dict[str, ZoneThreshold]:
    out: dict[str, ZoneThreshold] = {}
    for text in _rejoin(list(getattr(cfg, "zone_threshold", None) or [])):
        try:
            zone, threshold = parse_zone_threshold(text)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if zone in out:
            raise ConfigError(f"--zone-threshold: zone {zone!r} given twice")
        out[zone] = threshold
    return out


def safety_config(cfg: argparse.Namespace) -> SafetyConfig:
    """The SafetyConfig the flags describe; ConfigError naming a bad flag value."""
    update = getattr(cfg, "update_threshold", DEFAULT_UPDATE_THRESHOLD)
    delete = getattr(cfg, "delete_threshold", DEFAULT_DELETE_THRESHOLD)
    min_existing = getattr(cfg, "min_existing_records", DEFAULT_MIN_EXISTING_RECORDS)
    for flag, value in (("--update-threshold", update), ("--delete-threshold", delete)):
        try:
            check_fraction(value, flag)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if min_existing < 0:
        raise ConfigError(f"--min-existing-records must not be negative, got {min_existing}")
    return SafetyConfig(update=update, delete=delete, min_existing=min_existing, zones=zone_thresholds(cfg),
                        force=bool(getattr(cfg, "force", False)))


def plan_output_files(cfg: argparse.Namespace) -> dict[str, str]:
    """`--plan-output-file` as FORMAT -> PATH; ConfigError naming a malformed value."""
    out: dict[str, str] = {}
    for text in getattr(cfg, "plan_output_file", None) or []:
        fmt, sep, path = text.partition("=")
        fmt = fmt.strip().lower()
        if not sep or not path.strip():
            raise ConfigError(f"--plan-output-file {text!r}: expected FORMAT=PATH (FORMAT one of: {', '.join(FORMATS)})")
        if fmt not in FORMATS:
            raise ConfigError(f"--plan-output-file {text!r}: unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
        if fmt in out:
            raise ConfigError(f"--plan-output-file: format {fmt!r} given twice")
        out[fmt] = path.strip()
    return out


def validate(cfg: argparse.Namespace) -> None:
    safety_config(cfg)
    plan_output_files(cfg)
    if cfg.progress_interval < 0:
        raise ConfigError(f"--progress-interval must not be negative, got {cfg.progress_interval}")
    if cfg.apply_batch_size < 0:
        raise ConfigError(f"--apply-batch-size must not be negative, got {cfg.apply_batch_size}")
