"""PowerDNS provider flags (`--pdns-*`, and the `--tls-*` client options external-dns uses for PowerDNS),
names and defaults as external-dns; checked when `--provider=pdns`. The API key is a secret (masked in the
config log and in --help). `build_provider` turns them into the provider (PROVIDER_BUILDERS["pdns"])."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagParser

if TYPE_CHECKING:
    from external_dns.providers.pdns.config import PDNSConfig
    from external_dns.providers.pdns.provider import PDNSProvider

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


def validate(cfg: argparse.Namespace) -> None:
    if getattr(cfg, "provider", "") == "pdns":
        _config(cfg)  # every error names its flag


def _config(cfg: argparse.Namespace) -> PDNSConfig:
    from external_dns.cmd.wiring import build_domain_filter
    from external_dns.providers.pdns.config import PDNSConfig

    return PDNSConfig(
        server=str(cfg.pdns_server or "").strip(),
        # Surrounding white space dropped: a Secret made from a file often ends in a line break, which
        # cannot be sent in a header at all.
        api_key=str(cfg.pdns_api_key or "").strip(),
        server_id=str(cfg.pdns_server_id or "").strip(),
        skip_tls_verify=bool(cfg.pdns_skip_tls_verify),
        tls_ca=str(cfg.tls_ca or ""),
        tls_client_cert=str(cfg.tls_client_cert or ""),
        tls_client_cert_key=str(cfg.tls_client_cert_key or ""),
        domain_filter=build_domain_filter(cfg),
    )


def build_provider(cfg: argparse.Namespace) -> PDNSProvider:
    """PROVIDER_BUILDERS["pdns"]: the provider from parsed flags (TLS files are loaded here)."""
    from external_dns.providers.pdns.provider import PDNSProvider

    config = _config(cfg)
    config.ssl_context()  # a bad --tls-* file is a start-up error, not a failed sync
    return PDNSProvider(config)


__all__ = ["ConfigError", "add_flags", "build_provider", "validate"]
