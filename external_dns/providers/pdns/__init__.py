"""PowerDNS Authoritative through its HTTP API (`--provider=pdns`): config.py (settings, TLS), client.py
(HTTP with deadlines, size cap, retries, error mapping), records.py (rrset <-> endpoint), provider.py."""

from external_dns.providers.pdns.client import PDNSAuthError, PDNSClient, PDNSNotFound, PDNSRefused
from external_dns.providers.pdns.config import PDNSConfig
from external_dns.providers.pdns.provider import PDNSProvider

__all__ = ["PDNSAuthError", "PDNSClient", "PDNSConfig", "PDNSNotFound", "PDNSProvider", "PDNSRefused"]
