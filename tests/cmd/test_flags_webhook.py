"""The `--webhook-provider-*` flags (external-dns names and defaults) and the webhook-server listen flags:
parsing, the environment, and the checks (timeouts, body cap, the provider URL)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=webhook", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    hook = parse_config(BASE, {}).webhook
    assert hook.url == "http://localhost:8888"
    assert (hook.read_timeout, hook.write_timeout) == (5.0, 10.0)
    assert (hook.read_header_timeout, hook.idle_timeout) == (5.0, 30.0)
    assert hook.max_body_size == 33554432 and hook.server is False
    assert hook.server_address == "127.0.0.1:8888" and hook.server_health_address == ""


def test_flags_parse_into_the_typed_config() -> None:
    hook = parse_config([*BASE, "--webhook-provider-url=https://dns.internal:9443",
                         "--webhook-provider-read-timeout=1s", "--webhook-provider-write-timeout=1m",
                         "--webhook-provider-max-body-size=0", "--webhook-server",
                         "--webhook-server-address=0.0.0.0:8888",
                         "--webhook-server-health-address=:8080"], {}).webhook
    assert hook.url == "https://dns.internal:9443" and (hook.read_timeout, hook.write_timeout) == (1.0, 60.0)
    assert hook.max_body_size == 0 and hook.server is True
    assert hook.server_address == "0.0.0.0:8888" and hook.server_health_address == ":8080"


def test_environment_sets_flags() -> None:
    hook = parse_config(BASE, {"EXTERNAL_DNS_WEBHOOK_PROVIDER_URL": "http://127.0.0.1:1",
                               "EXTERNAL_DNS_WEBHOOK_PROVIDER_READ_TIMEOUT": "2s"}).webhook
    assert hook.url == "http://127.0.0.1:1" and hook.read_timeout == 2.0


@pytest.mark.parametrize(("args", "message"), [
    (["--webhook-provider-url=localhost:8888"], "--webhook-provider-url must be an http\\(s\\) URL"),
    (["--webhook-provider-read-timeout=0s"], "--webhook-provider-read-timeout and --webhook-provider-write-timeout"),
    (["--webhook-provider-write-timeout=0s"], "--webhook-provider-read-timeout and --webhook-provider-write-timeout"),
    (["--webhook-provider-max-body-size=-1"], "--webhook-provider-max-body-size must not be negative"),
    (["--webhook-provider-idle-timeout=-1s"], "--webhook-provider-idle-timeout must not be negative"),
    (["--webhook-provider-read-header-timeout=-1s"], "--webhook-provider-read-header-timeout must not be negative"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_url_is_checked_only_for_the_webhook_provider() -> None:
    _parser, cfg = load_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory",
                                "--policy=sync", "--webhook-provider-url=not-a-url"], environ={})
    assert cfg.webhook.url == "not-a-url"
