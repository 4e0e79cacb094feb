"""The plan safety, plan output and apply-progress flags: defaults, the environment, `--zone-threshold` values
rejoined after comma splitting, `--plan-output-file FORMAT=PATH`, whether `--apply-batch-size` was given, and
the errors naming the flag."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_safety import apply_batch_size_given, plan_output_files, safety_config

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory", "--policy=sync"]


def test_defaults() -> None:
    cfg = parse_config(BASE, {})
    safety = safety_config(cfg)
    assert (safety.update, safety.delete, safety.min_existing, safety.force) == (0.3, 0.3, 10, False)
    assert dict(safety.zones) == {}
    assert cfg.plan_output.formats == ("log",) and plan_output_files(cfg) == {}
    assert cfg.plan_output.progress == "auto" and cfg.plan_output.progress_interval == 10.0
    assert cfg.plan_output.apply_batch_size == 1000 and not apply_batch_size_given(cfg)


def test_flags_reach_the_safety_config() -> None:
    _parser, cfg = load_config([*BASE, "--update-threshold=0.5", "--delete-threshold=0.1",
                                "--min-existing-records=0", "--force",
                                "--zone-threshold=example.org=update:0.2,delete:0.05",
                                "--zone-threshold=example.net=delete:1"], environ={})
    safety = safety_config(cfg)
    assert (safety.update, safety.delete, safety.min_existing, safety.force) == (0.5, 0.1, 0, True)
    assert set(safety.zones) == {"example.org", "example.net"}
    assert (safety.zones["example.org"].update, safety.zones["example.org"].delete) == (0.2, 0.05)
    assert (safety.zones["example.net"].update, safety.zones["example.net"].delete) == (None, 1.0)


def test_zone_threshold_from_the_environment_is_rejoined() -> None:
    cfg = parse_config(BASE, {"EXTERNAL_DNS_ZONE_THRESHOLD": "example.org=update:0.2,delete:0.1"})
    zone = safety_config(cfg).zones["example.org"]
    assert (zone.update, zone.delete) == (0.2, 0.1)


def test_plan_output_files_by_format() -> None:
    cfg = parse_config([*BASE, "--plan-output-file=json=/tmp/plan.json", "--plan-output-file=Markdown= p.md "], {})
    assert plan_output_files(cfg) == {"json": "/tmp/plan.json", "markdown": "p.md"}


@pytest.mark.parametrize(("args", "given"), [
    ([], False), (["--apply-batch-size=1000"], True), (["--apply-batch-size=0"], True)])
def test_apply_batch_size_given_tells_an_explicit_default_apart(args: list[str], given: bool) -> None:
    assert apply_batch_size_given(parse_config([*BASE, *args], {})) is given


def test_apply_batch_size_from_the_environment_counts_as_given() -> None:
    cfg = parse_config(BASE, {"EXTERNAL_DNS_APPLY_BATCH_SIZE": "1000"})
    assert cfg.plan_output.apply_batch_size == 1000 and apply_batch_size_given(cfg)


@pytest.mark.parametrize(("args", "message"), [
    (["--update-threshold=1.5"], "--update-threshold"),
    (["--delete-threshold=-0.1"], "--delete-threshold"),
    (["--min-existing-records=-1"], "--min-existing-records must not be negative, got -1"),
    (["--zone-threshold=example.org=update:0.1", "--zone-threshold=example.org=delete:0.1"],
     "--zone-threshold: zone 'example.org' given twice"),
    (["--zone-threshold=example.org=sideways:0.1"], "sideways"),
    (["--plan-output-file=json"], "--plan-output-file 'json': expected FORMAT=PATH"),
    (["--plan-output-file=yaml=/tmp/p"], "--plan-output-file 'yaml=/tmp/p': unknown format 'yaml'"),
    (["--plan-output-file=json=a", "--plan-output-file=json=b"], "--plan-output-file: format 'json' given twice"),
    (["--progress-interval=-1s"], "--progress-interval must not be negative, got -1s"),
    (["--apply-batch-size=-1"], "--apply-batch-size must not be negative, got -1"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})
