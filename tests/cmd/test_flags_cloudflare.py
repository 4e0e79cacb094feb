"""The `--cloudflare-*`, `--batch-change-size` and `--batch-change-interval` flags: external-dns names and
defaults, the environment, and the checks run when `--provider=cloudflare`."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=cloudflare", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    cf = parse_config(BASE, {}).cloudflare
    assert cf.proxied is False and cf.per_page == 100 and cf.comment == ""
    assert cf.regional_services is False and cf.region_key == ""
    assert cf.batch_change_size == 200 and cf.batch_change_interval == 1.0


def test_flags_parse_into_the_typed_config() -> None:
    cf = parse_config([*BASE, "--cloudflare-proxied", "--cloudflare-dns-records-per-page=5000",
                       "--cloudflare-record-comment=owned by dns", "--cloudflare-regional-services",
                       "--cloudflare-region-key=eu", "--batch-change-size=300", "--batch-change-interval=500ms"],
                      {}).cloudflare
    assert cf.proxied is True and cf.per_page == 5000 and cf.comment == "owned by dns"
    assert cf.regional_services is True and cf.region_key == "eu"
    assert cf.batch_change_size == 300 and cf.batch_change_interval == 0.5


def test_environment_sets_flags() -> None:
    cf = parse_config(BASE, {"EXTERNAL_DNS_CLOUDFLARE_PROXIED": "true",
                             "EXTERNAL_DNS_CLOUDFLARE_DNS_RECORDS_PER_PAGE": "250"}).cloudflare
    assert cf.proxied is True and cf.per_page == 250


@pytest.mark.parametrize(("args", "message"), [
    (["--cloudflare-dns-records-per-page=0"], "--cloudflare-dns-records-per-page must be between 1 and 5000, got 0"),
    (["--cloudflare-dns-records-per-page=5001"], "--cloudflare-dns-records-per-page must be between 1 and 5000"),
    (["--batch-change-size=0"], "--batch-change-size must be at least 1, got 0"),
    (["--batch-change-interval=-1s"], "--batch-change-interval must not be negative"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})
