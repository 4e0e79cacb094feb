"""DNSRecord controller flags (`--source=dnsrecord`), each also settable from the environment
(`EXTERNAL_DNS_MIN_REQUEUE_TIME`, `EXTERNAL_DNS_REQUEUE_TIME`, `EXTERNAL_DNS_VALID_FOR`,
`EXTERNAL_DNS_WRITE_COUNTER_LIMIT`, `EXTERNAL_DNS_DNSRECORD_WORKERS`):

* `--min-requeue-time` (5s): the validation requeue after a write, randomised +/- 50 %;
* `--requeue-time` (15m): the next reconcile after a successful validation;
* `--valid-for` (14m): how long a validated record is not re-read from the provider;
* `--write-counter-limit` (20): consecutive writes of one generation before giving up;
* `--dnsrecord-workers` (2): reconcile threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.controller.dnsrecord.defaults import (
    DEFAULT_MIN_REQUEUE_TIME,
    DEFAULT_REQUEUE_TIME,
    DEFAULT_VALID_FOR,
    DEFAULT_WRITE_COUNTER_LIMIT,
)
from external_dns.durations import format_go_duration as go

if TYPE_CHECKING:
    from external_dns.cmd.config import Config


def add_flags(p: FlagParser) -> None:
    p.group("DNSRecord controller (--source=dnsrecord)")
    p.add("--min-requeue-time", type=duration, default=DEFAULT_MIN_REQUEUE_TIME,
          help="validation requeue after a write to the provider (randomised +/- 50 percent)")
    p.add("--requeue-time", type=duration, default=DEFAULT_REQUEUE_TIME,
          help="duration between a successful validation and the next reconcile of a DNSRecord")
    p.add("--valid-for", type=duration, default=DEFAULT_VALID_FOR,
          help="duration a validated DNSRecord is considered to hold valid information (no provider reads)")
    p.add("--write-counter-limit", type=int, default=DEFAULT_WRITE_COUNTER_LIMIT,
          help="consecutive writes to the provider for one generation of a DNSRecord before giving up")
    p.add("--dnsrecord-workers", type=int, default=2, help="DNSRecord reconcile threads")


@flag_group
class DNSRecordFlags(FlagGroup):
    """The DNSRecord controller's timings and workers."""

    min_requeue_time: float = flag("--min-requeue-time")
    requeue_time: float = flag("--requeue-time")
    valid_for: float = flag("--valid-for")
    write_counter_limit: int = flag("--write-counter-limit")
    workers: int = flag("--dnsrecord-workers")


def validate(cfg: Config) -> None:
    rec = cfg.dnsrecord
    for name, value in (("--min-requeue-time", rec.min_requeue_time), ("--requeue-time", rec.requeue_time),
                        ("--valid-for", rec.valid_for)):
        if value <= 0:
            raise ConfigError(f"{name} must be greater than zero, got {go(value)}")
    if rec.write_counter_limit < 1:
        raise ConfigError(f"--write-counter-limit must be at least 1, got {rec.write_counter_limit}")
    if rec.workers < 1:
        raise ConfigError(f"--dnsrecord-workers must be at least 1, got {rec.workers}")
    if rec.min_requeue_time > rec.requeue_time:
        raise ConfigError(f"--min-requeue-time ({go(rec.min_requeue_time)}) must not exceed --requeue-time "
                          f"({go(rec.requeue_time)})")
