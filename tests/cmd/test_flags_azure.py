"""The `--azure-*` and `--zone-name-filter` flags: external-dns names and defaults, the environment, and the
checks run when `--provider=azure`."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=azure", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    azure = parse_config(BASE, {}).azure
    assert azure.config_file == "/etc/kubernetes/azure.json"
    assert (azure.resource_group, azure.subscription_id, azure.user_assigned_identity_client_id) == ("", "", "")
    assert azure.zones_cache_duration == 0.0 and azure.max_retries == 3 and azure.zone_name_filter == ()


def test_flags_parse_into_the_typed_config() -> None:
    azure = parse_config([*BASE, "--azure-config-file=/tmp/a.json", "--azure-resource-group=rg",
                          "--azure-subscription-id=sub", "--azure-user-assigned-identity-client-id=cid",
                          "--azure-zones-cache-duration=2m", "--azure-maxretries-count=7",
                          "--zone-name-filter=a.example", "--zone-name-filter=b.example"], {}).azure
    assert (azure.config_file, azure.resource_group, azure.subscription_id) == ("/tmp/a.json", "rg", "sub")
    assert azure.user_assigned_identity_client_id == "cid" and azure.zones_cache_duration == 120.0
    assert azure.max_retries == 7 and azure.zone_name_filter == ("a.example", "b.example")


def test_environment_sets_flags() -> None:
    azure = parse_config(BASE, {"EXTERNAL_DNS_AZURE_RESOURCE_GROUP": "from-env",
                                "EXTERNAL_DNS_ZONE_NAME_FILTER": "a.example,b.example"}).azure
    assert azure.resource_group == "from-env" and azure.zone_name_filter == ("a.example", "b.example")


@pytest.mark.parametrize(("args", "message"), [
    (["--azure-config-file="], r"no Azure config file specified \(--azure-config-file\)"),
    (["--azure-zones-cache-duration=-1s"], "--azure-zones-cache-duration must not be negative"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_checks_apply_only_to_the_azure_provider() -> None:
    _parser, cfg = load_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory",
                                "--policy=sync", "--azure-config-file="], environ={})
    assert cfg.azure.config_file == ""
