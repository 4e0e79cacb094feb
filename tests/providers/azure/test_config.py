"""Azure settings (providers/azure/config.py) as external-dns reads azure.json: its JSON names, a bounded read with
errors naming the file, the cloud's endpoints (Azure Stack from the file), the flags over the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from external_dns.errors import ConfigError
from external_dns.providers.azure.config import (
    CLOUDS,
    MAX_CONFIG_BYTES,
    AzureConfig,
    AzureFile,
    with_overrides,
)

FILE = {"cloud": "AzurePublicCloud", "tenantId": "t", "subscriptionId": "s", "resourceGroup": "rg",
        "aadClientId": "c", "aadClientSecret": "secret-value", "useManagedIdentityExtension": True,
        "useWorkloadIdentityExtension": "true", "userAssignedIdentityID": 7}


def test_azure_json_by_external_dns_names(tmp_path: Path) -> None:
    path = tmp_path / "azure.json"
    path.write_text(json.dumps(FILE))
    f = AzureFile.read(str(path))
    assert (f.tenant_id, f.subscription_id, f.resource_group, f.client_id, f.client_secret) == (
        "t", "s", "rg", "c", "secret-value")
    assert f.use_managed_identity and not f.use_workload_identity  # only a JSON true is true
    assert f.user_assigned_identity_id == ""  # not a string: ignored
    assert "secret-value" not in repr(f)


@pytest.mark.parametrize(("content", "message"), [
    (None, "failed to read Azure config file"),
    (b"{", "failed to parse Azure config file"),
    (b"[1]", "not a JSON object"),
    (b" " * (MAX_CONFIG_BYTES + 1), f"larger than {MAX_CONFIG_BYTES} bytes"),
])
def test_bad_files_are_named(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "azure.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as info:
        AzureFile.read(str(path))
    assert str(path) in str(info.value)


def test_cloud_endpoints() -> None:
    assert AzureConfig(AzureFile(cloud="AzurePublicCloud")).endpoints() == CLOUDS["AZURECLOUD"]
    assert AzureConfig(AzureFile()).endpoints() == CLOUDS["AZURECLOUD"]  # no cloud: the public one
    assert AzureConfig(AzureFile(cloud="azureusgovernmentcloud")).endpoints() == CLOUDS["AZUREUSGOVERNMENT"]
    own = AzureConfig(AzureFile(authority_host="https://login.example/")).endpoints()
    assert own[0] == "https://login.example/" and own[1:] == CLOUDS[""][1:]
    stack = AzureFile(cloud="AzureStackCloud", resource_manager_endpoint="https://arm.local/")
    assert AzureConfig(stack).endpoints() == (CLOUDS[""][0], "https://arm.local/", "https://arm.local/")
    with pytest.raises(ConfigError, match="AzureStackCloud needs resourceManagerEndpoint"):
        AzureConfig(AzureFile(cloud="AzureStackCloud")).endpoints()
    with pytest.raises(ConfigError, match="unknown cloud name: MARS"):
        AzureConfig(AzureFile(cloud="mars")).endpoints()


def test_flags_over_the_file() -> None:
    f = AzureFile(subscription_id="s", resource_group="rg", user_assigned_identity_id="u", authority_host="a")
    assert with_overrides(f) == f
    over = with_overrides(f, subscription_id="s2", resource_group="rg2", user_assigned_identity_client_id="u2",
                          authority_host="a2")
    assert (over.subscription_id, over.resource_group, over.user_assigned_identity_id, over.authority_host) == (
        "s2", "rg2", "u2", "a2")
    cfg = AzureConfig(over)
    assert (cfg.subscription_id, cfg.resource_group) == ("s2", "rg2")
