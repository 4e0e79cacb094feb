"""TXTRegistry: construction, reading ownership, writing TXT records, migration, multi-cluster ownership,
encryption and the cache."""

from __future__ import annotations

import base64
import gzip

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from external_dns.endpoint import crypto
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.labels import TXT_ENCRYPTION_NONCE, parse_labels
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.provider import ProviderError
from external_dns.registry import TXTRegistry
from external_dns.registry.txt import PROVIDER_SPECIFIC_FORCE_UPDATE
from external_dns.workqueue import FakeClock
from tests.registry.fakes import DictProvider, ep, owner_txt, txt

KEY = "12345678901234567890123456789012"


def by_key(eps: list[Endpoint]) -> dict[tuple[str, str, str], Endpoint]:
    return {e.key(): e for e in eps}


def sync(reg: TXTRegistry, desired: list[Endpoint], old_owner: str = "") -> Changes:
    """One controller cycle: records -> plan -> apply. Returns what the provider was sent (empty if nothing)."""
    plan = Plan(
        current=reg.records(), desired=desired, policies=["sync"], owner_id=reg.owner_id(), old_owner_id=old_owner
    ).calculate()
    if not plan.changes.has_changes():
        return Changes()
    reg.apply_changes(plan.changes)
    provider = reg.provider
    assert isinstance(provider, DictProvider)
    return provider.applied[-1]


# -- construction -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"owner_id": ""}, "owner id cannot be empty"),
        ({"prefix": "p.", "suffix": "-s"}, "txt-prefix and txt-suffix are mutual exclusive"),
        ({"txt_encrypt_aes_key": "too-short"}, "must be 32 bytes long, in either plain text or base64-encoded"),
        ({"txt_encrypt_enabled": True}, "the AES Encryption key must be set when TXT record encryption is enabled"),
    ],
)
def test_construction_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TXTRegistry(DictProvider(), **kwargs)  # type: ignore[arg-type]


def test_owner_id_and_interface() -> None:
    p = DictProvider()
    reg = TXTRegistry(p, owner_id="c1")
    assert reg.owner_id() == "c1"
    assert reg.get_domain_filter().match("anything.example.com")
    eps = [ep("a.example.com", "A", "1.1.1.1")]
    assert reg.adjust_endpoints(eps) is eps


# -- reading ----------------------------------------------------------------------------------------------------
def test_records_reference_example() -> None:
    p = DictProvider([
        ep("app.example.com", "A", "1.2.3.4"),
        txt("a-app.example.com", owner_txt("default", "service/default/nginx")),
        ep("old.example.com", "A", "9.9.9.9"),
        txt("old.example.com", owner_txt("default", "ingress/default/old")),
        ep("manual.example.com", "A", "5.6.7.8"),
        txt("verify.example.com", "google-site-verification=xyz"),
    ])
    got = by_key(TXTRegistry(p).records())
    assert set(got) == {
        ("app.example.com", "A", ""), ("old.example.com", "A", ""), ("manual.example.com", "A", ""),
        ("verify.example.com", "TXT", ""),
    }
    app = got[("app.example.com", "A", "")]
    assert app.labels == {"owner": "default", "resource": "service/default/nginx"}
    assert app.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None
    old = got[("old.example.com", "A", "")]
    assert old.labels == {"owner": "default", "resource": "ingress/default/old"}
    assert old.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    assert got[("manual.example.com", "A", "")].labels == {}
    assert got[("verify.example.com", "TXT", "")].labels == {}


def test_forced_update_writes_missing_new_format_txt_and_keeps_old() -> None:
    p = DictProvider([
        ep("old.example.com", "A", "9.9.9.9"),
        txt("old.example.com", owner_txt("default", "ingress/default/old")),
    ])
    reg = TXTRegistry(p)
    desired = [ep("old.example.com", "A", "9.9.9.9", resource="ingress/default/old")]
    changes = sync(reg, desired)
    # The missing TXT is created (an update of a TXT that does not exist would fail on strict providers).
    assert [e.dns_name for e in changes.update_new] == ["old.example.com"]
    assert [e.dns_name for e in changes.update_old] == ["old.example.com"]
    assert [e.dns_name for e in changes.create] == ["a-old.example.com"]
    new_txt = p.get("a-old.example.com", "TXT")
    assert new_txt is not None and parse_labels(new_txt.targets[0]) == {
        "owner": "default", "resource": "ingress/default/old"}
    assert p.get("old.example.com", "TXT") is not None  # legacy TXT left in place
    # The synthetic property never reaches the provider as desired state.
    for e in changes.update_new:
        assert e.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None
    # Next cycle: nothing to do.
    again = reg.records()
    assert all(e.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None for e in again)
    assert not sync(reg, desired).has_changes()


