"""Azure DNS (`--provider=azure`) on azure-mgmt-dns and Azure Private DNS (`--provider=azure-private-dns`) on
azure-mgmt-privatedns, with azure-identity (the `azure` extra): config.py (azure.json, clouds, flag overrides),
provider.py (records, writes with etag preconditions, credentials), private.py (the Private DNS client and models). The SDKs are imported
only when the provider is built."""

from external_dns.providers.azure.config import AzureConfig, AzureFile
from external_dns.providers.azure.private import AzurePrivateDNSProvider
from external_dns.providers.azure.provider import AzureProvider

__all__ = ["AzureConfig", "AzureFile", "AzurePrivateDNSProvider", "AzureProvider"]
