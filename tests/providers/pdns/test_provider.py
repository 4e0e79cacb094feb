"""The pdns provider against a real PowerDNS Authoritative server (pdns_server + sqlite3, started on loopback).

Requests are counted from the server's own access log. Covers: records and ownership TXT in two zones through
the real TXT registry and planner, a no-op re-sync that sends no PATCH, foreign records and comments left
alone, every supported type read back equal, 5,000 changes batched under the server's body limit, a 422 that
names the record without blocking the rest, a bad API key, the server stopped mid-sync (soft error, nothing
lost), the domain filter and the zone-list cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.controller.controller import RunOnceError, is_soft_error
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.pdns import PDNSAuthError, PDNSProvider
from external_dns.providers.provider import ProviderError, SoftError
from tests.helpers.cli import run_cli
from tests.providers.pdns.conftest import ep, make_provider, patches, sync
from tests.servers.pdns import PdnsServer, start_pdns

pytestmark = pytest.mark.integration
DESIRED = [
    ep("app.example.org", "A", "10.0.0.5", "10.0.0.6", ttl=120),
    ep("app.example.org", "AAAA", "2001:db8::5"),
    ep("www.example.com", "CNAME", "app.example.org"),
    ep("note.example.org", "TXT", 'v=1 "quoted" and \\ spaced'),
    ep("inbox.example.com", "MX", "10 mail.example.net", "20 backup.example.net."),
    ep("_sip._udp.example.com", "SRV", "10 60 5060 sip.example.net"),
    ep("delegated.example.org", "NS", "ns1.elsewhere.net", "ns2.elsewhere.net"),
    ep("5.0.0.10.example.org", "PTR", "app.example.org"),
    ep("secure.example.com", "CAA", '0 issue "letsencrypt.org"'),
]


def test_records_and_ownership_in_two_zones_then_noop(provider: PDNSProvider, pdns: PdnsServer) -> None:
    changes = sync(provider, DESIRED)
    assert len(changes.create) == len(DESIRED)  # the registry adds each record's ownership TXT
    org, com = pdns.records("example.org"), pdns.records("example.com")
    assert org[("app.example.org", "A")] == (120, ["10.0.0.5", "10.0.0.6"])
    assert org[("app.example.org", "AAAA")] == (300, ["2001:db8::5"])
    assert org[("note.example.org", "TXT")] == (300, ['"v=1 \\"quoted\\" and \\\\ spaced"'])
    assert org[("delegated.example.org", "NS")] == (300, ["ns1.elsewhere.net.", "ns2.elsewhere.net."])
    assert org[("5.0.0.10.example.org", "PTR")] == (300, ["app.example.org."])
    assert com[("www.example.com", "CNAME")] == (300, ["app.example.org."])
    assert com[("inbox.example.com", "MX")] == (300, ["10 mail.example.net.", "20 backup.example.net."])
    assert com[("_sip._udp.example.com", "SRV")] == (300, ["10 60 5060 sip.example.net."])
    assert com[("secure.example.com", "CAA")] == (300, ['0 issue "letsencrypt.org"'])
    assert org[("a-app.example.org", "TXT")] == (300, [
        '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web"'])
    assert ("cname-www.example.com", "TXT") in com and ("srv-_sip._udp.example.com", "TXT") in com

    mark = pdns.mark()
    again = sync(provider, DESIRED)
    assert not again.has_changes(), again
    assert patches(pdns, mark) == []

    # An update (targets and TTL), a delete, and the record's TXT goes with it.
    desired2 = [e for e in DESIRED if e.dns_name != "note.example.org"]
    desired2[0] = ep("app.example.org", "A", "10.0.0.7", ttl=60)
    mark = pdns.mark()
    sync(provider, desired2)
    assert len(patches(pdns, mark)) == 1  # one zone changed: one request
    org = pdns.records("example.org")
    assert org[("app.example.org", "A")] == (60, ["10.0.0.7"])
    assert ("note.example.org", "TXT") not in org and ("txt-note.example.org", "TXT") not in org


def test_foreign_records_and_comments_untouched(provider: PDNSProvider, pdns: PdnsServer) -> None:
    comment = [{"content": "managed by hand", "account": "ops", "modified_at": 1700000000}]
    pdns.patch("example.org", [
        {"name": "hand.example.org.", "type": "A", "ttl": 3600, "changetype": "REPLACE", "comments": comment,
         "records": [{"content": "192.0.2.1", "disabled": False}]},
        # Another owner's record and ownership TXT at a name we also want.
        {"name": "theirs.example.org.", "type": "A", "ttl": 300, "changetype": "REPLACE",
         "records": [{"content": "192.0.2.2", "disabled": False}]},
        {"name": "a-theirs.example.org.", "type": "TXT", "ttl": 300, "changetype": "REPLACE",
         "records": [{"content": '"heritage=external-dns,external-dns/owner=other"', "disabled": False}]},
    ])
    before = pdns.rrsets("example.org")
    desired = [ep("mine.example.org", "A", "10.1.1.1"), ep("theirs.example.org", "A", "10.9.9.9")]
    sync(provider, desired)
    sync(provider, [])  # and delete ours again
    after = pdns.rrsets("example.org")
    for key in (("hand.example.org", "A"), ("theirs.example.org", "A"), ("a-theirs.example.org", "TXT"),
                ("example.org", "NS")):
        assert after[key] == before[key], key
    assert after[("hand.example.org", "A")]["comments"][0]["content"] == "managed by hand"
    assert ("mine.example.org", "A") not in after


def test_update_keeps_the_rrsets_own_comment(provider: PDNSProvider, pdns: PdnsServer) -> None:
    sync(provider, [ep("app.example.org", "A", "10.0.0.1")])
    pdns.patch("example.org", [{"name": "app.example.org.", "type": "A", "changetype": "REPLACE",
                                "comments": [{"content": "ticket 42", "account": "", "modified_at": 1}]}])
    sync(provider, [ep("app.example.org", "A", "10.0.0.2")])
    rr = pdns.rrsets("example.org")[("app.example.org", "A")]
    assert [r["content"] for r in rr["records"]] == ["10.0.0.2"]
    assert rr["comments"][0]["content"] == "ticket 42"


def test_every_type_reads_back_equal(provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [
        ep("caa.example.org", "CAA", '0 issue "letsencrypt.org"', '0 iodef "mailto:sec@example.org"'),
        ep("txt.example.org", "TXT", "plain", '"already quoted"', "x" * 300),
        ep("v6.example.org", "AAAA", "2001:0db8:0000:0000:0000:0000:0000:0010"),
        ep("Mixed.Example.org", "CNAME", "Target.Example.net."),
        ep("mx.example.org", "MX", "10 mail.example.org."),
    ]
    provider.apply_changes(Changes(create=desired))
    got = {(e.dns_name, e.record_type): e for e in provider.records()}
    for want in provider.adjust_endpoints(desired):
        have = got[(want.dns_name, want.record_type)]
        assert sorted(have.targets) == sorted(want.targets), want
    assert got[("mixed.example.org", "CNAME")].targets == Targets(["Target.Example.net"])


def test_5000_changes_batched_under_the_body_limit(provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [ep(f"host-{i:05d}.example.org", "A", f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
               for i in range(5000)]
    mark = pdns.mark()
    changes = sync(provider, desired)
    assert len(changes.create) == 5000
    sent = patches(pdns, mark)
    assert 1 <= len(sent) <= 3 and all(status == 204 for _, _, status in sent)  # each under 2 MiB
    records = pdns.records("example.org")
    assert sum(1 for (_, t) in records if t == "A") == 5000
    assert sum(1 for (n, t) in records if t == "TXT" and n.startswith("a-host-")) == 5000
    mark = pdns.mark()
    assert not sync(provider, desired).has_changes()
    assert patches(pdns, mark) == []
    sync(provider, [])
    assert set(pdns.records("example.org")) == {("example.org", "NS")}


def test_server_with_a_smaller_body_limit(caplog: pytest.LogCaptureFixture) -> None:
    """webserver-max-bodysize=1 (MiB): the first ~1.9 MiB request is dropped by the server, the provider
    splits it and keeps the lower limit; every record lands."""
    with start_pdns(zones=("example.org",), max_body_mb=1) as small:
        provider = make_provider(small)
        desired = [ep(f"host-{i:05d}.example.org", "TXT", "v" * 150) for i in range(9000)]
        mark = small.mark()
        provider.apply_changes(Changes(create=desired))
        statuses = [status for _, _, status in patches(small, mark)]
        # The oversized request is answered 400 (or its connection reset, then not logged); the halves land.
        assert set(statuses) <= {204, 400} and statuses.count(204) >= 2
        assert provider._max_bytes < 1024 * 1024
        assert sum(1 for (_, t) in small.records("example.org") if t == "TXT") == 9000


def test_refused_record_is_named_and_the_rest_applied(provider: PDNSProvider, pdns: PdnsServer) -> None:
    # content only PowerDNS's parser refuses (a CNAME beside other data is refused before it is sent:
    # test_foreign_rrsets.py)
    creates = [ep(f"ok{i}.example.org", "A", f"10.0.0.{i}") for i in range(6)]
    creates.insert(3, ep("bad.example.org", "CAA", "not a caa record"))
    with pytest.raises(ProviderError) as err:
        provider.apply_changes(Changes(create=creates))
    assert not isinstance(err.value, SoftError)
    assert "bad.example.org CAA" in str(err.value)
    records = pdns.records("example.org")
    assert all((f"ok{i}.example.org", "A") in records for i in range(6))
    assert ("bad.example.org", "CAA") not in records


def test_bad_api_key_is_a_configuration_error(pdns: PdnsServer) -> None:
    wrong = "wrong-" + pdns.api_key[:4]
    provider = make_provider(pdns, api_key=wrong)
    with pytest.raises(PDNSAuthError) as err:
        provider.records()
    assert "--pdns-api-key" in str(err.value) and "401" in str(err.value)
    assert wrong not in str(err.value) and pdns.api_key not in str(err.value)
    with pytest.raises(PDNSAuthError):
        provider.apply_changes(Changes(create=[ep("x.example.org", "A", "10.0.0.1")]))
    assert ("x.example.org", "A") not in pdns.records("example.org")


def test_server_stopped_mid_sync_is_soft_and_loses_nothing(pdns: PdnsServer) -> None:
    provider = make_provider(pdns, max_patch_rrsets=100)
    desired = [ep(f"n{i:03d}.example.org", "A", f"10.2.0.{i}") for i in range(200)]
    desired += [ep("keep.example.com", "A", "10.3.0.1")]
    sync(provider, [desired[-1]])
    real_patch = provider.client.patch_zone
    calls = []

    def patch_then_stop(zone_id: str, body: bytes) -> None:
        calls.append(zone_id)
        real_patch(zone_id, body)
        if len(calls) == 1:
            pdns.stop()

    provider.client.patch_zone = patch_then_stop  # type: ignore[method-assign]
    with pytest.raises(RunOnceError) as err:
        sync(provider, desired)
    assert is_soft_error(err.value), err.value
    assert "PowerDNS at" in str(err.value)
    pdns.start()
    provider.client.patch_zone = real_patch  # type: ignore[method-assign]
    landed = pdns.records("example.org")
    assert 0 < sum(1 for (_, t) in landed if t == "A") < 200  # the first request stayed applied
    sync(provider, desired)
    org, com = pdns.records("example.org"), pdns.records("example.com")
    assert sum(1 for (_, t) in org if t == "A") == 200
    assert com[("keep.example.com", "A")] == (300, ["10.3.0.1"])
    mark = pdns.mark()
    assert not sync(provider, desired).has_changes()
    assert patches(pdns, mark) == []


def test_unreachable_server_is_soft(pdns: PdnsServer) -> None:
    provider = make_provider(pdns, server=f"http://127.0.0.1:{pdns.dns_port + 0}", retries=1)
    pdns.stop()
    try:
        with pytest.raises(SoftError, match="listing zones failed"):
            provider.records()
    finally:
        pdns.start()


def test_zones_through_the_domain_filter(pdns: PdnsServer) -> None:
    pdns.create_zone("other.net")
    assert make_provider(pdns, DomainFilter(include=["example.org"])).zones() == ("example.org",)
    # A zone that is a parent of a filter entry is ours too (external-dns PartitionZones).
    assert make_provider(pdns, DomainFilter(include=["app.example.com"])).zones() == ("example.com",)
    assert make_provider(pdns, DomainFilter(exclude=["example.com"])).zones() == ("example.org", "other.net")
    provider = make_provider(pdns, DomainFilter(include=["example.org"]))
    flt = provider.get_domain_filter()
    assert flt.match("www.example.org") and not flt.match("www.other.net")
    none = make_provider(pdns, DomainFilter(include=["nowhere.test"]))
    assert none.zones() == ()
    assert not none.get_domain_filter().match("www.example.org")  # no zone: nothing may be planned


def test_zone_list_is_cached(pdns: PdnsServer) -> None:
    provider = make_provider(pdns, zones_cache_seconds=60.0)
    mark = pdns.mark()
    provider.records()
    provider.records()
    provider.zones()
    listed = [r for r in pdns.requests_since(mark) if r[1].split("?")[0].endswith("/zones")]
    assert len(listed) == 1


def test_a_record_replaced_by_a_cname_in_one_request(provider: PDNSProvider, pdns: PdnsServer) -> None:
    sync(provider, [ep("switch.example.org", "A", "10.0.0.1")])
    mark = pdns.mark()
    sync(provider, [ep("switch.example.org", "CNAME", "target.example.net")])
    assert len(patches(pdns, mark)) == 1  # the delete goes first inside the request: no CNAME conflict
    org = pdns.records("example.org")
    assert org[("switch.example.org", "CNAME")] == (300, ["target.example.net."])
    assert ("switch.example.org", "A") not in org and ("a-switch.example.org", "TXT") not in org
    assert ("cname-switch.example.org", "TXT") in org


def test_unchanged_update_pair_sends_nothing(provider: PDNSProvider, pdns: PdnsServer) -> None:
    sync(provider, [ep("same.example.org", "A", "10.0.0.1")])
    current = [e for e in provider.records() if e.dns_name == "same.example.org" and e.record_type == "A"]
    desired = [ep("same.example.org", "A", "10.0.0.1")]  # TTL 0 is written as 300: the same rrset
    mark = pdns.mark()
    provider.apply_changes(Changes(update_old=current, update_new=desired))
    assert patches(pdns, mark) == []


def test_zone_records_reads_one_zone(provider: PDNSProvider, pdns: PdnsServer) -> None:
    pdns.create_zone("sub.example.org")
    provider.apply_changes(Changes(create=[ep("a.example.org", "A", "10.0.0.1"), ep("b.sub.example.org", "A", "10.0.0.2"),
                                           ep("c.example.com", "A", "10.0.0.3")]))
    assert provider.zones() == ("example.com", "example.org", "sub.example.org")
    mark = pdns.mark()
    names = {e.dns_name for e in provider.zone_records("example.org") if e.record_type == "A"}
    assert names == {"a.example.org"}
    assert [r[1].rsplit("/zones/", 1)[1] for r in pdns.requests_since(mark) if "/zones/" in r[1]] == [
        "example.org./export"]  # one request: the zone export
    assert {e.dns_name for e in provider.zone_records("sub.example.org") if e.record_type == "A"} == {"b.sub.example.org"}
    assert provider.zone_records("unknown.net") == []
    assert {e.dns_name for e in provider.records() if e.record_type == "A"} == {
        "a.example.org", "b.sub.example.org", "c.example.com"}


def test_set_identifier_is_dropped_so_the_resync_is_a_noop(provider: PDNSProvider, pdns: PdnsServer) -> None:
    weighted = ep("w.example.org", "A", "10.0.0.1").with_set_identifier("blue")
    sync(provider, [weighted])
    assert pdns.records("example.org")[("w.example.org", "A")] == (300, ["10.0.0.1"])
    mark = pdns.mark()
    assert not sync(provider, [ep("w.example.org", "A", "10.0.0.1").with_set_identifier("blue")]).has_changes()
    assert patches(pdns, mark) == []


def test_unicode_names_are_written_in_punycode_and_resync_as_noop(provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [ep("bücher.example.org", "A", "10.0.0.1"), ep("alias.example.org", "CNAME", "straße.example.net")]
    sync(provider, desired)
    org = pdns.records("example.org")
    assert org[("xn--bcher-kva.example.org", "A")] == (300, ["10.0.0.1"])
    assert org[("alias.example.org", "CNAME")] == (300, ["strasse.example.net."])  # IDNA transitional
    mark = pdns.mark()
    assert not sync(provider, desired).has_changes()
    assert patches(pdns, mark) == []


def test_wildcard_record_with_its_ownership_txt(provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [ep("*.apps.example.org", "A", "10.0.0.9")]
    sync(provider, desired, wildcard_replacement="wildcard")
    org = pdns.records("example.org")
    assert org[("*.apps.example.org", "A")] == (300, ["10.0.0.9"])
    assert ("a-wildcard.apps.example.org", "TXT") in org
    mark = pdns.mark()
    assert not sync(provider, desired, wildcard_replacement="wildcard").has_changes()
    assert patches(pdns, mark) == []


def test_zones_through_regex_and_leading_dot_filters_as_external_dns(pdns: PdnsServer) -> None:
    pdns.create_zone("sub.example.org")
    # A regex filter has no names to be a parent of: every zone not excluded is ours (Go's MatchParent).
    regex = DomainFilter(regex=r"^app\.example\.org$", regex_exclusion="")
    assert make_provider(pdns, regex).zones() == ("example.com", "example.org", "sub.example.org")
    # A leading-dot entry matches names below it only, and is never taken as a child of a zone.
    assert make_provider(pdns, DomainFilter(include=[".example.org"])).zones() == ("sub.example.org",)


def test_names_outside_a_narrower_domain_filter_are_never_touched(pdns: PdnsServer, tmp_path: Path) -> None:
    records = tmp_path / "records.yaml"

    def run(names: list[str], domain_filter: str) -> None:
        endpoints = "".join(f"    - {{dnsName: {n}, recordType: A, targets: [192.0.2.1]}}\n" for n in names)
        records.write_text("apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\n"
                           "metadata: {name: r, namespace: default}\nspec:\n  endpoints:\n" + (endpoints or "    []\n"))
        run_cli(["--once", "--source=manifest", f"--manifest-dir={tmp_path}", "--provider=pdns", *pdns.pdns_flags(),
                 "--policy=sync", "--txt-owner-id=narrow", f"--domain-filter={domain_filter}"],
                env={"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key})

    run(["app.example.com", "other.example.com"], "example.com")
    # The zone example.com is still ours (a parent of the entry), but only app.example.com is in scope.
    run([], "app.example.com")
    com = pdns.records("example.com")
    assert ("app.example.com", "A") not in com
    assert com[("other.example.com", "A")] == (300, ["192.0.2.1"]) and ("a-other.example.com", "TXT") in com
