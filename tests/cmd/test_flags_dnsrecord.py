"""Flags of the DNSRecord controller: defaults as dns-operator, environment variables, validation."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.wiring import dnsrecord_options as options_from_config

BASE = ["--source=dnsrecord", "--provider=inmemory", "--policy=sync"]


def test_defaults() -> None:
    _, cfg = load_config(BASE, {})
    opts = options_from_config(cfg)
    assert (opts.min_requeue_time, opts.requeue_time, opts.valid_for, opts.write_counter_limit) == (5.0, 900.0,
                                                                                                   840.0, 20)
    assert cfg.dnsrecord.workers == 2


def test_flags_and_environment() -> None:
    _, cfg = load_config([*BASE, "--valid-for=1m", "--write-counter-limit=3"],
                         {"EXTERNAL_DNS_MIN_REQUEUE_TIME": "2s", "EXTERNAL_DNS_REQUEUE_TIME": "30m",
                          "EXTERNAL_DNS_VALID_FOR": "5m"})
    opts = options_from_config(cfg)
    assert (opts.min_requeue_time, opts.requeue_time, opts.valid_for, opts.write_counter_limit) == (2.0, 1800.0,
                                                                                                   60.0, 3)


@pytest.mark.parametrize(("args", "message"), [
    (["--min-requeue-time=0s"], "--min-requeue-time must be greater than zero"),
    (["--valid-for=-1m"], "--valid-for must be greater than zero"),
    (["--write-counter-limit=0"], "--write-counter-limit must be at least 1"),
    (["--min-requeue-time=20m", "--requeue-time=15m"], "--min-requeue-time (20m0s) must not exceed --requeue-time (15m0s)"),
    (["--dnsrecord-workers=0"], "--dnsrecord-workers must be at least 1"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config([*BASE, *args], {})
    assert message in str(err.value)


def test_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="EXTERNAL_DNS_VALID_FOR"):
        load_config(BASE, {"EXTERNAL_DNS_VALID_FOR": "soon"})
