"""The core flags (sources, provider, policy, registry, TXT ownership, filters, run mode, logging): external-dns
names and defaults, the environment, and the start-up checks that name the flag (policy and sources required,
owner ids that fit an ownership TXT value, known record types, --create-ptr needing PTR, a positive interval)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_core import MAX_OWNER_ID, check_owner_id

SOURCE = ["--source=manifest", "--manifest-dir=/nonexistent"]
BASE = [*SOURCE, "--provider=inmemory", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    cfg = parse_config(BASE, {})
    assert cfg.core.registry == "txt" and cfg.core.interval == 60.0
    assert cfg.core.once is False and cfg.core.dry_run is False
    assert cfg.txt.owner_id == "default" and (cfg.txt.prefix, cfg.txt.suffix) == ("", "")
    assert cfg.txt.encrypt_enabled is False and cfg.txt.cache_interval == 0.0
    assert cfg.filters.managed_record_types == ("A", "AAAA", "CNAME") and cfg.filters.create_ptr is False
    assert (cfg.log.level, cfg.log.format) == ("info", "text")


def test_flags_parse_into_the_typed_config() -> None:
    _parser, cfg = load_config(["--source=manifest", "--source=service", "--manifest-dir=/nonexistent",
                                "--provider=inmemory", "--policy=upsert-only", "--registry=noop", "--once",
                                "--dry-run", "--interval=2m", "--txt-owner-id=team-a", "--txt-prefix=_own.",
                                "--domain-filter=example.org", "--exclude-domains=int.example.org",
                                "--managed-record-types=A", "--managed-record-types=PTR",
                                "--rfc2136-create-ptr", "--log-level=debug", "--log-format=json"], environ={})
    assert cfg.core.source_names == ("manifest", "service") and cfg.core.policy == "upsert-only"
    assert cfg.core.registry == "noop" and cfg.core.once and cfg.core.dry_run and cfg.core.interval == 120.0
    assert cfg.txt.owner_id == "team-a" and cfg.txt.prefix == "_own."
    assert cfg.filters.domain_filter == ("example.org",) and cfg.filters.exclude_domains == ("int.example.org",)
    assert cfg.filters.managed_record_types == ("A", "PTR") and cfg.filters.create_ptr is True
    assert (cfg.log.level, cfg.log.format) == ("debug", "json")


def test_environment_sets_flags() -> None:
    _parser, cfg = load_config(["--manifest-dir=/nonexistent"], environ={
        "EXTERNAL_DNS_SOURCE": "manifest", "EXTERNAL_DNS_PROVIDER": "inmemory", "EXTERNAL_DNS_POLICY": "sync",
        "EXTERNAL_DNS_TXT_OWNER_ID": "from-env", "EXTERNAL_DNS_DOMAIN_FILTER": "a.example,b.example"})
    assert cfg.core.source_names == ("manifest",) and cfg.core.provider == "inmemory"
    assert cfg.txt.owner_id == "from-env" and cfg.filters.domain_filter == ("a.example", "b.example")


@pytest.mark.parametrize(("args", "message"), [
    ([*SOURCE, "--provider=inmemory"], "--policy must be set explicitly"),
    ([*SOURCE, "--provider=inmemory", "--policy=upsert"], "--policy: unknown policy 'upsert'"),
    (["--provider=inmemory", "--policy=sync"], "--source must be set"),
    ([*SOURCE, "--policy=sync"], "--provider must be set"),
    ([*BASE, "--txt-prefix=a.", "--txt-suffix=.b"], "txt-prefix and txt-suffix are mutual exclusive"),
    ([*BASE, "--txt-owner-id="], "--txt-owner-id: owner id cannot be empty"),
    ([*BASE, "--txt-owner-id=a,external-dns/owner=b"], "--txt-owner-id: owner id .* holds ','"),
    ([*BASE, "--migrate-from-txt-owner=o\"ld"], "--migrate-from-txt-owner: owner id"),
    ([*BASE, "--managed-record-types=BOGUS"], "--managed-record-types: unknown record type 'BOGUS'"),
    ([*BASE, "--exclude-record-types=a"], "--exclude-record-types: unknown record type 'a'"),
    ([*BASE, "--create-ptr"], "--create-ptr requires PTR in --managed-record-types"),
    ([*BASE, "--interval=0s"], "--interval must be positive"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(args, environ={})


def test_a_zero_interval_is_fine_with_once() -> None:
    _parser, cfg = load_config([*BASE, "--once", "--interval=0s"], environ={})
    assert cfg.core.once and cfg.core.interval == 0.0


def test_noop_registry_needs_no_owner_id() -> None:
    _parser, cfg = load_config([*BASE, "--registry=noop", "--txt-owner-id="], environ={})
    assert cfg.core.registry == "noop"


def test_owner_id_length_is_what_fits_one_txt_string() -> None:
    check_owner_id("--txt-owner-id", "x" * MAX_OWNER_ID)
    with pytest.raises(ConfigError, match=f"at most {MAX_OWNER_ID} fit"):
        check_owner_id("--txt-owner-id", "x" * (MAX_OWNER_ID + 1))
    value = "heritage=external-dns,external-dns/owner=" + "x" * MAX_OWNER_ID + ",external-dns/resource="
    assert len(value) == 255


def test_unknown_registry_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse([*BASE, "--registry=etcd"], environ={})
    assert exited.value.code == 2 and "--registry" in capsys.readouterr().err
