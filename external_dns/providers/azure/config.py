"""Azure DNS provider settings: external-dns's `azure.json` (`--azure-config-file`, the file AKS and the chart
mount) with the flags that override it, the cloud's endpoints, and the credential as Go's provider picks it:
a service principal (`aadClientId` + `aadClientSecret`, unless they read "msi"), else workload identity
(`useWorkloadIdentityExtension`), else a managed identity (`useManagedIdentityExtension`, optionally the
user-assigned `userAssignedIdentityID`). `cloud: AzureStackCloud` takes its endpoints from the file
(`resourceManagerEndpoint`, `activeDirectoryAuthorityHost`, `resourceManagerAudience`): sovereign and private
clouds. The secret is kept out of `repr()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError

DEFAULT_TTL = 300
NO_SUBSCRIPTION = "Azure: no subscription id (subscriptionId in the config file, or the flag that overrides it)"
MAX_CONFIG_BYTES = 1024 * 1024
# cloud name (upper case) -> (authority host, resource manager endpoint, audience); azcore's cloud.Configuration.
CLOUDS = {
    "AZURECLOUD": ("https://login.microsoftonline.com/", "https://management.azure.com/",
                   "https://management.core.windows.net/"),
    "AZUREUSGOVERNMENT": ("https://login.microsoftonline.us/", "https://management.usgovcloudapi.net/",
                          "https://management.core.usgovcloudapi.net/"),
    "AZURECHINACLOUD": ("https://login.chinacloudapi.cn/", "https://management.chinacloudapi.cn/",
                        "https://management.core.chinacloudapi.cn/"),
}
CLOUDS["AZUREPUBLICCLOUD"] = CLOUDS[""] = CLOUDS["AZURECLOUD"]
CLOUDS["AZUREUSGOVERNMENTCLOUD"] = CLOUDS["AZUREUSGOVERNMENT"]


@dataclass(frozen=True)
class AzureFile:
    """The fields of azure.json external-dns reads (JSON names in `from_json`)."""

    cloud: str = ""
    tenant_id: str = ""
    subscription_id: str = ""
    resource_group: str = ""
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    use_managed_identity: bool = False
    use_workload_identity: bool = False
    user_assigned_identity_id: str = ""
    authority_host: str = ""
    resource_manager_audience: str = ""
    resource_manager_endpoint: str = ""

    @classmethod
    def read(cls, path: str) -> AzureFile:
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"failed to read Azure config file '{path}': {exc}") from None
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"failed to read Azure config file '{path}': larger than {MAX_CONFIG_BYTES} bytes")
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise ConfigError(f"failed to parse Azure config file '{path}': {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"failed to parse Azure config file '{path}': not a JSON object")
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AzureFile:
        def text(key: str) -> str:
            value = data.get(key, "")
            return value if isinstance(value, str) else ""

        return cls(cloud=text("cloud"), tenant_id=text("tenantId"), subscription_id=text("subscriptionId"),
                   resource_group=text("resourceGroup"), client_id=text("aadClientId"),
                   client_secret=text("aadClientSecret"),
                   use_managed_identity=data.get("useManagedIdentityExtension") is True,
                   use_workload_identity=data.get("useWorkloadIdentityExtension") is True,
                   user_assigned_identity_id=text("userAssignedIdentityID"),
                   authority_host=text("activeDirectoryAuthorityHost"),
                   resource_manager_audience=text("resourceManagerAudience"),
                   resource_manager_endpoint=text("resourceManagerEndpoint"))


@dataclass(frozen=True)
class AzureConfig:
    """Everything the Azure DNS provider needs: the file's settings after the flags' overrides."""

    file: AzureFile = field(default_factory=AzureFile)
    domain_filter: DomainFilter = field(default_factory=DomainFilter)
    zone_name_filter: DomainFilter = field(default_factory=DomainFilter)  # --zone-name-filter
    zone_id_filter: tuple[str, ...] = ()
    max_retries: int = 3  # --azure-maxretries-count
    page_size: int = 100  # $top of listings (the API's default)
    cache_seconds: float = 0.0  # --provider-cache-time
    zones_cache_seconds: float = 60.0  # --azure-zones-cache-duration when given
    request_timeout: float = 30.0
    dry_run: bool = False

    @property
    def subscription_id(self) -> str:
        return self.file.subscription_id

    @property
    def resource_group(self) -> str:
        return self.file.resource_group

    def endpoints(self) -> tuple[str, str, str]:
        """(authority host, resource manager endpoint, token audience) of the configured cloud."""
        name = self.file.cloud.upper()
        if name == "AZURESTACKCLOUD":
            f = self.file
            if not f.resource_manager_endpoint:
                raise ConfigError("Azure config file: cloud AzureStackCloud needs resourceManagerEndpoint")
            return (f.authority_host or CLOUDS[""][0], f.resource_manager_endpoint,
                    f.resource_manager_audience or f.resource_manager_endpoint)
        if name not in CLOUDS:
            raise ConfigError(f"failed to get cloud configuration: unknown cloud name: {name}")
        authority, endpoint, audience = CLOUDS[name]
        return self.file.authority_host or authority, endpoint, audience


def with_overrides(file: AzureFile, subscription_id: str = "", resource_group: str = "",
                   user_assigned_identity_client_id: str = "", authority_host: str = "") -> AzureFile:
    """The flags over the file, as external-dns's getConfig."""
    from dataclasses import replace

    return replace(file, subscription_id=subscription_id or file.subscription_id,
                   resource_group=resource_group or file.resource_group,
                   user_assigned_identity_id=user_assigned_identity_client_id or file.user_assigned_identity_id,
                   authority_host=authority_host or file.authority_host)
