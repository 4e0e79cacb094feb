"""The google provider through google-api-python-client against the strict Cloud DNS fake (tests/fakes/google.py):
Go-written record sets adopted with nothing sent; a create / no-op / update / delete cycle; an event's cost; a
record set someone changed since our read refused by the API's own precondition (412) and not replaced; a
refused change split so it blocks nothing else; quotas per change; 429 and 5xx (soft); bad credentials (fatal);
page counts; zone filters (visibility, peering, ids); credentials from a key file and from the metadata server
(GKE workload identity) with the project detected."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError, is_soft_error
from external_dns.controller.outcomes import is_fatal_error
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.plan.changes import Changes
from external_dns.providers.apizones import APIAuthError
from external_dns.providers.google import GoogleConfig, GoogleProvider
from external_dns.providers.provider import ProviderError
from tests.fakes.google import GoogleDNSFake
from tests.providers.cloudsync import HERITAGE, ep, sync
from tests.providers.google.conftest import MakeGoogle

pytestmark = pytest.mark.integration
CHANGES = "/dns/v1/projects/test-project/managedZones/org/changes"


def test_record_sets_written_by_go_external_dns_are_adopted_without_changes(
        gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    # As Go's provider writes them: absolute names, CNAME/MX/SRV/NS targets with the dot, TTL 300 when none.
    gfake.add_rrset("org", "app.example.org.", "A", 300, "10.0.0.5", "10.0.0.6")
    gfake.add_rrset("org", "a-app.example.org.", "TXT", 300, HERITAGE)
    gfake.add_rrset("org", "www.example.org.", "CNAME", 300, "app.example.org.")
    gfake.add_rrset("org", "cname-www.example.org.", "TXT", 300, HERITAGE)
    gfake.add_rrset("org", "mail.example.org.", "MX", 300, "10 mx.example.net.")
    gfake.add_rrset("org", "mx-mail.example.org.", "TXT", 300, HERITAGE)
    gfake.add_rrset("org", "_sip._udp.example.org.", "SRV", 60, "10 60 5060 sip.example.net.")
    gfake.add_rrset("org", "srv-_sip._udp.example.org.", "TXT", 300, HERITAGE)
    desired = [ep("app.example.org", "A", "10.0.0.6", "10.0.0.5"), ep("www.example.org", "CNAME", "app.example.org"),
               ep("mail.example.org", "MX", "10 mx.example.net"),
               ep("_sip._udp.example.org", "SRV", "10 60 5060 sip.example.net", ttl=60)]
    gfake.reset_calls()
    assert not sync(make_google(), desired).has_changes()
    assert gfake.count("POST", "/changes") == 0


def test_cycle_and_an_event_costing_one_change(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    provider = make_google(cache_seconds=600)
    desired = [ep("app.example.org", "A", "192.0.2.1", "192.0.2.2", ttl=120), ep("app.example.org", "AAAA", "2001:db8::1"),
               ep("www.example.com", "CNAME", "app.example.org"), ep("note.example.org", "TXT", "v=spf1 -all"),
               ep("inbox.example.com", "MX", "10 mail.example.net", "20 backup.example.net"),
               ep("_sip._udp.example.com", "SRV", "10 60 5060 sip.example.net"),
               ep("sub.example.org", "NS", "ns1.elsewhere.net", "ns2.elsewhere.net")]
    sync(provider, desired)
    org, com = gfake.rrsets("org"), gfake.rrsets("com")
    assert org[("app.example.org.", "A")] == (120, ["192.0.2.1", "192.0.2.2"])
    assert com[("www.example.com.", "CNAME")] == (300, ["app.example.org."])
    assert com[("inbox.example.com.", "MX")] == (300, ["10 mail.example.net.", "20 backup.example.net."])
    assert org[("sub.example.org.", "NS")] == (300, ["ns1.elsewhere.net.", "ns2.elsewhere.net."])
    assert ("a-app.example.org.", "TXT") in org
    gfake.reset_calls()
    assert not sync(provider, desired).has_changes()
    assert gfake.calls == []  # kept within --provider-cache-time
    assert not sync(make_google(), desired).has_changes() and gfake.count("POST", "/changes") == 0

    desired[0] = ep("app.example.org", "A", "192.0.2.3", ttl=120)
    gfake.reset_calls()
    assert sync(provider, desired).update_new
    assert gfake.calls == [("POST", CHANGES)]  # an event: one change, no listing
    assert gfake.rrsets("org")[("app.example.org.", "A")] == (120, ["192.0.2.3"])
    assert sync(provider, desired[1:]).delete
    assert ("app.example.org.", "A") not in gfake.rrsets("org") and ("a-app.example.org.", "TXT") not in \
        gfake.rrsets("org")


def test_a_record_set_changed_since_our_read_is_refused_not_replaced(
        gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    provider = make_google(cache_seconds=600)
    sync(provider, [ep("web.example.org", "A", "192.0.2.1"), ep("ok.example.org", "A", "192.0.2.5")])
    gfake.add_rrset("org", "web.example.org.", "A", 300, "192.0.2.1", "203.0.113.7")  # someone adds a value
    with pytest.raises(RunOnceError) as err:
        sync(provider, [ep("web.example.org", "A", "192.0.2.2"), ep("ok.example.org", "A", "192.0.2.6")])
    assert "conditionNotMet" in str(err.value) and "web.example.org" in str(err.value)
    assert gfake.rrsets("org")[("web.example.org.", "A")] == (300, ["192.0.2.1", "203.0.113.7"])
    assert gfake.rrsets("org")[("ok.example.org.", "A")] == (300, ["192.0.2.6"])  # the rest went through
    # The refused name was read again: the next plan sees the other value (and the ownership stays ours).
    gfake.reset_calls()
    changes = sync(provider, [ep("web.example.org", "A", "192.0.2.2"), ep("ok.example.org", "A", "192.0.2.6")])
    assert [list(e.targets) for e in changes.update_old] == [["192.0.2.1", "203.0.113.7"]]


def test_a_refused_change_blocks_nothing_else(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    provider = make_google(cache_seconds=600)
    provider.records()
    gfake.add_rrset("org", "taken.example.org.", "A", 300, "203.0.113.1")  # appears after our read
    desired = [ep("taken.example.org", "CNAME", "x.example.net"),
               *[ep(f"ok{i}.example.org", "A", f"192.0.2.{i}") for i in range(1, 8)]]
    with pytest.raises(RunOnceError) as err:
        sync(provider, desired)
    assert isinstance(err.value.__cause__, ProviderError) and not is_soft_error(err.value)
    rrsets = gfake.rrsets("org")
    assert all((f"ok{i}.example.org.", "A") in rrsets for i in range(1, 8))
    assert ("cname-taken.example.org.", "TXT") not in rrsets
    assert gfake.count("POST", "/changes") <= 7  # bisected: O(log n), not one request per record


def test_changes_stay_within_the_per_change_quota(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    gfake.quota["rrsetAdditionsPerChange"] = 10
    provider = make_google(batch_change_size=10)
    sync(provider, [ep(f"n{i}.example.org", "A", "192.0.2.1") for i in range(12)])
    assert len(gfake.rrsets("org")) == 24 and gfake.count("POST", "/changes") == 3  # groups of 2 kept whole: 5 + 5 + 2


def test_throttling_and_server_failures_are_soft(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    gfake.throttle(1)
    assert make_google().zones() == ("example.com", "example.org")  # retried by the client
    provider = make_google(max_retries=0, cache_seconds=600)
    provider.records()
    gfake.fail(1, status=503, match=lambda r: r.method == "POST")
    with pytest.raises(RunOnceError) as err:
        sync(provider, [ep("a.example.org", "A", "192.0.2.1")])
    assert is_soft_error(err.value)
    assert sync(provider, [ep("a.example.org", "A", "192.0.2.1")]).create
    assert ("a.example.org.", "A") in gfake.rrsets("org")


def test_bad_credentials_are_fatal(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    provider = make_google()
    gfake.tokens.clear()  # the token google-auth holds is no longer valid,
    gfake.service_accounts.clear()  # and the key is revoked: refreshing it fails (invalid_grant)
    with pytest.raises(APIAuthError) as err:
        provider.records()
    assert is_fatal_error(err.value) and "invalid_grant" in str(err.value)


def test_listing_costs_the_page_count(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    for i in range(23):
        gfake.add_rrset("org", f"p{i}.example.org.", "A", 300, "192.0.2.1")
    gfake.reset_calls()
    assert len(make_google(page_size=5).zone_records("example.org")) == 23
    assert gfake.count("GET", "/rrsets") == 5


def test_zone_filters(gfake: GoogleDNSFake, make_google: MakeGoogle) -> None:
    gfake.add_zone("internal", "corp.internal", visibility="private")
    gfake.add_zone("peer", "peer.example", peering=True)
    assert make_google().zones() == ("corp.internal", "example.com", "example.org")
    assert make_google(zone_visibility="private").zones() == ("corp.internal",)
    assert make_google(zone_id_filter=("org",)).zones() == ("example.org",)
    assert make_google(domain_filter=DomainFilter(include=["example.com"])).zones() == ("example.com",)


def test_workload_identity_through_the_metadata_server(gfake: GoogleDNSFake, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS")
    host = gfake.url.removeprefix("http://")
    monkeypatch.setenv("GCE_METADATA_HOST", host)
    monkeypatch.setenv("GCE_METADATA_IP", host)
    gfake.metadata_project = "test-project"
    provider = GoogleProvider(GoogleConfig(api_endpoint=gfake.url + "/", batch_change_interval=0.0))
    assert provider.project == "test-project"  # detected, as Go reads it from the metadata server
    provider.apply_changes(Changes(create=[ep("wi.example.org", "A", "192.0.2.1")]))
    assert ("wi.example.org.", "A") in gfake.rrsets("org")
    assert gfake.count("GET", "/service-accounts/default/token") >= 1
