"""The `--pdns-*` and `--tls-*` flags: external-dns names and defaults, the environment, validation only with
--provider=pdns, the API key masked in the config line and in --help, and the provider built from flags; the
`--apply-batch-size` default PowerDNS replaces (a whole zone per call) unless the flag is given."""

from __future__ import annotations

import pytest

from external_dns.cmd.build_providers import build_pdns
from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_safety import apply_batch_size_given
from external_dns.cmd.wiring import once_options
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import CachedProvider

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=pdns", "--policy=sync"]
KEY = "k3y-that-must-never-show"


def test_defaults_match_external_dns() -> None:
    cfg = parse_config(BASE, {})
    assert cfg.pdns.server == "http://localhost:8081" and cfg.pdns.server_id == "localhost"
    assert cfg.pdns.api_key == "" and cfg.pdns.skip_tls_verify is False
    assert (cfg.tls.ca, cfg.tls.client_cert, cfg.tls.client_cert_key) == ("", "", "")


def test_flags_reach_the_provider() -> None:
    _parser, cfg = load_config([*BASE, "--pdns-server=https://pdns.example.net:8443/proxy",
                                "--pdns-server-id=pdns1", "--pdns-skip-tls-verify", "--domain-filter=example.org"],
                               environ={"EXTERNAL_DNS_PDNS_API_KEY": KEY})
    provider = build_pdns(cfg)
    config = provider.config
    assert config.server == "https://pdns.example.net:8443/proxy" and config.server_id == "pdns1"
    assert config.api_key == KEY and config.skip_tls_verify is True
    assert config.base_path == "/proxy/api/v1/servers/pdns1"
    assert config.domain_filter.match("www.example.org") and not config.domain_filter.match("www.example.com")
    assert KEY not in repr(provider) and KEY not in repr(config)


def test_key_masked_in_config_line_and_help() -> None:
    parser, cfg = load_config([*BASE, f"--pdns-api-key={KEY}"], {})
    masked = parser.masked(cfg)
    assert masked["pdns_api_key"] == "******" and KEY not in str(masked)
    env_parser = build_parser()
    env_parser.parse(BASE, environ={"EXTERNAL_DNS_PDNS_API_KEY": KEY})
    assert KEY not in env_parser.parser.format_help()


@pytest.mark.parametrize(("args", "message"), [
    ([], "missing API Key for PDNS. Specify using --pdns-api-key="),
    ([f"--pdns-api-key={KEY}", "--pdns-server=localhost:8081"], "--pdns-server must be an http"),
    ([f"--pdns-api-key={KEY}", "--tls-client-cert=/c.pem"], "must be given together"),
])
def test_validation(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")) as err:
        load_config([*BASE, *args], {})
    assert KEY not in str(err.value)


def test_key_from_a_secret_file_loses_its_line_break() -> None:
    _parser, cfg = load_config(BASE, environ={"EXTERNAL_DNS_PDNS_API_KEY": f"  {KEY}\r\n"})
    assert build_pdns(cfg).config.api_key == KEY


@pytest.mark.parametrize("key", [f"{KEY}\ninjected: x", f"{KEY}\x00", f"{KEY}\x85x", f"{KEY}\u20ac"])
def test_a_key_that_cannot_be_sent_is_refused_without_showing_it(key: str) -> None:
    # http.client would raise "Invalid header value b'<the key>'": the whole key in the error log.
    with pytest.raises(ConfigError, match="--pdns-api-key holds a control character") as err:
        load_config(BASE, environ={"EXTERNAL_DNS_PDNS_API_KEY": key})
    assert KEY not in str(err.value)


def test_not_checked_for_other_providers() -> None:
    load_config(["--source=manifest", "--manifest-dir=/x", "--provider=inmemory", "--policy=sync",
                 "--pdns-server=nonsense"], {})


def test_apply_batch_size_not_given_is_told_apart_from_an_explicit_default() -> None:
    cfg = parse_config(BASE, {})
    assert cfg.plan_output.apply_batch_size == 1000 and not apply_batch_size_given(cfg)  # the documented default
    assert apply_batch_size_given(parse_config([*BASE, "--apply-batch-size=1000"], {}))
    assert apply_batch_size_given(parse_config(BASE, environ={"EXTERNAL_DNS_APPLY_BATCH_SIZE": "1000"}))
    assert build_parser().config_fields(cfg).get("apply-batch-size") is None  # still "at its default"


@pytest.mark.parametrize(("args", "environ", "pdns", "others"), [
    ([], {}, 0, 1000),  # not given: PowerDNS takes a zone's whole plan per call, others keep the default
    (["--apply-batch-size=1000"], {}, 1000, 1000),  # given, even at the default: its meaning for every provider
    (["--apply-batch-size=7"], {}, 7, 7),
    ([], {"EXTERNAL_DNS_APPLY_BATCH_SIZE": "250"}, 250, 250),
])
def test_pdns_prefers_a_whole_zone_per_call_unless_the_batch_size_is_given(
        args: list[str], environ: dict[str, str], pdns: int, others: int) -> None:
    _parser, cfg = load_config([*BASE, *args], environ={"EXTERNAL_DNS_PDNS_API_KEY": KEY, **environ})
    options = once_options(cfg)
    provider = build_pdns(cfg)
    assert options.batch_size(provider) == pdns
    assert options.batch_size(CachedProvider(provider, 60.0)) == pdns  # --provider-cache-time keeps the hint
    assert options.batch_size(InMemoryProvider()) == others
