"""PowerDNS provider flags (`--pdns-*`, and the `--tls-*` client options external-dns uses for PowerDNS),
names and defaults as external-dns; checked when `--provider=pdns`. The API key is a secret (masked in the
config log and in --help). cmd/build_providers.build_pdns turns them into the provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import FlagGroup, FlagParser, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

# Literal copies of the provider's defaults: parsing flags must not import the provider (start-up time).
DEFAULT_SERVER = "http://localhost:8081"
DEFAULT_SERVER_ID = "localhost"


def add_flags(p: FlagParser) -> None:
    p.group("PowerDNS provider")
    p.add("--pdns-server", default=DEFAULT_SERVER,
          help="URL of the PowerDNS API (http:// or https://, a path prefix is kept)")
    p.add("--pdns-server-id", default=DEFAULT_SERVER_ID,
          help="server id in the API path; `localhost` unless the API sits behind a proxy")
    p.add("--pdns-api-key", default="", secret=True,
          help="API key sent as X-API-Key (required with --provider=pdns; prefer EXTERNAL_DNS_PDNS_API_KEY)")
    p.add("--pdns-skip-tls-verify", type=bool, default=False,
          help="do not verify the PowerDNS server certificate")
    p.group("TLS client (PowerDNS)")
    p.add("--tls-ca", default="", help="CA bundle to verify the server with (default: the system CAs)")
    p.add("--tls-client-cert", default="", help="client certificate to present (mutual TLS)")
    p.add("--tls-client-cert-key", default="", help="key of --tls-client-cert")


@flag_group
class PDNSFlags(FlagGroup):
    """The PowerDNS provider's flags."""

    server: str = flag("--pdns-server")
    server_id: str = flag("--pdns-server-id")
    api_key: str = flag("--pdns-api-key", secret=True)
    skip_tls_verify: bool = flag("--pdns-skip-tls-verify")


@flag_group
class TLSFlags(FlagGroup):
    """The `--tls-*` client options (PowerDNS; RFC2136 with --rfc2136-use-tls)."""

    ca: str = flag("--tls-ca")
    client_cert: str = flag("--tls-client-cert")
    client_cert_key: str = flag("--tls-client-cert-key")


def validate(cfg: Config) -> None:
    if cfg.core.provider == "pdns":
        from external_dns.cmd.build_providers import pdns_config

        pdns_config(cfg)  # every error names its flag
