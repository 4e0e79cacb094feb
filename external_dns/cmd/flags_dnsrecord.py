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

import argparse

from external_dns.cmd.flags import ConfigError, FlagParser, duration
from external_dns.controller.dnsrecord.defaults import (
    DEFAULT_MIN_REQUEUE_TIME,
    DEFAULT_REQUEUE_TIME,
    DEFAULT_VALID_FOR,
    DEFAULT_WRITE_COUNTER_LIMIT,
)


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


def validate(cfg: argparse.Namespace) -> None:
    for flag, attr in (("--min-requeue-time", "min_requeue_time"), ("--requeue-time", "requeue_time"),
                       ("--valid-for", "valid_for")):
        value = float(getattr(cfg, attr))
        if value <= 0:
            raise ConfigError(f"{flag} must be greater than zero, got {value:g}s")
    if int(cfg.write_counter_limit) < 1:
        raise ConfigError(f"--write-counter-limit must be at least 1, got {cfg.write_counter_limit}")
    if int(cfg.dnsrecord_workers) < 1:
        raise ConfigError(f"--dnsrecord-workers must be at least 1, got {cfg.dnsrecord_workers}")
    if float(cfg.min_requeue_time) > float(cfg.requeue_time):
        raise ConfigError(f"--min-requeue-time ({cfg.min_requeue_time:g}s) must not exceed --requeue-time "
                          f"({cfg.requeue_time:g}s)")
