"""The RFC2136 provider (BIND9 and other DNS UPDATE servers): `RFC2136Provider`, `RFC2136Config`."""

from external_dns.providers.rfc2136.config import RFC2136Config, RFC2136ConfigError
from external_dns.providers.rfc2136.provider import RFC2136Provider

__all__ = ["RFC2136Config", "RFC2136ConfigError", "RFC2136Provider"]
