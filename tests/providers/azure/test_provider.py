"""The azure provider through azure-mgmt-dns and azure-identity against the strict Azure DNS fake
(tests/fakes/azure.py): Go-written record sets adopted with nothing sent; a cycle and an event's cost; record
sets someone changed or created since our read refused by the API's etag preconditions and left as they are; a
refusal that stops only its own group; 429 and 5xx (soft); a bad secret (fatal); page counts; zone filters;
workload identity; `azure/tags` as metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError, is_soft_error
from external_dns.controller.outcomes import is_fatal_error
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.providers.apizones import APIAuthError
from external_dns.providers.provider import ProviderError
from tests.fakes.azure import AzureDNSFake
from tests.providers.azure.conftest import MakeAzure
from tests.providers.cloudsync import HERITAGE, ep, sync

pytestmark = pytest.mark.integration


def writes(fake: AzureDNSFake) -> list[tuple[str, str]]:
    return [c for c in fake.calls if c[0] in ("PUT", "DELETE") and c[1].startswith("/subscriptions/")]


def test_record_sets_written_by_go_external_dns_are_adopted_without_changes(
        afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    txt = [{"value": [HERITAGE]}]
    afake.add_record_set("example.org", "app", "A", 300, [{"ipv4Address": "10.0.0.5"}, {"ipv4Address": "10.0.0.6"}])
    afake.add_record_set("example.org", "a-app", "TXT", 300, txt)
    afake.add_record_set("example.org", "www", "CNAME", 300, {"cname": "app.example.org"})
    afake.add_record_set("example.org", "cname-www", "TXT", 300, txt)
    afake.add_record_set("example.org", "mail", "MX", 300, [{"preference": 10, "exchange": "mx.example.net"}])
    afake.add_record_set("example.org", "mx-mail", "TXT", 300, txt)
    desired = [ep("app.example.org", "A", "10.0.0.6", "10.0.0.5"), ep("www.example.org", "CNAME", "app.example.org"),
               ep("mail.example.org", "MX", "10 mx.example.net")]
    afake.reset_calls()
    assert not sync(make_azure(), desired).has_changes()
    assert writes(afake) == []


def test_cycle_and_an_event_costing_one_request(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    provider = make_azure(cache_seconds=600)
    desired = [ep("app.example.org", "A", "192.0.2.1", "192.0.2.2", ttl=120), ep("app.example.org", "AAAA", "2001:db8::1"),
               ep("www.example.com", "CNAME", "app.example.org"), ep("note.example.org", "TXT", "v=spf1 -all"),
               ep("inbox.example.com", "MX", "10 mail.example.net", "20 backup.example.net"),
               ep("sub.example.org", "NS", "ns1.elsewhere.net", "ns2.elsewhere.net")]
    sync(provider, desired)
    org = afake.values("example.org")
    assert org[("app", "A")] == (120, [{"ipv4Address": "192.0.2.1"}, {"ipv4Address": "192.0.2.2"}])
    assert afake.values("example.com")[("www", "CNAME")] == (300, {"cname": "app.example.org"})
    assert ("a-app", "TXT") in org and ("aaaa-app", "TXT") in org
    afake.reset_calls()
    assert not sync(provider, desired).has_changes()
    assert afake.calls == []
    assert not sync(make_azure(), desired).has_changes() and writes(afake) == []
    desired[0] = ep("app.example.org", "A", "192.0.2.3", ttl=120)
    afake.reset_calls()
    assert sync(provider, desired).update_new
    assert [c[0] for c in afake.calls] == ["PUT"]  # an event: one request, no listing
    assert afake.values("example.org")[("app", "A")] == (120, [{"ipv4Address": "192.0.2.3"}])
    assert sync(provider, desired[1:]).delete
    assert ("app", "A") not in afake.values("example.org") and ("a-app", "TXT") not in afake.values("example.org")


def test_record_sets_changed_or_created_since_our_read_are_refused_not_replaced(
        afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    provider = make_azure(cache_seconds=600)
    sync(provider, [ep("web.example.org", "A", "192.0.2.1"), ep("ok.example.org", "A", "192.0.2.5")])
    afake.add_record_set("example.org", "web", "A", 300, [{"ipv4Address": "192.0.2.1"}, {"ipv4Address": "203.0.113.7"}])
    afake.add_record_set("example.org", "new", "A", 300, [{"ipv4Address": "203.0.113.8"}])  # after our read
    with pytest.raises(RunOnceError) as err:
        sync(provider, [ep("web.example.org", "A", "192.0.2.2"), ep("ok.example.org", "A", "192.0.2.6"),
                        ep("new.example.org", "A", "192.0.2.9")])
    assert isinstance(err.value.__cause__, ProviderError) and not is_soft_error(err.value)
    assert "PreconditionFailed" in str(err.value)
    values = afake.values("example.org")
    assert values[("web", "A")][1] == [{"ipv4Address": "192.0.2.1"}, {"ipv4Address": "203.0.113.7"}]
    assert values[("new", "A")][1] == [{"ipv4Address": "203.0.113.8"}] and ("a-new", "TXT") not in values
    assert values[("ok", "A")][1] == [{"ipv4Address": "192.0.2.6"}]  # the rest went through


def test_throttling_and_server_failures_are_soft(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    afake.throttle(1, retry_after="0")
    assert make_azure().zones() == ("example.com", "example.org")  # azure-core retried after Retry-After
    provider = make_azure(max_retries=0, cache_seconds=600)
    provider.records()
    afake.fail(1, status=503, match=lambda r: r.method == "PUT")
    with pytest.raises(RunOnceError) as err:
        sync(provider, [ep("a.example.org", "A", "192.0.2.1")])
    assert is_soft_error(err.value)
    assert sync(provider, [ep("a.example.org", "A", "192.0.2.1")]).create
    assert ("a", "A") in afake.values("example.org")


def test_a_bad_secret_is_fatal_and_never_shown(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    with pytest.raises(APIAuthError) as err:
        make_azure(file_extra={"aadClientSecret": "wrong-secret"}).records()
    assert is_fatal_error(err.value) and "wrong-secret" not in str(err.value)


def test_listing_costs_the_page_count(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    for i in range(23):
        afake.add_record_set("example.org", f"p{i}", "A", 300, [{"ipv4Address": "192.0.2.1"}])
    provider = make_azure(page_size=5)
    provider.zones()
    afake.reset_calls()
    assert len(provider.zone_records("example.org")) == 23
    assert afake.count("GET", "/all") == 5


def test_zone_filters(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    assert make_azure(domain_filter=DomainFilter(include=["example.com"])).zones() == ("example.com",)
    assert make_azure(domain_filter=DomainFilter(include=["nothing.test"]),
                      zone_name_filter=DomainFilter(include=["example.org"])).zones() == ("example.org",)
    assert make_azure(zone_id_filter=("dnszones/example.org",)).zones() == ("example.org",)


def test_workload_identity(afake: AzureDNSFake, make_azure: MakeAzure, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    token = tmp_path / "azure-identity-token"
    token.write_text("federated-service-account-token")
    afake.federated_tokens.add("federated-service-account-token")
    monkeypatch.setenv("AZURE_FEDERATED_TOKEN_FILE", str(token))
    provider = make_azure(file_extra={"aadClientSecret": "", "useWorkloadIdentityExtension": True})
    assert provider.zones() == ("example.com", "example.org")


def test_azure_tags_become_metadata_and_resync_as_noop(afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    provider = make_azure()
    desired = [ep("tagged.example.org", "A", "192.0.2.1", props={"azure/tags": "team=dns, env=prod"})]
    sync(provider, desired)
    assert afake.record_sets("example.org")[("tagged", "A")]["properties"]["metadata"] == {"env": "prod", "team": "dns"}
    assert not sync(make_azure(), desired).has_changes()


def test_a_hand_made_txt_at_our_ownership_name_refuses_the_group_before_anything_is_written(
        afake: AzureDNSFake, make_azure: MakeAzure) -> None:
    afake.add_record_set("example.org", "a-new", "TXT", 300, [{"value": ["hand-made"]}])
    with pytest.raises(RunOnceError) as err:
        sync(make_azure(), [ep("new.example.org", "A", "192.0.2.9"), ep("ok.example.org", "A", "192.0.2.5")])
    assert "did not write (hand-made)" in str(err.value)
    values = afake.values("example.org")
    assert ("new", "A") not in values and values[("a-new", "TXT")][1] == [{"value": ["hand-made"]}]
    assert ("ok", "A") in values and ("a-ok", "TXT") in values
