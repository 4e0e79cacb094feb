"""RFC2136 pieces that need no server: configuration and flags, target conversions, zone choice, batching."""

from __future__ import annotations

import pytest

from external_dns.cmd.build_providers import build_rfc2136 as build
from external_dns.cmd.config import build_parser, parse_config, validate
from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136ConfigError, RFC2136Provider
from external_dns.providers.rfc2136.targets import canonical_target, to_rdata, txt_targets, unquote_txt

SECRET = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="


def cfg(**kw: object) -> RFC2136Config:
    base: dict[str, object] = {"hosts": ("127.0.0.1",), "port": 53, "zones": ("example.org",),
                               "tsig_keyname": "k", "tsig_secret": SECRET}
    base.update(kw)
    return RFC2136Config(**base)  # type: ignore[arg-type]


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


@pytest.mark.parametrize(("rtype", "target", "canonical"), [
    ("A", "10.0.0.1", "10.0.0.1"),
    ("AAAA", "2001:0db8:0000::0001", "2001:db8::1"),
    ("CNAME", "Target.Example.COM.", "target.example.com"),
    ("CNAME", "target.example.com", "target.example.com"),
    ("MX", "10 Mail.Example.net.", "10 mail.example.net"),
    ("SRV", "0 5 443 svc.example.net", "0 5 443 svc.example.net"),
    ("NS", "ns1.example.net.", "ns1.example.net"),
    ("TXT", '"heritage=external-dns,external-dns/owner=x"', "heritage=external-dns,external-dns/owner=x"),
    ("TXT", 'plain "inner" text', 'plain "inner" text'),
    ("TXT", '"escaped \\"inner\\" \\\\ text"', 'escaped "inner" \\ text'),
    ("A", "not-an-ip", "not-an-ip"),  # unparsable targets are left for apply_changes to report
])
def test_canonical_targets(rtype: str, target: str, canonical: str) -> None:
    assert canonical_target(rtype, target) == canonical


def test_txt_long_values_split_and_join() -> None:
    value = "v" * 600
    rd = to_rdata("TXT", value)
    strings = rd.strings  # type: ignore[attr-defined]
    assert [len(s) for s in strings] == [255, 255, 90]
    assert txt_targets(rd) == [value]
    two = to_rdata("TXT", "x")
    assert txt_targets(two) == ["x"]
    assert unquote_txt('"') == '"' and unquote_txt('""') == ""


def test_invalid_targets_are_value_errors() -> None:
    with pytest.raises(ValueError, match="invalid MX target"):
        to_rdata("MX", "mail.example.com")
    with pytest.raises(ValueError, match="unsupported record type"):
        to_rdata("SOA", "x")


def test_zone_choice_and_domain_filter() -> None:
    p = RFC2136Provider(cfg(zones=("example.org", "sub.example.org.", "Example.COM")))
    assert p.zone_for("a.b.sub.example.org") == "sub.example.org"
    assert p.zone_for("sub.example.org.") == "sub.example.org"
    assert p.zone_for("notsub.example.org") == "example.org"
    assert p.zone_for("www.example.com") == "example.com"
    assert p.zone_for("example.net") is None
    flt = p.get_domain_filter()
    assert flt.match("x.sub.example.org") and not flt.match("example.net")
    root = RFC2136Provider(cfg(zones=()))
    assert root.zone_for("anything.test") == "." and list(root.zones()) == [""]


def test_adjust_endpoints_canonicalises_and_raises_ttl() -> None:
    p = RFC2136Provider(cfg(min_ttl=120))
    eps = [Endpoint("a.example.org", "CNAME", Targets(["B.example.org."]), 30),
           Endpoint("t.example.org", "TXT", Targets(['"v=1"'])),
           Endpoint("x.example.org", "A", Targets(["10.0.0.1"]), 600)]
    out = p.adjust_endpoints(eps)
    assert [(list(e.targets), e.record_ttl) for e in out] == [(["b.example.org"], 120), (["v=1"], 0),
                                                               (["10.0.0.1"], 600)]
    assert list(eps[0].targets) == ["B.example.org."]  # inputs untouched


def test_adjust_endpoints_drops_set_identifiers_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    """No routing policies in DNS UPDATE and none read back: a set identifier would plan a rewrite on every run.
    Ignored as Go's providers without routing policies do (OCI's AdjustEndpoints)."""
    p = RFC2136Provider(cfg())
    geo = Endpoint("geo.example.org", "A", Targets(["192.0.2.10"]), set_identifier="eu")
    plain = Endpoint("web.example.org", "A", Targets(["192.0.2.20"]))
    out = p.adjust_endpoints([geo, plain])
    assert [(e.dns_name, e.set_identifier, list(e.targets)) for e in out] == [
        ("geo.example.org", "", ["192.0.2.10"]), ("web.example.org", "", ["192.0.2.20"])]
    assert out[1] is plain and geo.set_identifier == "eu"  # unchanged endpoints pass through; inputs untouched
    logged = capsys.readouterr()
    assert "Ignoring the set-identifier annotation" in logged.out + logged.err and "set_identifier" in logged.out + logged.err


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: connections to it are refused at once


@pytest.mark.parametrize("hosts", [("127.0.0.1",), ("127.0.0.1", "127.0.0.1")])
def test_a_failed_axfr_says_trying_the_next_server_only_when_there_is_one(hosts: tuple[str, ...]) -> None:
    from structlog.testing import capture_logs

    from external_dns.providers.provider import SoftError

    p = RFC2136Provider(cfg(hosts=hosts, port=_closed_port(), axfr=True, insecure=True, timeout=2.0))
    with capture_logs() as logs, pytest.raises(SoftError):
        p.records()
    events = [e["event"] for e in logs if e["event"].startswith("RFC2136 AXFR failed")]
    assert events == ["RFC2136 AXFR failed, trying the next server"] * (len(hosts) - 1) + ["RFC2136 AXFR failed"]
