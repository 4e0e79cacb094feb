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

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.controller.progress import MODES
from external_dns.durations import format_go_duration as go
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

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


class _DefaultBatchSize(int):
    """The built-in `--apply-batch-size` value: an int that tells "not given" apart from an explicit 1000
    (a value from the command line or the environment is a plain int)."""


DEFAULT_APPLY_BATCH_SIZE = _DefaultBatchSize(1000)


def apply_batch_size_given(cfg: Config) -> bool:
    """True when `--apply-batch-size` (or EXTERNAL_DNS_APPLY_BATCH_SIZE) was set, even to the default."""
    return not isinstance(cfg.plan_output.apply_batch_size, _DefaultBatchSize)


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
          help="apply plans that fail the safety checks (thresholds, root NS changes, a plan deleting every "
               "record we own in a zone)")

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
               "when not given, pdns sends a whole zone per call; zonefile always does (one write per zone)")


@flag_group
class SafetyFlags(FlagGroup):
    """Plan safety: thresholds and --force."""

    update_threshold: float = flag("--update-threshold")
    delete_threshold: float = flag("--delete-threshold")
    min_existing_records: int = flag("--min-existing-records")
    zone_threshold: tuple[str, ...] = flag("--zone-threshold")
    force: bool = flag("--force")


@flag_group
class PlanOutputFlags(FlagGroup):
    """Plan outputs, the plan file and apply progress."""

    formats: tuple[str, ...] = flag("--plan-output")
    files: tuple[str, ...] = flag("--plan-output-file")
    plan_file: str = flag("--plan-file")
    progress: str = flag("--progress")
    progress_interval: float = flag("--progress-interval")
    apply_batch_size: int = flag("--apply-batch-size")


def _rejoin(values: tuple[str, ...]) -> list[str]:
    """Repeatable flags split on commas; put `update:…,delete:…` pieces back onto their `ZONE=` value."""
    out: list[str] = []
    for piece in values:
        if "=" not in piece and out:
            out[-1] = f"{out[-1]},{piece}"
        else:
            out.append(piece)
    return out


def zone_thresholds(cfg: Config) -> dict[str, ZoneThreshold]:
    out: dict[str, ZoneThreshold] = {}
    for text in _rejoin(cfg.safety.zone_threshold):
        try:
            zone, threshold = parse_zone_threshold(text)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if zone in out:
            raise ConfigError(f"--zone-threshold: zone {zone!r} given twice")
        out[zone] = threshold
    return out


def safety_config(cfg: Config) -> SafetyConfig:
    """The SafetyConfig the flags describe; ConfigError naming a bad flag value."""
    safety = cfg.safety
    for name, value in (("--update-threshold", safety.update_threshold),
                        ("--delete-threshold", safety.delete_threshold)):
        try:
            check_fraction(value, name)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if safety.min_existing_records < 0:
        raise ConfigError(f"--min-existing-records must not be negative, got {safety.min_existing_records}")
    return SafetyConfig(update=safety.update_threshold, delete=safety.delete_threshold,
                        min_existing=safety.min_existing_records, zones=zone_thresholds(cfg), force=safety.force)


def plan_output_files(cfg: Config) -> dict[str, str]:
    """`--plan-output-file` as FORMAT -> PATH; ConfigError naming a malformed value."""
    out: dict[str, str] = {}
    for text in cfg.plan_output.files:
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


def validate(cfg: Config) -> None:
    safety_config(cfg)
    plan_output_files(cfg)
    output = cfg.plan_output
    if output.progress_interval < 0:
        raise ConfigError(f"--progress-interval must not be negative, got {go(output.progress_interval)}")
    if output.apply_batch_size < 0:
        raise ConfigError(f"--apply-batch-size must not be negative, got {output.apply_batch_size}")
