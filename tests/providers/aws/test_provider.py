"""The Route53 provider against a real moto server: zones (pagination, filters, private/public), records
(pagination, aliases, routing policies), batching as the server received it, per-group retry, limits, and
full controller syncs through the TXT registry with a no-op re-sync."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from structlog.testing import capture_logs

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.aws import AWSProvider
from external_dns.providers.provider import SoftError
from external_dns.registry.txt import TXTRegistry
from tests.helpers.sources import StaticSource
from tests.providers.aws.conftest import E, by_name_type, create_zone, record_calls, rrsets

pytestmark = pytest.mark.integration
MakeProvider = Callable[..., AWSProvider]


def controller(provider: AWSProvider, endpoints: list[Endpoint], owner: str = "default",
               managed: tuple[str, ...] = ("A", "AAAA", "CNAME", "TXT")) -> Controller:
    registry = TXTRegistry(provider, owner_id=owner, managed_record_types=managed)
    return Controller(StaticSource(endpoints), registry, "sync", managed_record_types=list(managed))


def a(name: str, *targets: str, **kw: Any) -> Endpoint:
    return E(name, "A", list(targets), **kw)


# -- zones ------------------------------------------------------------------------------------------------
def test_more_than_100_zones_are_all_listed(r53: Any, make_provider: MakeProvider) -> None:
    ids = {create_zone(r53, f"z{i:03}.example.net") for i in range(120)}
    provider = make_provider()
    calls = record_calls(provider, "ListHostedZones")
    zones = provider.hosted_zones()
    assert {z.id for z in zones} == ids
    assert calls.count("ListHostedZones") == 2  # pages of 100
    assert len(provider.zones()) == 120


def test_zone_filters(r53: Any, make_provider: MakeProvider) -> None:
    pub = create_zone(r53, "example.com", tags={"team": "a"})
    priv = create_zone(r53, "example.com", private=True, tags={"team": "b"})
    other = create_zone(r53, "other.org", tags={"team": "a", "env": "prod"})
    from external_dns.endpoint.domain_filter import DomainFilter

    def ids(**kw: Any) -> set[str]:
        return {z.id for z in make_provider(**kw).hosted_zones()}

    assert ids() == {pub, priv, other}
    assert ids(zone_type="public") == {pub, other}
    assert ids(zone_type="private") == {priv}
    assert ids(zone_id_filter=[other]) == {other}
    assert ids(zone_tags=["team=a"]) == {pub, other}
    assert ids(zone_tags=["team=a", "env"]) == {other}
    assert ids(domain_filter=DomainFilter(include=["example.com"])) == {pub, priv}
    sub = DomainFilter(include=["app.other.org"])
    assert ids(domain_filter=sub) == set()
    assert ids(domain_filter=sub, zone_match_parent=True) == {other}


def test_zone_list_is_cached(r53: Any, make_provider: MakeProvider) -> None:
    create_zone(r53, "example.com")
    provider = make_provider(zones_cache_duration=3600)
    calls = record_calls(provider, "ListHostedZones")
    for _ in range(3):
        provider.records()
        provider.get_domain_filter()
    assert calls.count("ListHostedZones") == 1
    uncached = make_provider()
    calls = record_calls(uncached, "ListHostedZones")
    uncached.records()
    uncached.get_domain_filter()
    assert calls.count("ListHostedZones") == 2


def test_domain_filter_comes_from_zones(r53: Any, make_provider: MakeProvider) -> None:
    create_zone(r53, "example.com")
    flt = make_provider().get_domain_filter()
    assert flt.match("www.example.com") and flt.match("example.com")
    assert not flt.match("www.example.org") and not flt.match("badexample.com")


def test_no_zones_means_nothing_matches(make_provider: MakeProvider) -> None:
    flt = make_provider().get_domain_filter()
    assert not flt.match("www.example.com")


# -- records ----------------------------------------------------------------------------------------------
def test_more_than_300_records_are_paged(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    provider.apply_changes(Changes(create=[a(f"r{i:03}.example.com", f"10.0.{i // 250}.{i % 250 + 1}")
                                           for i in range(650)]))
    calls = record_calls(provider, "ListResourceRecordSets")
    eps = provider.records()
    names = {e.dns_name for e in eps if e.record_type == "A"}
    assert len(names) == 650 and "r649.example.com" in names
    assert calls.count("ListResourceRecordSets") == 3
    assert all(c["MaxItems"] == "300" for c in calls.calls["ListResourceRecordSets"])
    assert len(rrsets(r53, zone)) == 650


def test_weighted_group_across_a_page_boundary(r53: Any, make_provider: MakeProvider) -> None:
    """moto ignores StartRecordIdentifier and serves a page ending inside a weighted group again from the
    group's start: the reader drops the repeated record sets and still reads everything once."""
    create_zone(r53, "example.com")
    weighted = [a("w.example.com", f"10.0.0.{i}", set_identifier=f"s{i}").with_provider_specific("aws/weight", "1")
                for i in range(1, 5)]
    make_provider().apply_changes(Changes(create=[*weighted, a("x.example.com", "10.0.1.1"),
                                                  a("y.example.com", "10.0.1.2")]))
    provider = make_provider(page_size=4)  # NS, SOA, s1, s2 | s1..s4 (again from the group start) | x, y
    calls = record_calls(provider, "ListResourceRecordSets")
    eps = [e for e in provider.records() if e.record_type == "A"]
    keys = [(e.dns_name, e.set_identifier) for e in eps]
    assert len(keys) == len(set(keys)) == 6
    assert calls.count("ListResourceRecordSets") == 3


