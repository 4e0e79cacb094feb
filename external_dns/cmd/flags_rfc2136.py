"""RFC2136 provider flags (`--rfc2136-*`), names and defaults as external-dns; validated when
`--provider=rfc2136`. The TSIG secret and the Kerberos password are secrets (masked in the config log)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group, one_of
from external_dns.durations import format_go_duration as go

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

TSIG_ALGS = ("hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384", "hmac-sha512")
LB_STRATEGIES = ("disabled", "round-robin", "random")
# "%(default).0s" renders as nothing and stops --help from appending "(default: <value>)", which would show
# a secret taken from the environment.
_NO_DEFAULT = "%(default).0s"


def add_flags(p: FlagParser) -> None:
    p.group("RFC2136 provider")
    p.add("--rfc2136-host", repeat=True, help="DNS server(s) to send UPDATE and AXFR to (repeatable)")
    p.add("--rfc2136-port", type=int, default=0, help="port of the DNS server(s) (required, usually 53)")
    p.add("--rfc2136-zone", repeat=True,
          help="zone(s) to manage (repeatable; the longest zone containing a name wins)")
    p.add("--rfc2136-insecure", type=bool, default=False, help="send unsigned updates (no TSIG)")
    p.add("--rfc2136-tsig-keyname", default="", help="TSIG key name")
    p.add("--rfc2136-tsig-secret", default="", secret=True, help="TSIG secret, base64" + _NO_DEFAULT)
    p.add("--rfc2136-tsig-secret-alg", default="hmac-sha256",
          help=f"TSIG algorithm ({', '.join(TSIG_ALGS)})")
    p.add("--rfc2136-axfr", type=bool, default=False, aliases=("--rfc2136-tsig-axfr",),
          help="read zones back by AXFR (needed to update and delete; --rfc2136-tsig-axfr is a deprecated alias)")
    p.add("--rfc2136-axfr-timeout", type=duration, default=300.0,
          help="longest a whole zone transfer (AXFR/IXFR) may take; past it the read fails (duration)")
    p.add("--rfc2136-axfr-max-records", type=int, default=1_000_000,
          help="most records one zone transfer may hold (every type counted); past it the read fails")
    p.add("--rfc2136-min-ttl", type=duration, default=0.0, help="lowest TTL written (duration)")
    p.add("--rfc2136-batch-change-size", type=int, default=50, help="endpoints per UPDATE message")
    p.add("--rfc2136-use-tls", type=bool, default=False, help="send DNS over TLS (TLS 1.3, ALPN dot)")
    p.add("--rfc2136-skip-tls-verify", type=bool, default=False, help="do not verify the server certificate")
    p.add("--rfc2136-load-balancing-strategy", default="disabled", choices=LB_STRATEGIES,
          help="how to spread requests over several --rfc2136-host")
    p.add("--rfc2136-gss-tsig", type=bool, default=False, help="GSS-TSIG (Kerberos); not supported here")
    p.add("--rfc2136-kerberos-username", default="", help="Kerberos user name (GSS-TSIG)")
    p.add("--rfc2136-kerberos-password", default="", secret=True,
          help="Kerberos password (GSS-TSIG)" + _NO_DEFAULT)
    p.add("--rfc2136-kerberos-realm", default="", help="Kerberos realm (GSS-TSIG)")


@flag_group
class RFC2136Flags(FlagGroup):
    """The RFC2136 provider's flags."""

    hosts: tuple[str, ...] = flag("--rfc2136-host")
    port: int = flag("--rfc2136-port")
    zones: tuple[str, ...] = flag("--rfc2136-zone")
    insecure: bool = flag("--rfc2136-insecure")
    tsig_keyname: str = flag("--rfc2136-tsig-keyname")
    tsig_secret: str = flag("--rfc2136-tsig-secret", secret=True)
    tsig_secret_alg: str = flag("--rfc2136-tsig-secret-alg")
    axfr: bool = flag("--rfc2136-axfr")
    axfr_timeout: float = flag("--rfc2136-axfr-timeout")
    axfr_max_records: int = flag("--rfc2136-axfr-max-records")
    min_ttl: float = flag("--rfc2136-min-ttl")
    batch_change_size: int = flag("--rfc2136-batch-change-size")
    use_tls: bool = flag("--rfc2136-use-tls")
    skip_tls_verify: bool = flag("--rfc2136-skip-tls-verify")
    load_balancing_strategy: str = flag("--rfc2136-load-balancing-strategy")
    gss_tsig: bool = flag("--rfc2136-gss-tsig")
    kerberos_username: str = flag("--rfc2136-kerberos-username")
    kerberos_password: str = flag("--rfc2136-kerberos-password", secret=True)
    kerberos_realm: str = flag("--rfc2136-kerberos-realm")


def validate(cfg: Config) -> None:
    if cfg.core.provider != "rfc2136":
        return
    rfc = cfg.rfc2136
    if rfc.min_ttl < 0:
        raise ConfigError(f"--rfc2136-min-ttl must not be negative, got {go(rfc.min_ttl)}")
    if rfc.batch_change_size < 1:
        raise ConfigError(f"--rfc2136-batch-change-size must be at least 1, got {rfc.batch_change_size}")
    if rfc.insecure and rfc.gss_tsig:
        raise ConfigError("--rfc2136-insecure and --rfc2136-gss-tsig are mutually exclusive")
    if rfc.gss_tsig:
        raise ConfigError("--rfc2136-gss-tsig (Kerberos) is not supported by this implementation; use a TSIG key")
    if not any(h for h in rfc.hosts):
        raise ConfigError("--rfc2136-host is required with --provider=rfc2136")
    if not 0 < rfc.port < 65536:
        raise ConfigError("--rfc2136-port must be set (1-65535, usually 53) with --provider=rfc2136")
    if not rfc.insecure:
        if rfc.tsig_secret_alg not in TSIG_ALGS:
            raise ConfigError(f"--rfc2136-tsig-secret-alg: {rfc.tsig_secret_alg} is not supported TSIG algorithm "
                              f"{one_of(rfc.tsig_secret_alg, TSIG_ALGS)}")
        if not rfc.tsig_keyname or not rfc.tsig_secret:
            raise ConfigError("--rfc2136-tsig-keyname and --rfc2136-tsig-secret are required unless "
                              "--rfc2136-insecure is set")
