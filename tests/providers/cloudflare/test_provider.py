"""The cloudflare provider through the official SDK against the strict fake of the API (tests/fakes/cloudflare.py),
reached the way a user points the SDK elsewhere: `CLOUDFLARE_BASE_URL`.

Covers: records as Go's cloudflare provider writes them adopted with nothing planned and nothing sent; a full
create / no-op / update / delete cycle of every type through the TXT registry; an event's cost in requests with
kept zones; values someone else put at our name left alone; a refused record that blocks nothing else (and
whose ownership TXT is not written); 429 with Retry-After retried by the SDK; a server failure mid-way (soft,
the rest applied at the next sync); bad credentials (fatal); page counts; zone filters; credentials from the
environment as external-dns reads them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError, is_soft_error
from external_dns.controller.outcomes import is_fatal_error
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError
from external_dns.plan.changes import Changes
from external_dns.providers.apizones import APIAuthError
from external_dns.providers.cloudflare import CloudflareConfig, CloudflareProvider, Credentials
from external_dns.providers.provider import ProviderError, SoftError
from tests.fakes.cloudflare import CloudflareFake
from tests.providers.cloudsync import HERITAGE, ep, sync

pytestmark = pytest.mark.integration
PROXIED = "external-dns.kubernetes.io/cloudflare-proxied"
TOKEN = "cf-test-token"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[CloudflareFake]:
    with CloudflareFake(token=TOKEN) as srv:
        monkeypatch.setenv("CLOUDFLARE_BASE_URL", srv.url + "/client/v4")
        srv.add_zone("example.org")
        srv.add_zone("example.com")
        yield srv


def make(**kw: object) -> CloudflareProvider:
    kw.setdefault("credentials", Credentials(api_token=TOKEN))
    return CloudflareProvider(CloudflareConfig(**kw))  # type: ignore[arg-type]


def writes(fake: CloudflareFake) -> list[tuple[str, str]]:
    return [c for c in fake.calls if c[0] != "GET"]


def test_records_written_by_go_external_dns_are_adopted_without_changes(fake: CloudflareFake) -> None:
    # As Go's provider writes them: one record per value, TTL 1 (automatic) without a TTL, proxied false,
    # MX priority apart, SRV in `data`, the ownership TXT in the registry's new format.
    for ip in ("10.0.0.5", "10.0.0.6"):
        fake.add_record("example.org", "app.example.org", "A", ip)
    fake.add_record("example.org", "a-app.example.org", "TXT", HERITAGE)
    fake.add_record("example.org", "www.example.org", "CNAME", "app.example.org", proxied=True)
    fake.add_record("example.org", "cname-www.example.org", "TXT", HERITAGE)
    fake.add_record("example.org", "mail.example.org", "MX", "mx.example.net", ttl=300, priority=10)
    fake.add_record("example.org", "mx-mail.example.org", "TXT", HERITAGE)
    fake.add_record("example.org", "_sip._udp.example.org", "SRV",
                    data={"priority": 10, "weight": 60, "port": 5060, "target": "sip.example.net"})
    fake.add_record("example.org", "srv-_sip._udp.example.org", "TXT", HERITAGE)
    desired = [ep("app.example.org", "A", "10.0.0.6", "10.0.0.5"),
               ep("www.example.org", "CNAME", "app.example.org", props={PROXIED: "true"}),
               ep("mail.example.org", "MX", "10 mx.example.net", ttl=300),
               ep("_sip._udp.example.org", "SRV", "10 60 5060 sip.example.net.")]
    fake.reset_calls()
    assert not sync(make(), desired).has_changes()
    assert writes(fake) == []


def test_every_type_created_resynced_as_noop_updated_and_deleted(fake: CloudflareFake) -> None:
    provider = make(cache_seconds=60)
    desired = [ep("app.example.org", "A", "192.0.2.1", "192.0.2.2", ttl=120),
               ep("app.example.org", "AAAA", "2001:db8::1"),
               ep("www.example.com", "CNAME", "app.example.org", props={PROXIED: "true"}),
               ep("note.example.org", "TXT", 'v=1 "quoted" and spaced'),
               ep("inbox.example.com", "MX", "10 mail.example.net", "20 backup.example.net"),
               ep("_sip._udp.example.com", "SRV", "10 60 5060 sip.example.net.")]
    created = sync(provider, desired)
    assert len(created.create) == len(desired)
    org, com = fake.values("example.org"), fake.values("example.com")
    assert {("app.example.org", "A", ip, 120, False) for ip in ("192.0.2.1", "192.0.2.2")} <= org
    assert ("www.example.com", "CNAME", "app.example.org", 1, True) in com  # proxied: automatic TTL
    assert ("inbox.example.com", "MX", "20 backup.example.net", 1, False) in com
    assert ("note.example.org", "TXT", 'v=1 "quoted" and spaced', 1, False) in org
    assert any(v[0] == "a-app.example.org" and "owner=default" in v[2] for v in org)
    fake.reset_calls()
    assert not sync(provider, desired).has_changes()
    assert fake.calls == []  # kept zones within --provider-cache-time: not even a read
    assert not sync(make(), desired).has_changes()  # a fresh process reads, plans nothing, writes nothing
    assert writes(fake) == []

    desired[0] = ep("app.example.org", "A", "192.0.2.2", "192.0.2.3", ttl=120)
    before = {r["content"]: r["id"] for r in fake.records("example.org") if r["name"] == "app.example.org"}
    assert sync(provider, desired).update_new
    after = {r["content"]: r["id"] for r in fake.records("example.org") if r["name"] == "app.example.org"}
    assert set(after) == {"192.0.2.2", "192.0.2.3", "2001:db8::1"}
    assert after["192.0.2.2"] == before["192.0.2.2"]  # the kept value's record is not rewritten

    assert sync(provider, desired[1:]).delete
    assert not any(v[0] in ("app.example.org", "a-app.example.org") and v[1] != "AAAA" and "AAAA" not in v[2]
                   for v in fake.values("example.org"))
    assert ("app.example.org", "AAAA", "2001:db8::1", 1, False) in fake.values("example.org")


def test_an_event_costs_one_batch_and_no_listing(fake: CloudflareFake) -> None:
    for i in range(60):
        fake.add_record("example.org", f"h{i}.example.org", "A", f"198.51.100.{i}")
    provider = make(cache_seconds=600, per_page=25)
    desired = [ep("web.example.org", "A", "192.0.2.1")]
    sync(provider, desired)
    fake.reset_calls()
    desired = [ep("web.example.org", "A", "192.0.2.9")]
    assert sync(provider, desired).update_new
    # Within VERIFY_AGE of our own write nothing is read again: one batch request.
    assert fake.calls == [("POST", f"/client/v4/zones/{fake.zone_id('example.org')}/dns_records/batch")]


def test_values_someone_else_put_at_our_name_are_never_joined_replaced_or_deleted(fake: CloudflareFake) -> None:
    provider = make(cache_seconds=600)
    sync(provider, [ep("web.example.org", "A", "192.0.2.1", "192.0.2.2"), ep("ok.example.org", "A", "192.0.2.5")])
    fake.add_record("example.org", "web.example.org", "A", "203.0.113.7")  # after our read (kept 10 minutes)
    fake.add_record("example.org", "a-new.example.org", "TXT", "hand-made")  # at the name of our ownership TXT
    kept = provider._kept["example.org"]
    kept.name_read_at.clear()
    kept.read_at -= 60  # our view is a minute old: a write reads its names again first
    with pytest.raises(RunOnceError) as err:
        sync(provider, [ep("ok.example.org", "A", "192.0.2.6"), ep("new.example.org", "A", "192.0.2.9")])
    assert "did not write (203.0.113.7)" in str(err.value)  # the delete of web: refused, not partial
    values = fake.values("example.org")
    assert {v[2] for v in values if v[0] == "web.example.org"} == {"192.0.2.1", "192.0.2.2", "203.0.113.7"}
    assert {v[2] for v in values if v[0] == "ok.example.org"} == {"192.0.2.6"}  # the rest went through
    # The create of new.example.org would join a hand-made TXT at its ownership name: refused with its record.
    assert not any(v[0] == "new.example.org" for v in values)
    assert {v[2] for v in values if v[0] == "a-new.example.org"} == {"hand-made"}


def test_a_refused_record_blocks_nothing_else_and_its_txt_is_not_written(fake: CloudflareFake) -> None:
    provider = make(cache_seconds=600)
    provider.records()  # read before someone else takes the name: the plan cannot see the conflict
    fake.add_record("example.org", "taken.example.org", "A", "203.0.113.1")  # a CNAME cannot join it (81053)
    desired = [ep("taken.example.org", "CNAME", "elsewhere.example.net"),
               *[ep(f"ok{i}.example.org", "A", f"192.0.2.{i}") for i in range(1, 6)]]
    with pytest.raises(RunOnceError) as err:
        sync(provider, desired)
    assert isinstance(err.value.__cause__, ProviderError) and not is_soft_error(err.value)
    assert "81053" in str(err.value) and "taken.example.org" in str(err.value)
    names = {v[0] for v in fake.values("example.org")}
    assert {f"ok{i}.example.org" for i in range(1, 6)} | {f"a-ok{i}.example.org" for i in range(1, 6)} <= names
    assert "cname-taken.example.org" not in names
    # Bisection: 6 groups, one refused -> 1 + 2 + 2 + 2 requests at most (log2), not one per record.
    assert fake.count("POST", "/batch") <= 7


def test_an_invalid_ttl_is_refused_before_sending_and_blocks_nothing(fake: CloudflareFake) -> None:
    provider = make()
    with pytest.raises(ProviderError, match="TTL 30"):
        provider.apply_changes(Changes(create=provider.adjust_endpoints(
            [ep("short.example.org", "A", "192.0.2.1", ttl=30), ep("fine.example.org", "A", "192.0.2.2")])))
    assert {v[0] for v in fake.values("example.org")} == {"fine.example.org"}


def test_429_with_retry_after_is_retried_by_the_sdk(fake: CloudflareFake) -> None:
    fake.throttle(1, retry_after="0")
    assert not sync(make(), []).has_changes()
    assert fake.calls[0][1] == fake.calls[1][1]  # the same request again after the 429
    fake.throttle(10, retry_after="0")
    with pytest.raises(RunOnceError) as err:
        sync(make(max_retries=1), [])
    assert is_soft_error(err.value)


def test_a_server_failure_mid_way_is_soft_and_the_next_sync_completes(fake: CloudflareFake) -> None:
    provider = make(cache_seconds=600, max_retries=0)
    desired = [ep(f"n{i:03}.example.org", "A", "192.0.2.1") for i in range(150)]  # 300 changes: 2 batches
    fake.fail(1, status=502, after=1, match=lambda r: r.path.endswith("/batch"))
    with pytest.raises(RunOnceError) as err:
        sync(provider, desired)
    assert is_soft_error(err.value)
    assert 0 < len(fake.records("example.org")) < 300  # the first batch is in, the failed one is not
    assert sync(provider, desired).create
    assert len(fake.records("example.org")) == 300
    assert not sync(provider, desired).has_changes()


def test_bad_credentials_are_fatal(fake: CloudflareFake) -> None:
    provider = make(credentials=Credentials(api_token="wrong"))
    with pytest.raises(APIAuthError) as err:
        provider.records()
    assert is_fatal_error(err.value) and "10000" in str(err.value)
    assert "wrong" not in str(err.value)


def test_listing_costs_the_page_count(fake: CloudflareFake) -> None:
    for i in range(23):
        fake.add_record("example.org", f"p{i}.example.org", "A", "192.0.2.1")
    provider = make(per_page=5)
    fake.reset_calls()
    assert len(provider.zone_records("example.org")) == 23
    assert fake.count("GET", "/dns_records") == 5  # ceil(23 / 5), no trailing empty page


def test_zone_filters(fake: CloudflareFake) -> None:
    assert make(domain_filter=DomainFilter(include=["example.com"])).zones() == ("example.com",)
    only = make(zone_id_filter=(fake.zone_id("example.org"),))
    assert only.zones() == ("example.org",)
    assert make(domain_filter=DomainFilter(include=["nothing.test"])).get_domain_filter().match("x.example.org") \
        is False


def test_credentials_from_the_environment_as_external_dns(fake: CloudflareFake, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    assert Credentials.from_env({"CF_API_TOKEN": f"file:{token_file}"}).api_token == TOKEN
    creds = Credentials.from_env({"CF_API_KEY": "k", "CF_API_EMAIL": "ops@example.org"})
    assert (creds.api_key, creds.api_email) == ("k", "ops@example.org") and "k'" not in repr(creds)
    with pytest.raises(ConfigError, match="CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL"):
        Credentials.from_env({})
    fake.api_key, fake.email = "global-key", "ops@example.org"
    provider = make(credentials=Credentials(api_key="global-key", api_email="ops@example.org"))
    assert provider.zones() == ("example.com", "example.org")
    assert TOKEN not in repr(Credentials(api_token=TOKEN))


def test_soft_error_type(fake: CloudflareFake) -> None:
    fake.fail(5, status=503)
    with pytest.raises(SoftError):
        make(max_retries=0).zones()


def test_regional_hostnames_follow_the_region_key(fake: CloudflareFake) -> None:
    region = "external-dns.kubernetes.io/cloudflare-region-key"
    provider = make(region_key="eu", cache_seconds=600)
    desired = [ep("eu.example.org", "A", "192.0.2.1"), ep("us.example.org", "A", "192.0.2.2", props={region: "us"}),
               ep("note.example.org", "TXT", "v=1")]
    sync(provider, desired)
    regional = fake.zones[fake.zone_id("example.org")].regional
    assert {h: r["region_key"] for h, r in regional.items()} == {"eu.example.org": "eu", "us.example.org": "us"}
    fake.reset_calls()
    assert not sync(make(region_key="eu"), desired).has_changes()  # read back: nothing planned
    assert writes(fake) == []
    desired[1] = ep("us.example.org", "A", "192.0.2.2", props={region: "ca"})
    assert sync(provider, desired).update_new
    assert regional["us.example.org"]["region_key"] == "ca"
    assert sync(provider, desired[1:]).delete
    assert set(regional) == {"us.example.org"}
    fake.reset_calls()
    make(region_key="eu").records()  # a full read: one more request, the zone's regional hostnames
    assert fake.count("GET", "/regional_hostnames") == 2  # both zones