def test_no_forced_update_where_the_new_format_txt_cannot_exist() -> None:
    """Go's testTXTRegistryMissingRecordsNoPrefix: a long first label (Go's is 62 characters) with only an
    old-format TXT keeps its owner and is not forced (`cname-` + that label is over 63 characters, no DNS label:
    there is no TXT to write), while a short name beside it is."""
    long = "this-is-a-63-characters-long-label-that-we-do-expect-will-work.example.com"
    assert len(long.split(".")[0]) == 62 and len("cname-" + long.split(".")[0]) > 63
    p = DictProvider([
        ep(long, "CNAME", "foo.loadbalancer.com"),
        txt(long, owner_txt("owner")),
        ep("oldformat.example.com", "CNAME", "foo.loadbalancer.com"),
        txt("oldformat.example.com", owner_txt("owner")),
    ])
    got = by_key(TXTRegistry(p, owner_id="owner", managed_record_types=("A", "CNAME")).records())
    record = got[(long, "CNAME", "")]
    assert record.labels == {"owner": "owner"}
    assert record.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None
    short = got[("oldformat.example.com", "CNAME", "")]
    assert short.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    # so a sync with the record desired as it is plans nothing for it (it would update it on every run)
    reg = TXTRegistry(p, owner_id="owner", managed_record_types=("A", "CNAME"))
    changes = sync(reg, [ep(long, "CNAME", "foo.loadbalancer.com"),
                         ep("oldformat.example.com", "CNAME", "foo.loadbalancer.com")])
    assert [e.dns_name for e in changes.update_new] == ["oldformat.example.com"]
    assert not sync(reg, [ep(long, "CNAME", "foo.loadbalancer.com"),
                          ep("oldformat.example.com", "CNAME", "foo.loadbalancer.com")]).has_changes()


def test_no_forced_update_for_foreign_unmanaged_or_without_txt() -> None:
    p = DictProvider([
        ep("other.example.com", "A", "1.1.1.1"),
        txt("other.example.com", owner_txt("someone-else")),
        ep("mx.example.com", "MX", "10 mail.example.com"),
        txt("mx.example.com", owner_txt("default")),
    ])
    for e in TXTRegistry(p).records():
        assert e.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None, e
    # A managed MX gets forced.
    got = by_key(TXTRegistry(p, managed_record_types=("A", "MX")).records())
    assert got[("mx.example.com", "MX", "")].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    # ... unless excluded.
    got = by_key(TXTRegistry(p, managed_record_types=("A", "MX"), exclude_record_types=("MX",)).records())
    assert got[("mx.example.com", "MX", "")].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None
    # No ownership TXT at all in the zone: no forcing (nothing to migrate).
    lone = DictProvider([ep("x.example.com", "A", "1.1.1.1", owner="default")])
    assert TXTRegistry(lone).records()[0].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None


def test_old_format_not_used_for_aaaa_and_new_format_preferred() -> None:
    p = DictProvider([
        ep("ds.example.com", "A", "1.1.1.1"),
        ep("ds.example.com", "AAAA", "2001:db8::1"),
        txt("ds.example.com", owner_txt("old-format")),
        txt("a-ds.example.com", owner_txt("new-format")),
    ])
    got = by_key(TXTRegistry(p, owner_id="x").records())
    assert got[("ds.example.com", "A", "")].labels["owner"] == "new-format"
    assert "owner" not in got[("ds.example.com", "AAAA", "")].labels


def test_txt_without_targets_is_dropped_and_invalid_heritage_kept() -> None:
    p = DictProvider([Endpoint("empty.example.com", "TXT"), txt("spf.example.com", '"v=spf1 -all"')])
    got = TXTRegistry(p).records()
    assert [(e.dns_name, e.record_type) for e in got] == [("spf.example.com", "TXT")]


