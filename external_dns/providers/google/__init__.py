"""Google Cloud DNS (`--provider=google`) on the discovery-based google-api-python-client (the `google` extra),
credentials through google-auth's Application Default Credentials (a key file, GKE workload identity, the
metadata server): config.py, provider.py. The SDK is imported only when the provider is built."""

from external_dns.providers.google.config import GoogleConfig
from external_dns.providers.google.provider import GoogleProvider

__all__ = ["GoogleConfig", "GoogleProvider"]
