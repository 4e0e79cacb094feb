"""The `--google-*` flags: external-dns names and defaults, the environment, and the checks run when
`--provider=google`."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=google", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    google = parse_config(BASE, {}).google
    assert google.project == "" and google.batch_change_size == 1000 and google.batch_change_interval == 1.0
    assert google.zone_visibility == "" and google.api_endpoint == ""


def test_flags_parse_into_the_typed_config() -> None:
    google = parse_config([*BASE, "--google-project=proj", "--google-batch-change-size=10",
                           "--google-batch-change-interval=3s", "--google-zone-visibility=private",
                           "--google-api-endpoint=http://127.0.0.1:9/"], {}).google
    assert (google.project, google.batch_change_size, google.batch_change_interval) == ("proj", 10, 3.0)
    assert google.zone_visibility == "private" and google.api_endpoint == "http://127.0.0.1:9/"


def test_environment_sets_flags() -> None:
    google = parse_config(BASE, {"EXTERNAL_DNS_GOOGLE_PROJECT": "env-proj",
                                 "EXTERNAL_DNS_GOOGLE_ZONE_VISIBILITY": "public"}).google
    assert google.project == "env-proj" and google.zone_visibility == "public"


@pytest.mark.parametrize(("args", "message"), [
    (["--google-batch-change-size=0"], "--google-batch-change-size must be at least 1, got 0"),
    (["--google-api-endpoint=dns.googleapis.com"], "--google-api-endpoint must be an http:// or https:// URL"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_unknown_zone_visibility_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse([*BASE, "--google-zone-visibility=internal"], environ={})
    assert exited.value.code == 2 and "--google-zone-visibility" in capsys.readouterr().err