def test_ownership_txt_records_are_consumed_even_for_foreign_prefix() -> None:
    p = DictProvider([txt("other.a-x.example.com", owner_txt("other")), ep("x.example.com", "A", "1.1.1.1")])
    got = TXTRegistry(p, prefix="txt.").records()
    assert [(e.dns_name, e.labels) for e in got] == [("x.example.com", {})]


def test_prefix_reads_new_and_legacy_names() -> None:
    p = DictProvider([
        ep("www.example.com", "CNAME", "lb.example.net"),
        txt("txt.cname-www.example.com", owner_txt("default", "ingress/a/b")),
        ep("api.example.com", "A", "1.1.1.1"),
        ep("api.example.com", "CNAME", "x.example.net"),
        txt("txt.api.example.com", owner_txt("legacy")),
    ])
    got = by_key(TXTRegistry(p, prefix="txt.").records())
    assert got[("www.example.com", "CNAME", "")].labels == {"owner": "default", "resource": "ingress/a/b"}
    assert got[("api.example.com", "A", "")].labels == {"owner": "legacy"}
    assert got[("api.example.com", "CNAME", "")].labels == {"owner": "legacy"}


def test_suffix_and_wildcard_round_trip() -> None:
    p = DictProvider()
    reg = TXTRegistry(p, suffix="-txt", wildcard_replacement="wildcard")
    reg.apply_changes(Changes(create=[
        ep("*.wildcard.test-zone.example.org", "CNAME", "lb.example.net"),
        ep("bar.test-zone.example.org", "CNAME", "lb.example.net"),
    ]))
    assert p.names("TXT") == {
        "cname-wildcard-txt.wildcard.test-zone.example.org", "cname-bar-txt.test-zone.example.org"}
    got = by_key(reg.records())
    assert got[("*.wildcard.test-zone.example.org", "CNAME", "")].labels == {"owner": "default"}
    assert got[("bar.test-zone.example.org", "CNAME", "")].labels == {"owner": "default"}
    assert all(e.get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None for e in got.values())


@pytest.mark.parametrize(
    ("kwargs", "name", "txt_name"),
    [
        ({"prefix": "%{record_type}-"}, "www.example.com", "cname-www.example.com"),
        ({"prefix": "prefix%{record_type}."}, "new-record-1.test-zone.example.org",
         "prefixcname.new-record-1.test-zone.example.org"),
        ({"suffix": "-%{record_type}suffix"}, "new-record-1.test-zone.example.org",
         "new-record-1-cnamesuffix.test-zone.example.org"),
        ({"prefix": "txt."}, "example", "txt.cname-example"),
        ({"prefix": "%{record_type}-abc-."}, "ex.com", "cname-abc-.ex.com"),
    ],
)
def test_templates_create_and_read_back(kwargs: dict[str, str], name: str, txt_name: str) -> None:
    p = DictProvider()
    reg = TXTRegistry(p, **kwargs)  # type: ignore[arg-type]
    reg.apply_changes(Changes(create=[ep(name, "CNAME", "lb.example.net", resource="r")]))
    assert p.names("TXT") == {txt_name}
    got = reg.records()
    assert [(e.dns_name, e.labels) for e in got] == [(name, {"owner": "default", "resource": "r"})]
    assert got[0].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) is None


def test_legacy_cname_txt_for_a_alias(caplog: pytest.LogCaptureFixture) -> None:
    p = DictProvider([
        ep("www.example.com", "A", "lb.elb.amazonaws.com", alias="true"),
        txt("cname-www.example.com", owner_txt("default", "service/a/b")),
    ])
    reg = TXTRegistry(p)
    got = reg.records()
    assert got[0].labels == {"owner": "default", "resource": "service/a/b"}
    assert got[0].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    assert reg._warned_legacy == {"cname-www.example.com"}
    desired = [ep("www.example.com", "A", "lb.elb.amazonaws.com", resource="service/a/b", alias="true")]
    sync(reg, desired)
    assert p.names("TXT") == {"a-www.example.com", "cname-www.example.com"}  # legacy never deleted here
    a_txt = p.get("a-www.example.com", "TXT")
    assert a_txt is not None and a_txt.get_provider_specific_property("alias") == "true"  # Go copies every property
    # The new TXT wins once present.
    p.store[("cname-www.example.com", "TXT", "")].targets[0] = owner_txt("someone-else")
    assert reg.records()[0].labels["owner"] == "default"
    # A non-alias A does not look at the cname- TXT.
    p2 = DictProvider([ep("w.example.com", "A", "1.1.1.1"), txt("cname-w.example.com", owner_txt("default"))])
    assert TXTRegistry(p2).records()[0].labels == {}


