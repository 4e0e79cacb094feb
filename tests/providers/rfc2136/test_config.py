"""RFC2136 configuration and its flags (providers/rfc2136/config.py): errors name the flag, the TSIG secret
never shown, defaults, aliases and the environment."""

from __future__ import annotations

import pytest

from external_dns.cmd.build_providers import build_rfc2136 as build
from external_dns.cmd.config import build_parser, parse_config, validate
from external_dns.cmd.flags import ConfigError
from external_dns.providers.rfc2136 import RFC2136ConfigError
from tests.providers.rfc2136.conftest import SECRET, cfg


@pytest.mark.parametrize(("overrides", "needle"), [
    ({"port": 0}, "--rfc2136-port"),
    ({"hosts": ("",)}, "--rfc2136-host"),
    ({"tsig_secret_alg": "hmac-md5"}, "hmac-md5 is not supported TSIG algorithm"),
    ({"tsig_keyname": ""}, "--rfc2136-tsig-keyname"),
    ({"tsig_secret": ""}, "--rfc2136-tsig-secret"),
    ({"tsig_secret": "not base64!!"}, "--rfc2136-tsig-secret is not valid base64"),
    ({"batch_change_size": 0}, "--rfc2136-batch-change-size"),
    ({"min_ttl": -1}, "--rfc2136-min-ttl"),
    ({"load_balancing_strategy": "weighted"}, "--rfc2136-load-balancing-strategy"),
])
def test_config_errors_name_the_flag(overrides: dict[str, object], needle: str) -> None:
    with pytest.raises(RFC2136ConfigError, match=needle.replace("(", r"\(")):
        cfg(**overrides)


def test_secret_never_in_repr_or_errors() -> None:
    c = cfg()
    assert SECRET not in repr(c)
    with pytest.raises(RFC2136ConfigError) as info:
        cfg(tsig_secret="s3cr3t-not-base64!")
    assert "s3cr3t" not in str(info.value)


def test_insecure_needs_no_key() -> None:
    assert cfg(insecure=True, tsig_keyname="", tsig_secret="").insecure


def test_flags_parse_defaults_alias_and_masking() -> None:
    parser = build_parser()
    ns = parse_config(["--source=service", "--provider=rfc2136", "--policy=sync", "--rfc2136-host=10.0.0.1",
                       "--rfc2136-host=10.0.0.2", "--rfc2136-port=5353", "--rfc2136-zone=example.org",
                       "--rfc2136-zone=sub.example.org", "--rfc2136-tsig-keyname=k",
                       f"--rfc2136-tsig-secret={SECRET}", "--rfc2136-tsig-axfr", "--rfc2136-min-ttl=1m"], {}, parser)
    validate(ns)
    assert ns.rfc2136.axfr is True and ns.rfc2136.min_ttl == 60.0 and ns.rfc2136.batch_change_size == 50
    assert ns.rfc2136.tsig_secret_alg == "hmac-sha256" and ns.rfc2136.load_balancing_strategy == "disabled"
    assert SECRET not in repr(ns)
    masked = parser.masked(ns)
    assert masked["rfc2136_tsig_secret"] == "******" and SECRET not in str(masked)
    p = build(ns)
    assert p.config.hosts == ("10.0.0.1", "10.0.0.2") and p.config.port == 5353 and p.config.min_ttl == 60
    assert list(p.zones()) == ["example.org", "sub.example.org"]


def test_help_does_not_show_secret_values() -> None:
    parser = build_parser()
    # A secret from the environment becomes the argparse default: --help must not print it.
    parser.parse(["--source=service"], environ={"EXTERNAL_DNS_RFC2136_TSIG_SECRET": "SUPERSECRETVALUE",
                                                "EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD": "KRBPASSWORD",
                                                "EXTERNAL_DNS_TXT_ENCRYPT_AES_KEY": "AESKEYVALUE"})
    text = parser.parser.format_help()
    assert "--rfc2136-tsig-secret" in text and "--rfc2136-axfr" in text and "--rfc2136-tsig-axfr" in text
    assert "SUPERSECRETVALUE" not in text and "KRBPASSWORD" not in text and "AESKEYVALUE" not in text
    assert "(default: 50)" in text  # other defaults are still shown


@pytest.mark.parametrize(("args", "needle"), [
    (["--provider=rfc2136"], "--rfc2136-host"),
    (["--provider=rfc2136", "--rfc2136-host=h"], "--rfc2136-port"),
    (["--provider=rfc2136", "--rfc2136-host=h", "--rfc2136-port=53"], "--rfc2136-tsig-keyname"),
    (["--provider=rfc2136", "--rfc2136-host=h", "--rfc2136-port=53", "--rfc2136-insecure", "--rfc2136-gss-tsig"],
     "mutually exclusive"),
    (["--provider=rfc2136", "--rfc2136-host=h", "--rfc2136-port=53", "--rfc2136-batch-change-size=0"],
     "--rfc2136-batch-change-size"),
])
def test_flag_validation(args: list[str], needle: str) -> None:
    ns = parse_config(["--source=service", "--policy=sync", *args], {})
    with pytest.raises(ConfigError, match=needle):
        validate(ns)


def test_flags_from_environment() -> None:
    ns = parse_config(["--source=service", "--provider=rfc2136", "--policy=sync"],
                      {"EXTERNAL_DNS_RFC2136_HOST": "a,b", "EXTERNAL_DNS_RFC2136_PORT": "53",
                       "EXTERNAL_DNS_RFC2136_INSECURE": "true"})
    validate(ns)
    assert ns.rfc2136.hosts == ("a", "b") and ns.rfc2136.insecure is True
