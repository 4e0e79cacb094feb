"""Azure DNS (`--provider=azure`) on azure-mgmt-dns with azure-identity (the `azure` extra): config.py (azure.json,
clouds, flag overrides), provider.py (records, writes with etag preconditions, credentials). The SDKs are imported
only when the provider is built."""

from external_dns.providers.azure.config import AzureConfig, AzureFile
from external_dns.providers.azure.provider import AzureProvider

__all__ = ["AzureConfig", "AzureFile", "AzureProvider"]