# -- writing ----------------------------------------------------------------------------------------------------
def test_create_reference_example() -> None:
    p = DictProvider()
    reg = TXTRegistry(p)
    reg.apply_changes(Changes(create=[ep("app.example.com", "A", "1.2.3.4", resource="service/default/nginx")]))
    sent = p.applied[-1]
    assert [(e.dns_name, e.record_type) for e in sent.create] == [
        ("app.example.com", "A"), ("a-app.example.com", "TXT")]
    record, owner = sent.create
    assert record.labels == {"owner": "default", "resource": "service/default/nginx"}
    assert list(owner.targets) == [
        '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/nginx"']
    assert owner.labels == {"ownedRecord": "app.example.com"}
    assert owner.record_ttl == 0
    assert not (sent.delete or sent.update_new or sent.update_old)


def test_dual_stack_gets_one_txt_per_type() -> None:
    p = DictProvider()
    TXTRegistry(p).apply_changes(Changes(create=[
        ep("ds.example.com", "A", "1.1.1.1"), ep("ds.example.com", "AAAA", "2001:db8::1")]))
    assert p.names("TXT") == {"a-ds.example.com", "aaaa-ds.example.com"}


def test_set_identifier_and_routing_properties_carried_to_txt() -> None:
    p = DictProvider()
    reg = TXTRegistry(p)
    reg.apply_changes(Changes(create=[
        ep("api.example.com", "A", "1.1.1.1", set_id="us-east-1", aws__weight="100"),
        ep("api.example.com", "A", "2.2.2.2", set_id="eu-west-1", aws__weight="50"),
    ]))
    t1 = p.get("a-api.example.com", "TXT", "us-east-1")
    t2 = p.get("a-api.example.com", "TXT", "eu-west-1")
    assert t1 is not None and t1.get_provider_specific_property("aws/weight") == "100"
    assert t2 is not None and t2.get_provider_specific_property("aws/weight") == "50"
    got = by_key(reg.records())
    assert got[("api.example.com", "A", "us-east-1")].labels["owner"] == "default"
    assert got[("api.example.com", "A", "eu-west-1")].labels["owner"] == "default"


def test_generate_txt_record() -> None:
    reg = TXTRegistry(DictProvider(), prefix="txt.", owner_id="o")
    record = ep("foo.example.com", "CNAME", "lb.example.net", owner="o", set_id="s1", aws__region="us-east-1")
    [t] = reg.generate_txt_record(record)
    assert (t.dns_name, t.record_type, t.set_identifier) == ("txt.cname-foo.example.com", "TXT", "s1")
    assert list(t.targets) == ['"heritage=external-dns,external-dns/owner=o"']
    assert t.labels == {"ownedRecord": "foo.example.com"}
    assert t.get_provider_specific_property("aws/region") == "us-east-1"
    assert reg.generate_txt_record(ep("x" * 62 + ".example.com", "CNAME", "t")) == []  # 'cname-' + 62 > 63


def test_generated_txt_carries_every_property_and_passes_webhook_admission() -> None:
    """Go's generateTXTRecord copies all provider-specific properties (alias, txt/force-update included); a
    webhook server (ours) must admit such a TXT as a Go client sends it, not refuse it as an 'alias TXT'."""
    from external_dns.plan.admission import admit_changes

    reg = TXTRegistry(DictProvider())
    record = ep("www.example.com", "A", "lb.elb.amazonaws.com", owner="default", alias="true")
    record.set_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE, "true")
    [t] = reg.generate_txt_record(record)
    assert [(p.name, p.value) for p in t.provider_specific] == [
        (p.name, p.value) for p in record.provider_specific]
    assert t.get_provider_specific_property("alias") == "true"
    admitted, refused = admit_changes(Changes(create=[record, t]))
    assert refused == [] and [e.record_type for e in admitted.create] == ["A", "TXT"]
    # A TXT from a source (not below a registry) with `alias` is still refused, as Go's CheckEndpoint.
    from external_dns.endpoint.limits import endpoint_problem
    assert endpoint_problem(ep("t.example.com", "TXT", "hello", alias="true")) is not None


