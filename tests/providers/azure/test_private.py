"""The azure-private-dns provider through azure-mgmt-privatedns against the fake in its Private DNS form
(`privateDnsZones`, api-version 2024-06-01, camelCase properties): Go-written record sets adopted with nothing
sent, a cycle and an event's cost, a record set changed since our read refused (etag) and left alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError
from external_dns.providers.azure import AzureConfig, AzureFile, AzurePrivateDNSProvider
from tests.fakes.azure import AzureDNSFake, config_file
from tests.providers.cloudsync import HERITAGE, ep, sync

pytestmark = pytest.mark.integration


@pytest.fixture
def pfake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AzureDNSFake]:
    with AzureDNSFake(tmp_path / "certs", private=True) as srv:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", srv.ca_file)
        srv.add_zone("corp.internal")
        yield srv


def make(fake: AzureDNSFake, tmp_path: Path, **kw: object) -> AzurePrivateDNSProvider:
    path = config_file(tmp_path / "azure.json", fake)
    return AzurePrivateDNSProvider(AzureConfig(file=AzureFile.read(str(path)), max_retries=1, **kw))  # type: ignore[arg-type]


def test_go_written_record_sets_adopted_then_a_cycle(pfake: AzureDNSFake, tmp_path: Path) -> None:
    pfake.add_record_set("corp.internal", "db", "A", 300, [{"ipv4Address": "10.1.0.5"}])
    pfake.add_record_set("corp.internal", "a-db", "TXT", 300, [{"value": [HERITAGE]}])
    provider = make(pfake, tmp_path, cache_seconds=600)
    desired = [ep("db.corp.internal", "A", "10.1.0.5")]
    pfake.reset_calls()
    assert not sync(provider, desired).has_changes()
    assert pfake.count("PUT") == pfake.count("DELETE") == 0
    desired.append(ep("cache.corp.internal", "CNAME", "db.corp.internal"))
    sync(provider, desired)
    assert pfake.values("corp.internal")[("cache", "CNAME")] == (300, {"cname": "db.corp.internal"})
    pfake.reset_calls()
    desired[0] = ep("db.corp.internal", "A", "10.1.0.6")
    assert sync(provider, desired).update_new
    assert [c[0] for c in pfake.calls] == ["PUT"]
    assert pfake.values("corp.internal")[("db", "A")] == (300, [{"ipv4Address": "10.1.0.6"}])
    assert sync(provider, desired[:1]).delete
    assert ("cache", "CNAME") not in pfake.values("corp.internal")


def test_a_record_set_changed_since_our_read_is_refused(pfake: AzureDNSFake, tmp_path: Path) -> None:
    provider = make(pfake, tmp_path, cache_seconds=600)
    sync(provider, [ep("db.corp.internal", "A", "10.1.0.5")])
    pfake.add_record_set("corp.internal", "db", "A", 300, [{"ipv4Address": "10.1.0.5"}, {"ipv4Address": "10.9.9.9"}])
    with pytest.raises(RunOnceError, match="PreconditionFailed"):
        sync(provider, [ep("db.corp.internal", "A", "10.1.0.7")])
    assert pfake.values("corp.internal")[("db", "A")][1] == [{"ipv4Address": "10.1.0.5"}, {"ipv4Address": "10.9.9.9"}]
