"""The `--aws-*`, `--zone-id-filter` and `--dynamodb-*` flags: external-dns names and defaults, validation,
the secret masked in the start-up config line, and the provider built from flags alone."""

from __future__ import annotations

import pytest

from external_dns.cmd.build_providers import build_aws
from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.providers.aws import AWSConfig

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=aws", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    cfg = parse_config(BASE, {})
    assert cfg.aws.zone_id_filter == () and cfg.aws.zone_type == "" and cfg.aws.zone_tags == ()
    assert (cfg.aws.batch_change_size, cfg.aws.batch_change_size_bytes, cfg.aws.batch_change_size_values) == (
        1000, 32000, 1000)
    assert cfg.aws.batch_change_interval == 1.0 and cfg.aws.evaluate_target_health is True
    assert cfg.aws.api_retries == 3 and cfg.aws.prefer_cname is False and cfg.aws.zones_cache_duration == 0.0
    assert cfg.aws.zone_match_parent is False and cfg.aws.profiles == () and cfg.aws.assume_role == ""
    assert cfg.dynamodb.table == "external-dns" and cfg.dynamodb.region == ""


def test_flags_reach_the_provider_config() -> None:
    _parser, cfg = load_config([*BASE, "--zone-id-filter=Z1", "--zone-id-filter=Z2", "--aws-zone-type=private",
                                "--aws-zone-tags=team=a", "--aws-batch-change-size=10", "--aws-batch-change-interval=2s",
                                "--no-aws-evaluate-target-health", "--aws-prefer-cname",
                                "--aws-zones-cache-duration=1m", "--domain-filter=example.com"], environ={})
    config = build_aws(cfg).config
    assert config.zone_id_filter == ["Z1", "Z2"] and config.zone_type == "private"
    assert config.zone_tags == ["team=a"] and config.batch_change_size == 10
    assert config.batch_change_interval == 2.0 and config.evaluate_target_health is False
    assert config.prefer_cname is True and config.zones_cache_duration == 60.0
    assert config.domain_filter.match("www.example.com") and not config.domain_filter.match("www.example.org")


def test_environment_sets_flags() -> None:
    _parser, cfg = load_config(BASE, environ={"EXTERNAL_DNS_AWS_BATCH_CHANGE_SIZE": "5",
                                              "EXTERNAL_DNS_ZONE_ID_FILTER": "Z1,Z2"})
    assert cfg.aws.batch_change_size == 5 and cfg.aws.zone_id_filter == ("Z1", "Z2")


@pytest.mark.parametrize(("args", "message"), [
    (["--aws-batch-change-size=0"], "--aws-batch-change-size must be at least 1"),
    (["--aws-batch-change-size-values=0"], "--aws-batch-change-size-values must be at least 1"),
    (["--aws-api-retries=0"], "--aws-api-retries must be at least 1"),
    (["--aws-zone-tags==x"], "--aws-zone-tags: invalid tag"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_bad_zone_type_is_refused() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse([*BASE, "--aws-zone-type=secret"], environ={})


def test_external_id_is_masked() -> None:
    parser = build_parser()
    cfg = parse_config([*BASE, "--aws-assume-role-external-id=hush-123"], {}, parser)
    assert "hush-123" not in repr(cfg)
    masked = parser.masked(cfg)
    assert masked["aws_assume_role_external_id"] == "******"
    assert "hush-123" not in repr(AWSConfig(assume_role_external_id="hush-123"))