def test_update_and_delete_full_cycle() -> None:
    p = DictProvider()
    reg = TXTRegistry(p)
    sync(reg, [ep("app.example.com", "A", "1.2.3.4", resource="service/default/nginx")])
    created = p.get("a-app.example.com", "TXT")
    assert created is not None
    changes = sync(reg, [ep("app.example.com", "A", "4.4.4.4", resource="service/default/nginx")])
    assert [e.dns_name for e in changes.update_old] == ["app.example.com", "a-app.example.com"]
    assert [e.dns_name for e in changes.update_new] == ["app.example.com", "a-app.example.com"]
    assert list(p.store[("app.example.com", "A", "")].targets) == ["4.4.4.4"]
    changes = sync(reg, [])
    assert [e.dns_name for e in changes.delete] == ["app.example.com", "a-app.example.com"]
    assert list(changes.delete[1].targets) == list(created.targets)
    assert p.store == {}


def test_delete_sends_value_as_read_even_when_formatted_differently() -> None:
    # RFC2136 style: TXT read back without quotes and with an extra label; a delete must match it exactly.
    raw = "heritage=external-dns,external-dns/resource=r,external-dns/owner=default,external-dns/zzz=1"
    p = DictProvider([ep("x.example.com", "A", "1.1.1.1"), txt("a-x.example.com", raw)])
    reg = TXTRegistry(p)
    changes = sync(reg, [])
    assert list(changes.delete[-1].targets) == [raw]
    assert p.store == {}


def test_multi_cluster_ownership() -> None:
    p = DictProvider([
        ep("shared.example.com", "A", "1.1.1.1"),
        txt("a-shared.example.com", owner_txt("c1", "service/a/b")),
        ep("mine.example.com", "A", "2.2.2.2"),
        txt("a-mine.example.com", owner_txt("c2", "service/x/y")),
        ep("manual.example.com", "A", "3.3.3.3"),
    ])
    c2 = TXTRegistry(p, owner_id="c2")
    desired = [
        ep("shared.example.com", "A", "5.5.5.5", resource="service/c2/z"),
        ep("manual.example.com", "A", "6.6.6.6", resource="service/c2/m"),
    ]
    changes = sync(c2, desired)
    # c2 deletes only its own record, never touches c1's or the unowned one.
    assert [e.dns_name for e in changes.delete] == ["mine.example.com", "a-mine.example.com"]
    assert list(p.store[("shared.example.com", "A", "")].targets) == ["1.1.1.1"]
    assert list(p.store[("manual.example.com", "A", "")].targets) == ["3.3.3.3"]
    # Even a plan that asks for foreign updates/deletes is filtered by the registry.
    current = by_key(c2.records())
    shared = current[("shared.example.com", "A", "")]
    n = len(p.applied)
    c2.apply_changes(Changes(update_old=[shared], update_new=[ep("shared.example.com", "A", "9.9.9.9", owner="c1")],
                             delete=[current[("manual.example.com", "A", "")]]))
    assert len(p.applied) == n + 1 and p.applied[-1].is_empty()


def test_create_skips_txt_that_already_exists() -> None:
    p = DictProvider([txt("a-stale.example.com", owner_txt("me"))])
    reg = TXTRegistry(p, owner_id="me")
    reg.records()
    reg.apply_changes(Changes(create=[ep("stale.example.com", "A", "1.1.1.1")]))
    assert [e.dns_name for e in p.applied[-1].create] == ["stale.example.com"]


def test_create_under_another_owners_ownership_txt_is_refused() -> None:
    """Departure from Go (which creates the record and skips the TXT): the record would be the other owner's
    as soon as it is read back (issue 27: an ownership TXT is never 'free to take', nor given)."""
    p = DictProvider([txt("a-stale.example.com", owner_txt("other"))])
    reg = TXTRegistry(p, owner_id="me")
    reg.records()
    reg.apply_changes(Changes(create=[ep("stale.example.com", "A", "1.1.1.1"), ep("ok.example.com", "A", "1.1.1.2")]))
    assert sorted(e.dns_name for e in p.applied[-1].create) == ["a-ok.example.com", "ok.example.com"]


