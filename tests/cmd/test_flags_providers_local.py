"""The inmemory and zonefile provider flags and `--provider-cache-time`: parsing, the environment, and the
checks (a zonefile provider needs its directory; a zone to create must be a valid name)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config, parse_config
from external_dns.cmd.flags import ConfigError

SOURCE = ["--source=manifest", "--manifest-dir=/nonexistent", "--policy=sync"]


def test_defaults() -> None:
    local = parse_config([*SOURCE, "--provider=inmemory"], {}).local
    assert local.inmemory_zones == () and local.zonefile_dir == "" and local.zonefile_create_zones == ()
    assert local.provider_cache_time == 0.0


def test_flags_parse_into_the_typed_config() -> None:
    _parser, cfg = load_config([*SOURCE, "--provider=zonefile", "--zonefile-dir=/tmp/zones",
                                "--zonefile-create-zone=example.org", "--zonefile-create-zone=example.net",
                                "--inmemory-zone=a.test", "--provider-cache-time=1m30s"], environ={})
    local = cfg.local
    assert local.zonefile_dir == "/tmp/zones" and local.zonefile_create_zones == ("example.org", "example.net")
    assert local.inmemory_zones == ("a.test",) and local.provider_cache_time == 90.0


def test_environment_sets_flags() -> None:
    local = parse_config([*SOURCE, "--provider=zonefile"], {"EXTERNAL_DNS_ZONEFILE_DIR": "/env/zones",
                                                            "EXTERNAL_DNS_INMEMORY_ZONE": "a.test,b.test"}).local
    assert local.zonefile_dir == "/env/zones" and local.inmemory_zones == ("a.test", "b.test")


@pytest.mark.parametrize(("args", "message"), [
    (["--provider=zonefile"], "--zonefile-dir must be set for --provider=zonefile"),
    (["--provider=inmemory", "--provider-cache-time=-1s"], "--provider-cache-time must not be negative, got -1s"),
    (["--provider=zonefile", "--zonefile-dir=/tmp/z", "--zonefile-create-zone=../etc"],
     "--zonefile-create-zone: invalid"),
    (["--provider=zonefile", "--zonefile-dir=/tmp/z", "--zonefile-create-zone=a/b.example"],
     "--zonefile-create-zone: invalid"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*SOURCE, *args], environ={})
