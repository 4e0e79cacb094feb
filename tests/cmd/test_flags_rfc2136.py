"""The `--rfc2136-*` flags: external-dns names and defaults, the deprecated `--rfc2136-tsig-axfr` alias, the
environment, and the checks run when `--provider=rfc2136` (host, port, TSIG unless insecure, no GSS-TSIG)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=rfc2136", "--policy=sync"]
SERVER = ["--rfc2136-host=127.0.0.1", "--rfc2136-port=53", "--rfc2136-zone=example.org"]
TSIG = ["--rfc2136-tsig-keyname=k", "--rfc2136-tsig-secret=c2VjcmV0"]


def test_defaults_match_external_dns() -> None:
    rfc = parse_config(BASE, {}).rfc2136
    assert rfc.hosts == () and rfc.port == 0 and rfc.zones == () and rfc.insecure is False
    assert rfc.tsig_secret_alg == "hmac-sha256" and rfc.axfr is False and rfc.min_ttl == 0.0
    assert rfc.batch_change_size == 50 and rfc.load_balancing_strategy == "disabled"
    assert rfc.axfr_timeout == 300.0 and rfc.axfr_max_records == 1_000_000
    assert rfc.use_tls is False and rfc.skip_tls_verify is False and rfc.gss_tsig is False


def test_a_signed_server_parses_into_the_typed_config() -> None:
    _parser, cfg = load_config([*BASE, *SERVER, *TSIG, "--rfc2136-host=127.0.0.2", "--rfc2136-tsig-axfr",
                                "--rfc2136-tsig-secret-alg=hmac-sha512", "--rfc2136-min-ttl=1m",
                                "--rfc2136-load-balancing-strategy=round-robin"], environ={})
    rfc = cfg.rfc2136
    assert rfc.hosts == ("127.0.0.1", "127.0.0.2") and rfc.port == 53 and rfc.zones == ("example.org",)
    assert (rfc.tsig_keyname, rfc.tsig_secret, rfc.tsig_secret_alg) == ("k", "c2VjcmV0", "hmac-sha512")
    assert rfc.axfr is True and rfc.min_ttl == 60.0 and rfc.load_balancing_strategy == "round-robin"


def test_environment_sets_flags_including_the_secret() -> None:
    _parser, cfg = load_config([*BASE, *SERVER], environ={"EXTERNAL_DNS_RFC2136_TSIG_KEYNAME": "k",
                                                          "EXTERNAL_DNS_RFC2136_TSIG_SECRET": "ZW52"})
    assert cfg.rfc2136.tsig_keyname == "k" and cfg.rfc2136.tsig_secret == "ZW52"


def test_insecure_needs_no_tsig_key() -> None:
    _parser, cfg = load_config([*BASE, *SERVER, "--rfc2136-insecure"], environ={})
    assert cfg.rfc2136.insecure is True and cfg.rfc2136.tsig_secret == ""


@pytest.mark.parametrize(("args", "message"), [
    ([*SERVER], "--rfc2136-tsig-keyname and --rfc2136-tsig-secret are required unless --rfc2136-insecure"),
    (["--rfc2136-port=53", *TSIG], "--rfc2136-host is required with --provider=rfc2136"),
    (["--rfc2136-host=127.0.0.1", *TSIG], r"--rfc2136-port must be set \(1-65535"),
    (["--rfc2136-host=127.0.0.1", "--rfc2136-port=65536", *TSIG], "--rfc2136-port must be set"),
    ([*SERVER, *TSIG, "--rfc2136-tsig-secret-alg=hmac-md5"], "--rfc2136-tsig-secret-alg: hmac-md5 is not supported"),
    ([*SERVER, *TSIG, "--rfc2136-min-ttl=-1s"], "--rfc2136-min-ttl must not be negative, got -1s"),
    ([*SERVER, *TSIG, "--rfc2136-batch-change-size=0"], "--rfc2136-batch-change-size must be at least 1, got 0"),
    ([*SERVER, "--rfc2136-gss-tsig"], r"--rfc2136-gss-tsig \(Kerberos\) is not supported"),
    ([*SERVER, "--rfc2136-gss-tsig", "--rfc2136-insecure"], "--rfc2136-insecure and --rfc2136-gss-tsig are mutually"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_checks_apply_only_to_the_rfc2136_provider() -> None:
    _parser, cfg = load_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory",
                                "--policy=sync", "--rfc2136-batch-change-size=0"], environ={})
    assert cfg.rfc2136.batch_change_size == 0


def test_secrets_stay_out_of_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse(["--help"], environ={"EXTERNAL_DNS_RFC2136_TSIG_SECRET": "dG9wc2VjcmV0"})
    assert "dG9wc2VjcmV0" not in capsys.readouterr().out