def test_migrate_from_old_owner() -> None:
    p = DictProvider([
        ep("app.example.com", "A", "1.1.1.1"),
        txt("a-app.example.com", owner_txt("old", "service/a/b")),
        ep("foreign.example.com", "A", "2.2.2.2"),
        txt("a-foreign.example.com", owner_txt("third", "service/c/d")),
    ])
    reg = TXTRegistry(p, owner_id="new", old_owner_id="old")
    got = by_key(reg.records())
    assert got[("app.example.com", "A", "")].labels["owner"] == "new"
    assert got[("foreign.example.com", "A", "")].labels["owner"] == "third"
    desired = [ep("app.example.com", "A", "1.1.1.1", resource="service/a/b"),
               ep("foreign.example.com", "A", "2.2.2.2", resource="service/c/d")]
    changes = sync(reg, desired, old_owner="old")
    # The update-old TXT carries the value actually stored (old owner), the new one our owner.
    assert list(changes.update_old[-1].targets) == [owner_txt("old", "service/a/b")]
    stored = p.get("a-app.example.com", "TXT")
    assert stored is not None and parse_labels(stored.targets[0]) == {"owner": "new", "resource": "service/a/b"}
    foreign = p.get("a-foreign.example.com", "TXT")
    assert foreign is not None and parse_labels(foreign.targets[0])["owner"] == "third"
    # A generated TXT of a record still labelled with the old owner is rewritten.
    [t] = reg.generate_txt_record(ep("z.example.com", "A", "1.1.1.1", owner="old"))
    assert parse_labels(t.targets[0]) == {"owner": "new"}


def test_provider_failure_propagates() -> None:
    p = DictProvider()
    reg = TXTRegistry(p)
    p.fail_next = True
    with pytest.raises(ProviderError, match="injected"):
        reg.apply_changes(Changes(create=[ep("a.example.com", "A", "1.1.1.1")]))
    assert p.store == {}
    sync(reg, [ep("a.example.com", "A", "1.1.1.1")])
    assert p.names("TXT") == {"a-a.example.com"}


# -- encryption -------------------------------------------------------------------------------------------------
def test_encrypted_create_read_and_delete() -> None:
    p = DictProvider()
    reg = TXTRegistry(p, txt_encrypt_enabled=True, txt_encrypt_aes_key=KEY)
    sync(reg, [ep("app.example.com", "A", "1.2.3.4", resource="service/default/nginx")])
    stored = p.get("a-app.example.com", "TXT")
    assert stored is not None
    value = stored.targets[0]
    assert value.startswith('"') and "heritage" not in value
    plain, nonce = crypto.decrypt_text(value.strip('"'), KEY.encode())
    assert plain == "heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/nginx"
    [record] = reg.records()
    assert record.labels == {"owner": "default", "resource": "service/default/nginx", TXT_ENCRYPTION_NONCE: nonce}
    # Stable: no update planned, and a regenerated TXT reproduces the stored value.
    assert not sync(reg, [ep("app.example.com", "A", "1.2.3.4", resource="service/default/nginx")]).has_changes()
    assert reg.generate_txt_record(record)[0].targets[0] == value
    changes = sync(reg, [])
    assert list(changes.delete[-1].targets) == [value]
    assert p.store == {}


def test_encrypted_delete_sends_read_value_when_regeneration_differs() -> None:
    # A value whose gzip stream differs from ours (as Go's deflate can for long inputs) decrypts fine but
    # re-encrypting with the same nonce gives other bytes; the delete must still send the value read.
    key = KEY.encode()
    nonce = b"\x07" * 12
    plain = b"heritage=external-dns,external-dns/owner=default,external-dns/resource=" + b"r" * 300
    value = '"' + base64.b64encode(nonce + AESGCM(key).encrypt(nonce, gzip.compress(plain, 1), None)).decode() + '"'
    p = DictProvider([ep("x.example.com", "A", "1.1.1.1"), txt("a-x.example.com", value)])
    reg = TXTRegistry(p, txt_encrypt_enabled=True, txt_encrypt_aes_key=KEY)
    [record] = reg.records()
    assert record.labels["owner"] == "default"
    assert reg.generate_txt_record(record.copy())[0].targets[0] != value
    changes = sync(reg, [])
    assert list(changes.delete[-1].targets) == [value]
    assert p.store == {}


