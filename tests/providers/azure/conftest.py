"""The Azure DNS fake over TLS (its throw-away CA trusted through `REQUESTS_CA_BUNDLE`, as a private cloud's
would be) and an azure.json naming it as an Azure Stack cloud (`resourceManagerEndpoint`,
`activeDirectoryAuthorityHost`): the provider reaches the fake exactly as a user reaches a sovereign cloud."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from external_dns.providers.azure import AzureConfig, AzureFile, AzureProvider
from tests.fakes.azure import AzureDNSFake, config_file


@pytest.fixture
def afake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AzureDNSFake]:
    with AzureDNSFake(tmp_path / "certs") as srv:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", srv.ca_file)
        srv.add_zone("example.org")
        srv.add_zone("example.com")
        yield srv


MakeAzure = Callable[..., AzureProvider]


@pytest.fixture
def make_azure(afake: AzureDNSFake, tmp_path: Path) -> MakeAzure:
    def make(file_extra: dict[str, object] | None = None, **kw: object) -> AzureProvider:
        path = config_file(tmp_path / "azure.json", afake, **(file_extra or {}))
        kw.setdefault("max_retries", 1)
        return AzureProvider(AzureConfig(file=AzureFile.read(str(path)), **kw))  # type: ignore[arg-type]
    return make
