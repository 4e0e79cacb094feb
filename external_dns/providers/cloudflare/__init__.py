"""Cloudflare DNS (`--provider=cloudflare`) on the official `cloudflare` SDK (the `cloudflare` extra):
config.py (settings, credentials from the environment), records.py (records <-> endpoints), provider.py.
The SDK is imported only when the provider is built."""

from external_dns.providers.cloudflare.config import CloudflareConfig, Credentials
from external_dns.providers.cloudflare.provider import CloudflareProvider

__all__ = ["CloudflareConfig", "CloudflareProvider", "Credentials"]