def test_mixed_plain_and_encrypted_and_key_without_encryption() -> None:
    enc = crypto.encrypt_text("heritage=external-dns,external-dns/owner=default", KEY.encode(), crypto.generate_nonce())
    p = DictProvider([
        ep("e.example.com", "A", "1.1.1.1"), txt("a-e.example.com", f'"{enc}"'),
        ep("p.example.com", "A", "2.2.2.2"), txt("a-p.example.com", owner_txt("default")),
    ])
    # Key given but encryption off: reads both, writes plain.
    reg = TXTRegistry(p, txt_encrypt_aes_key=base64.b64encode(KEY.encode()).decode())
    got = by_key(reg.records())
    assert got[("e.example.com", "A", "")].labels["owner"] == "default"
    assert got[("p.example.com", "A", "")].labels == {"owner": "default"}
    reg.apply_changes(Changes(create=[ep("n.example.com", "A", "3.3.3.3")]))
    new = p.get("a-n.example.com", "TXT")
    assert new is not None and new.targets[0] == owner_txt("default")


# -- cache ------------------------------------------------------------------------------------------------------

def test_cache_serves_reads_and_follows_writes() -> None:
    clock = FakeClock(1000.0)
    p = DictProvider([ep("a.example.com", "A", "1.1.1.1"), txt("a-a.example.com", owner_txt("default"))])
    reg = TXTRegistry(p, cache_interval=60, clock=clock.now)
    first = reg.records()
    assert p.reads == 1
    first[0].labels["mutated"] = "yes"  # callers cannot corrupt the cache
    assert reg.records()[0].labels == {"owner": "default"}
    assert p.reads == 1
    reg.apply_changes(Changes(create=[ep("b.example.com", "A", "2.2.2.2")]))
    cur = by_key(reg.records())
    assert p.reads == 1 and cur[("b.example.com", "A", "")].labels["owner"] == "default"
    reg.apply_changes(Changes(delete=[cur[("a.example.com", "A", "")]]))
    assert set(by_key(reg.records())) == {("b.example.com", "A", "")}
    assert p.reads == 1
    # Recreating within the interval writes the TXT again (the TXT table follows writes too).
    reg.apply_changes(Changes(create=[ep("a.example.com", "A", "1.1.1.1")]))
    assert p.get("a-a.example.com", "TXT") is not None
    clock.step(61)
    reg.records()
    assert p.reads == 2


def test_cache_update_replaces_entry_and_failure_drops_cache() -> None:
    clock = FakeClock(1000.0)
    p = DictProvider([ep("a.example.com", "A", "1.1.1.1"), txt("a-a.example.com", owner_txt("default"))])
    reg = TXTRegistry(p, cache_interval=60, clock=clock.now)
    changes = sync(reg, [ep("a.example.com", "A", "9.9.9.9")])
    assert changes.update_new
    [cached] = reg.records()
    assert list(cached.targets) == ["9.9.9.9"] and p.reads == 1
    p.fail_next = True
    with pytest.raises(ProviderError):
        reg.apply_changes(Changes(create=[ep("b.example.com", "A", "2.2.2.2")]))
    reg.records()
    assert p.reads == 2


def test_no_cache_reads_every_time() -> None:
    p = DictProvider()
    reg = TXTRegistry(p)
    reg.records()
    reg.records()
    assert p.reads == 2


def test_delete_of_record_owned_through_legacy_txt_skips_missing_new_txt() -> None:
    p = DictProvider([
        ep("www.example.com", "A", "lb.elb.amazonaws.com", alias="true"),
        txt("cname-www.example.com", owner_txt("default")),
        ep("old.example.com", "CNAME", "x.example.net"),
        txt("old.example.com", owner_txt("default")),
    ])
    reg = TXTRegistry(p)
    changes = sync(reg, [])
    assert sorted(e.dns_name for e in changes.delete) == ["old.example.com", "www.example.com"]
    # Legacy and old-format TXT stay (never deleted automatically, as external-dns).
    assert set(p.store) == {("cname-www.example.com", "TXT", ""), ("old.example.com", "TXT", "")}


def test_apply_without_prior_read_sends_txt_changes_as_given() -> None:
    p = DictProvider([ep("a.example.com", "A", "1.1.1.1"), txt("a-a.example.com", owner_txt("default"))])
    reg = TXTRegistry(p)
    current = ep("a.example.com", "A", "1.1.1.1", owner="default")
    reg.apply_changes(Changes(delete=[current]))
    assert [e.dns_name for e in p.applied[-1].delete] == ["a.example.com", "a-a.example.com"]
    assert p.store == {}