def test_group_larger_than_a_page_stops_instead_of_looping(r53: Any, make_provider: MakeProvider) -> None:
    """With no NextRecordIdentifier (moto) a weighted group larger than a page can never be passed: the
    reader notices the repeated page start and fails softly instead of spinning forever."""
    create_zone(r53, "example.com")
    weighted = [a("w.example.com", f"10.0.0.{i}", set_identifier=f"s{i}").with_provider_specific("aws/weight", "1")
                for i in range(1, 5)]
    make_provider().apply_changes(Changes(create=weighted))
    with pytest.raises(SoftError, match="repeated page start"):
        make_provider(page_size=3).records()


def test_wildcard_and_mixed_case_names(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    provider.apply_changes(Changes(create=[a("*.Wild.Example.com", "10.0.0.1"), a("UPPER.example.com", "10.0.0.2")]))
    assert {("*.wild.example.com", "A", ""), ("upper.example.com", "A", "")} <= set(by_name_type(r53, zone))
    names = {e.dns_name for e in provider.records()}
    assert {"*.wild.example.com", "upper.example.com"} <= names


# -- batching as the server saw it -----------------------------------------------------------------------
def test_2500_creates_are_split_into_server_batches(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    calls = record_calls(provider, "ChangeResourceRecordSets")
    provider.apply_changes(Changes(create=[a(f"r{i:04}.example.com", f"10.{i // 250}.0.{i % 250 + 1}")
                                           for i in range(2500)]))
    assert calls.batch_sizes() == [1000, 1000, 500]
    assert len(rrsets(r53, zone)) == 2500


def test_upserts_count_twice_against_the_server_limit(r53: Any, make_provider: MakeProvider) -> None:
    create_zone(r53, "example.com")
    provider = make_provider()
    old = [a(f"r{i:03}.example.com", "10.0.0.1") for i in range(600)]
    provider.apply_changes(Changes(create=old))
    new = [a(f"r{i:03}.example.com", "10.0.0.2") for i in range(600)]
    calls = record_calls(provider, "ChangeResourceRecordSets")
    provider.apply_changes(Changes(update_old=old, update_new=new))  # moto refuses > 1000 values per request
    assert calls.batch_sizes() == [500, 100]
    actions = {c["Action"] for p in calls.calls["ChangeResourceRecordSets"] for c in p["ChangeBatch"]["Changes"]}
    assert actions == {"UPSERT"}
    assert {next(iter(e.targets)) for e in provider.records() if e.record_type == "A"} == {"10.0.0.2"}


def test_sync_with_txt_registry_keeps_records_and_ownership_in_one_batch(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider(batch_change_size=101)
    calls = record_calls(provider, "ChangeResourceRecordSets")
    desired = [a(f"r{i:03}.example.com", "10.0.0.1") for i in range(300)]
    controller(provider, desired).run_once()
    assert sum(calls.batch_sizes()) == 600 and max(calls.batch_sizes()) <= 101
    for params in calls.calls["ChangeResourceRecordSets"]:
        names = [c["ResourceRecordSet"]["Name"] for c in params["ChangeBatch"]["Changes"]]
        records = {n for n in names if not n.startswith("a-")}
        assert {n.removeprefix("a-") for n in names if n.startswith("a-")} == records
    assert len(rrsets(r53, zone)) == 600
    again = controller(provider, desired).run_once()
    assert not again.changes.has_changes()


# -- aliases, routing policies, private/public --------------------------------------------------------------
def test_cname_to_elb_is_written_as_alias_and_resync_is_a_no_op(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    desired = [E("www.example.com", "CNAME", ["k8s-web-123.us-east-1.elb.amazonaws.com"]),
               E("cdn.example.com", "CNAME", ["d111111abcdef8.cloudfront.net"]),
               E("plain.example.com", "CNAME", ["other.example.org"])]
    first = controller(provider, desired).run_once()
    assert first.applied
    sets = by_name_type(r53, zone)
    for rtype in ("A", "AAAA"):
        assert sets[("www.example.com", rtype, "")]["AliasTarget"]["HostedZoneId"] == "Z35SXDOTRQ7X7K"
        assert sets[("cdn.example.com", rtype, "")]["AliasTarget"]["HostedZoneId"] == "Z2FDTNDATAQYW2"
        assert ("a-www.example.com" if rtype == "A" else "aaaa-www.example.com", "TXT", "") in sets
    assert sets[("plain.example.com", "CNAME", "")]["ResourceRecords"] == [{"Value": "other.example.org"}]
    second = controller(provider, desired).run_once()
    assert not second.changes.has_changes()


def test_same_zone_alias_and_eth_flag(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider(evaluate_target_health=False)
    desired = [a("target.example.com", "10.0.0.1"),
               a("alias.example.com", "target.example.com").with_provider_specific("alias", "true")]
    controller(provider, desired).run_once()
    alias = by_name_type(r53, zone)[("alias.example.com", "A", "")]["AliasTarget"]
    assert alias["HostedZoneId"] == zone and alias["EvaluateTargetHealth"] is False
    assert not controller(provider, desired).run_once().changes.has_changes()


def test_weighted_records_and_their_ownership_txt(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    desired = [a("api.example.com", "10.0.0.1", set_identifier="us").with_provider_specific("aws/weight", "100"),
               a("api.example.com", "10.0.0.2", set_identifier="eu").with_provider_specific("aws/weight", "50")]
    controller(provider, desired).run_once()
    sets = by_name_type(r53, zone)
    assert sets[("api.example.com", "A", "us")]["Weight"] == 100
    assert sets[("api.example.com", "A", "eu")]["Weight"] == 50
    txt = sets[("a-api.example.com", "TXT", "us")]
    assert txt["Weight"] == 100 and "external-dns/owner=default" in txt["ResourceRecords"][0]["Value"]
    assert sets[("a-api.example.com", "TXT", "eu")]["Weight"] == 50
    assert not controller(provider, desired).run_once().changes.has_changes()
    # Weight change: an UPSERT of the record and its TXT, nothing else.
    desired[1] = a("api.example.com", "10.0.0.2", set_identifier="eu").with_provider_specific("aws/weight", "10")
    calls = record_calls(provider, "ChangeResourceRecordSets")
    controller(provider, desired).run_once()
    changes = [c for p in calls.calls["ChangeResourceRecordSets"] for c in p["ChangeBatch"]["Changes"]]
    assert sorted((c["Action"], c["ResourceRecordSet"]["Name"]) for c in changes) == [
        ("UPSERT", "a-api.example.com"), ("UPSERT", "api.example.com")]
    assert by_name_type(r53, zone)[("api.example.com", "A", "eu")]["Weight"] == 10


def test_type_change_is_delete_plus_create(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    old = a("x.example.com", "10.0.0.1")
    provider.apply_changes(Changes(create=[old]))
    read = next(e for e in provider.records() if e.dns_name == "x.example.com")
    new = a("x.example.com", "d1.cloudfront.net").with_provider_specific("alias", "true")
    new = provider.adjust_endpoints([new])[0]
    calls = record_calls(provider, "ChangeResourceRecordSets")
    provider.apply_changes(Changes(update_old=[read], update_new=[new]))
    assert [c["Action"] for c in calls.calls["ChangeResourceRecordSets"][0]["ChangeBatch"]["Changes"]] == [
        "DELETE", "CREATE"]
    assert "AliasTarget" in by_name_type(r53, zone)[("x.example.com", "A", "")]


def test_private_and_public_zones(r53: Any, make_provider: MakeProvider) -> None:
    pub = create_zone(r53, "example.com")
    priv = create_zone(r53, "example.com", private=True)
    sub = create_zone(r53, "sub.example.com")
    make_provider().apply_changes(Changes(create=[a("www.example.com", "10.0.0.1"),
                                                  a("app.sub.example.com", "10.0.0.2")]))
    assert ("www.example.com", "A", "") in by_name_type(r53, pub)
    assert ("www.example.com", "A", "") in by_name_type(r53, priv)
    # the longest public zone wins; the private parent zone also gets it
    assert ("app.sub.example.com", "A", "") in by_name_type(r53, sub)
    assert ("app.sub.example.com", "A", "") not in by_name_type(r53, pub)
    assert ("app.sub.example.com", "A", "") in by_name_type(r53, priv)
    only_private = make_provider(zone_type="private")
    only_private.apply_changes(Changes(create=[a("db.example.com", "10.0.0.3")]))
    assert ("db.example.com", "A", "") in by_name_type(r53, priv)
    assert ("db.example.com", "A", "") not in by_name_type(r53, pub)


# -- limits and failures ----------------------------------------------------------------------------------
def test_record_over_a_limit_fails_alone(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider(batch_change_size_values=10)
    too_many = a("many.example.com", *[f"10.0.0.{i}" for i in range(1, 13)])
    too_long = E("long.example.com", "TXT", ['"' + "x" * 300 + '"'])
    fine = [a(f"ok{i}.example.com", "10.0.1.1") for i in range(5)]
    with pytest.raises(SoftError) as info:
        provider.apply_changes(Changes(create=[too_many, too_long, *fine]))
    assert "long.example.com" in str(info.value)
    names = {k[0] for k in by_name_type(r53, zone)}
    assert names == {f"ok{i}.example.com" for i in range(5)}


def test_cname_next_to_other_data_is_refused_by_us(r53: Any, make_provider: MakeProvider) -> None:
    """moto accepts a CNAME beside an A record; Route53 does not, so we refuse it before sending."""
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    provider.apply_changes(Changes(create=[a("www.example.com", "10.0.0.1")]))
    provider.records()
    with pytest.raises(SoftError, match="CNAME cannot coexist"):
        provider.apply_changes(Changes(create=[E("www.example.com", "CNAME", ["x.example.org"]),
                                               a("fine.example.com", "10.0.0.9")]))
    assert set(by_name_type(r53, zone)) == {("www.example.com", "A", ""), ("fine.example.com", "A", "")}


def test_a_failing_change_does_not_block_the_rest(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    calls = record_calls(provider, "ChangeResourceRecordSets")
    missing = a("ghost.example.com", "10.9.9.9")  # DELETE of a record that is not there: refused
    creates = [a(f"n{i}.example.com", "10.0.0.1") for i in range(3)]
    with pytest.raises(SoftError, match=r"example\.com"):
        provider.apply_changes(Changes(create=creates, delete=[missing]))
    assert calls.batch_sizes() == [4, 1, 1, 1, 1]
    assert {k[0] for k in by_name_type(r53, zone)} == {f"n{i}.example.com" for i in range(3)}


def test_dry_run_writes_nothing(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider(dry_run=True)
    calls = record_calls(provider, "ChangeResourceRecordSets")
    with capture_logs() as logs:  # whatever logging an earlier test configured
        provider.apply_changes(Changes(create=[a("www.example.com", "10.0.0.1")]))
    assert calls.batch_sizes() == [] and rrsets(r53, zone) == []
    assert any("Desired change: CREATE www.example.com A" in str(e["event"]) for e in logs)


def test_records_outside_every_zone_are_never_planned(r53: Any, make_provider: MakeProvider) -> None:
    create_zone(r53, "example.com")
    provider = make_provider()
    result = controller(provider, [a("www.example.com", "10.0.0.1"), a("www.elsewhere.org", "10.0.0.2")]).run_once()
    assert {e.dns_name for e in result.changes.create if e.record_type == "A"} == {"www.example.com"}


def test_foreign_records_are_left_alone(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    r53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "CREATE",
        "ResourceRecordSet": {"Name": "manual.example.com", "Type": "A", "TTL": 60,
                              "ResourceRecords": [{"Value": "10.1.1.1"}]}}]})
    provider = make_provider()
    controller(provider, [a("www.example.com", "10.0.0.1")]).run_once()
    controller(provider, []).run_once()  # deletes ours only
    assert set(by_name_type(r53, zone)) == {("manual.example.com", "A", "")}


def test_provider_cache_time_skips_listing_until_a_write(r53: Any, make_provider: MakeProvider) -> None:
    from external_dns.providers.provider import CachedProvider

    create_zone(r53, "example.com")
    provider = make_provider()
    calls = record_calls(provider, "ListResourceRecordSets")
    cached = CachedProvider(provider, 3600.0)
    desired = [a("www.example.com", "10.0.0.1")]
    registry = TXTRegistry(cached, owner_id="default")
    Controller(StaticSource(desired), registry, "sync").run_once()
    listed = calls.count("ListResourceRecordSets")
    for _ in range(3):
        assert not Controller(StaticSource(desired), registry, "sync").run_once().changes.has_changes()
    assert calls.count("ListResourceRecordSets") == listed + 1  # one re-read after the write, then cached


def test_sync_into_private_and_public_zones_is_stable(r53: Any, make_provider: MakeProvider) -> None:
    pub = create_zone(r53, "example.com")
    priv = create_zone(r53, "example.com", private=True)
    provider = make_provider()
    desired = [a("www.example.com", "10.0.0.1")]
    controller(provider, desired).run_once()
    assert ("a-www.example.com", "TXT", "") in by_name_type(r53, pub)
    assert ("a-www.example.com", "TXT", "") in by_name_type(r53, priv)
    assert not controller(provider, desired).run_once().changes.has_changes()
    desired = [a("www.example.com", "10.0.0.2")]
    controller(provider, desired).run_once()
    for zone in (pub, priv):
        assert by_name_type(r53, zone)[("www.example.com", "A", "")]["ResourceRecords"] == [{"Value": "10.0.0.2"}]
    controller(provider, []).run_once()
    assert by_name_type(r53, pub) == {} and by_name_type(r53, priv) == {}


def test_zone_by_zone_reconcile(r53: Any, make_provider: MakeProvider) -> None:
    one = create_zone(r53, "one.example")
    two = create_zone(r53, "two.example")
    provider = make_provider()
    desired = [a("www.one.example", "10.0.0.1"), a("www.two.example", "10.0.0.2")]
    assert sorted(provider.zones()) == ["one.example", "two.example"]
    ctl = controller(provider, desired)
    ctl.run_once(zone="one.example")
    assert ("www.one.example", "A", "") in by_name_type(r53, one) and by_name_type(r53, two) == {}
    ctl.run_once(zone="two.example")
    assert ("www.two.example", "A", "") in by_name_type(r53, two)


def test_txt_mx_srv_round_trip_without_perpetual_updates(r53: Any, make_provider: MakeProvider) -> None:
    zone = create_zone(r53, "example.com")
    provider = make_provider()
    desired = [E("spf.example.com", "TXT", ['v=spf1 include:"x" -all']),
               # not at the apex: the apex's ownership TXT (mx-example.com) would fall outside the zone (real
               # Route53 refuses it; moto accepts it), so the TXT registry does not create apex records
               E("mx.example.com", "MX", ["10 mail.example.com", "20 mx2.example.com"]),
               E("_sip._tcp.example.com", "SRV", ["10 5 5060 sip.example.com"]),
               E("ttl.example.com", "A", ["10.0.0.1"], 60)]
    managed = ("A", "TXT", "MX", "SRV")
    controller(provider, desired, managed=managed).run_once()
    sets = by_name_type(r53, zone)
    assert sets[("spf.example.com", "TXT", "")]["ResourceRecords"] == [{"Value": '"v=spf1 include:\\"x\\" -all"'}]
    assert [r["Value"] for r in sets[("mx.example.com", "MX", "")]["ResourceRecords"]] == [
        "10 mail.example.com", "20 mx2.example.com"]
    assert sets[("_sip._tcp.example.com", "SRV", "")]["ResourceRecords"] == [{"Value": "10 5 5060 sip.example.com"}]
    assert sets[("ttl.example.com", "A", "")]["TTL"] == 60
    assert not controller(provider, desired, managed=managed).run_once().changes.has_changes()


def test_assume_role_and_profiles(r53: Any, make_provider: MakeProvider, tmp_path: Any,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    create_zone(r53, "example.com")
    provider = make_provider(assume_role="arn:aws:iam::123456789012:role/external-dns",
                             assume_role_external_id="ext-1")
    assert provider.zones() == ("example.com",)
    (tmp_path / "credentials").write_text("[one]\naws_access_key_id = A1\naws_secret_access_key = S1\n"
                                          "[two]\naws_access_key_id = A2\naws_secret_access_key = S2\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    two = make_provider(profiles=["one", "two"])
    assert sorted(two.clients) == ["one", "two"]
    assert [z.profile for z in two.hosted_zones()] == ["one", "two"]  # moto: one account behind both
