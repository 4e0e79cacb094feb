"""The RFC2136 provider against a real BIND9 (tests/servers/bind.py): writes, read-back, batching, errors."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.provider import ProviderError, SoftError
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.providers.rfc2136.transport import TsigRejected, Unreachable
from tests.helpers.endpoints import ep
from tests.providers.rfc2136.conftest import sent_messages
from tests.servers.bind import TSIG_ALGORITHMS, BindServer

pytestmark = pytest.mark.integration

ALL_TYPES = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "DNAME", "NAPTR"]


def by_key(endpoints: list[Endpoint]) -> dict[tuple[str, str], Endpoint]:
    return {(e.dns_name, e.record_type): e for e in endpoints}


def only(current: list[Endpoint], desired: list[Endpoint]) -> list[Endpoint]:
    """The current records at the desired names (the zones' own SOA/NS/glue are not part of a test)."""
    keys = {(d.dns_name, d.record_type) for d in desired}
    return [c for c in current if (c.dns_name, c.record_type) in keys]


def mixed_records() -> list[Endpoint]:
    return [
        ep("web.example.org", "A", "10.0.0.5", "10.0.0.6", ttl=120),
        ep("web.example.org", "AAAA", "2001:db8:0:0::1"),
        ep("www.example.org", "CNAME", "Web.Example.org."),
        ep("txt.example.org", "TXT", 'say "hello" world', '"heritage=external-dns,external-dns/owner=default"'),
        ep("example.org", "MX", "10 mail.example.net.", "20 mx2.example.net"),
        ep("_http._tcp.example.org", "SRV", "10 5 8080 web.example.net"),
        ep("deleg.example.org", "NS", "ns.example.net"),
        ep("5.0.0.10.example.org", "PTR", "web.example.org"),
        ep("dn.example.com", "DNAME", "example.net"),
        ep("naptr.example.com", "NAPTR", '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.net!" .'),
    ]


def test_create_every_type_and_read_back_equal(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    desired = provider.adjust_endpoints(mixed_records())
    provider.apply_changes(Changes(create=desired))

    assert clean_bind.rrset("web.example.org", "A") == (120, ["10.0.0.5", "10.0.0.6"])
    assert clean_bind.rrset("example.org", "MX") == (0, ["10 mail.example.net.", "20 mx2.example.net."])
    assert clean_bind.rrset("_http._tcp.example.org", "SRV") == (0, ["10 5 8080 web.example.net."])
    txt = clean_bind.rrset("txt.example.org", "TXT")
    assert txt is not None and sorted(txt[1]) == sorted(
        ['"say \\"hello\\" world"', '"heritage=external-dns,external-dns/owner=default"'])

    current = by_key(provider.records())
    for want in desired:
        got = current[(want.dns_name, want.record_type)]
        assert sorted(got.targets) == sorted(want.targets), want
        assert got.record_ttl == want.record_ttl, want
    # TXT values come back unquoted, spaces and inner quotes intact.
    assert sorted(current[("txt.example.org", "TXT")].targets) == sorted(
        ['say "hello" world', "heritage=external-dns,external-dns/owner=default"])
    assert current[("example.org", "MX")].targets == ["10 mail.example.net", "20 mx2.example.net"]


def test_noop_resync_sends_no_update(provider: RFC2136Provider) -> None:
    desired = provider.adjust_endpoints(mixed_records())
    provider.apply_changes(Changes(create=desired))
    before = sent_messages()
    desired = provider.adjust_endpoints(mixed_records())
    plan = Plan(current=only(provider.records(), desired), desired=desired,
                policies=["sync"], managed_records=ALL_TYPES).calculate()
    assert plan.changes.is_empty(), plan.changes
    provider.apply_changes(plan.changes)
    assert sent_messages() == before


def test_update_is_one_message_and_record_never_absent(provider: RFC2136Provider,
                                                       clean_bind: BindServer) -> None:
    old = ep("live.example.org", "A", "10.1.0.1", ttl=60)
    provider.apply_changes(Changes(create=[old]))
    seen_missing = threading.Event()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if clean_bind.rrset("live.example.org", "A") is None:
                seen_missing.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        for i in range(2, 12):
            current = by_key(provider.records())[("live.example.org", "A")]
            new = ep("live.example.org", "A", f"10.1.0.{i}", ttl=60)
            before = sent_messages()
            provider.apply_changes(Changes(update_old=[current], update_new=[new]))
            assert sent_messages() == before + 1
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert not seen_missing.is_set()
    assert clean_bind.rrset("live.example.org", "A") == (60, ["10.1.0.11"])


def test_update_ttl_and_targets_and_delete(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    provider.apply_changes(Changes(create=[ep("t.example.com", "A", "192.0.2.1", "192.0.2.2", ttl=300)]))
    cur = by_key(provider.records())[("t.example.com", "A")]
    provider.apply_changes(Changes(update_old=[cur], update_new=[ep("t.example.com", "A", "192.0.2.2", ttl=600)]))
    assert clean_bind.rrset("t.example.com", "A") == (600, ["192.0.2.2"])
    cur = by_key(provider.records())[("t.example.com", "A")]
    provider.apply_changes(Changes(delete=[cur]))
    assert clean_bind.rrset("t.example.com", "A") is None


def test_min_ttl_applies_to_unset_and_low_ttls(make_provider: Callable[..., RFC2136Provider],
                                                clean_bind: BindServer) -> None:
    p = make_provider(min_ttl=60)
    desired = p.adjust_endpoints([ep("lo.example.org", "A", "192.0.2.9", ttl=10), ep("un.example.org", "A", "192.0.2.8"),
                                  ep("hi.example.org", "A", "192.0.2.7", ttl=3600)])
    assert [d.record_ttl for d in desired] == [60, 0, 3600]
    p.apply_changes(Changes(create=desired))
    assert clean_bind.rrset("lo.example.org", "A") == (60, ["192.0.2.9"])
    assert clean_bind.rrset("un.example.org", "A") == (60, ["192.0.2.8"])
    assert clean_bind.rrset("hi.example.org", "A") == (3600, ["192.0.2.7"])
    plan = Plan(current=only(p.records(), desired), desired=desired, policies=["sync"]).calculate()
    assert plan.changes.is_empty()


def test_txt_values_with_spaces_quotes_and_long_values_round_trip(provider: RFC2136Provider) -> None:
    long_value = "k=" + "x" * 600
    values = ['a b  c', 'he said "hi"', '"quoted whole"', "back\\slash", long_value, "ünïcødé"]
    provider.apply_changes(Changes(create=[ep("q.example.org", "TXT", *values)]))
    got = by_key(provider.records())[("q.example.org", "TXT")]
    assert sorted(got.targets) == sorted(["a b  c", 'he said "hi"', "quoted whole", "back\\slash", long_value,
                                          "ünïcødé"])
    desired = provider.adjust_endpoints([ep("q.example.org", "TXT", *values)])
    plan = Plan(current=[got], desired=desired, policies=["sync"], managed_records=["TXT"]).calculate()
    assert plan.changes.is_empty()
    provider.apply_changes(Changes(delete=[got]))
    assert ("q.example.org", "TXT") not in by_key(provider.records())


def test_longest_zone_wins_on_label_boundary(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    assert provider.zone_for("a.sub.example.org") == "sub.example.org"
    assert provider.zone_for("sub.example.org") == "sub.example.org"
    assert provider.zone_for("xsub.example.org") == "example.org"
    assert provider.zone_for("badexample.org") is None
    provider.apply_changes(Changes(create=[ep("a.sub.example.org", "A", "192.0.2.1"),
                                           ep("xsub.example.org", "A", "192.0.2.2"),
                                           ep("badexample.org", "A", "192.0.2.3")]))
    sub = {n for n, *_ in clean_bind.axfr("sub.example.org")}
    parent = {n for n, *_ in clean_bind.axfr("example.org")}
    assert "a.sub.example.org" in sub and "a.sub.example.org" not in parent
    assert "xsub.example.org" in parent
    names = {e.dns_name for e in provider.records()}
    assert {"a.sub.example.org", "xsub.example.org"} <= names and "badexample.org" not in names
    assert sorted(provider.zones()) == ["example.com", "example.org", "sub.example.org"]
    assert provider.get_domain_filter().match("x.example.com")
    assert not provider.get_domain_filter().match("example.net")


def test_record_and_its_ownership_txt_share_a_message_and_batches_respect_size(
        make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=10)
    creates: list[Endpoint] = []
    for i in range(25):
        name = f"h{i:02d}.example.com"
        creates.append(ep(name, "A", f"198.51.100.{i}"))
        creates.append(ep(f"a-{name}", "TXT", '"heritage=external-dns,external-dns/owner=default"',
                          labels={OWNED_RECORD_LABEL_KEY: name}))
    before = sent_messages()
    p.apply_changes(Changes(create=creates))
    assert sent_messages() - before == 5  # 50 endpoints, 10 per message, pairs never split
    assert len([e for e in p.records() if e.dns_name.startswith(("h", "a-h"))]) == 50


def test_large_batches_split_under_the_message_limit(make_provider: Callable[..., RFC2136Provider],
                                                      clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=100000)
    creates = [ep(f"bulk-{i:05d}.example.com", "A", f"10.{i // 256 % 256}.{i % 256}.1") for i in range(6000)]
    before = sent_messages()
    p.apply_changes(Changes(create=creates))
    sent = sent_messages() - before
    # each create: its RR (27 bytes) and two prerequisites (46 bytes: no such record set, no CNAME); 6000 of
    # them fill 8 messages of at most 60,000 bytes
    assert 2 <= sent <= 8
    assert len([e for e in p.records() if e.dns_name.startswith("bulk-")]) == 6000
    p.apply_changes(Changes(delete=[e for e in p.records() if e.dns_name.startswith("bulk-")]))
    assert not [e for e in p.records() if e.dns_name.startswith("bulk-")]


def test_type_change_in_one_sync(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    provider.apply_changes(Changes(create=[ep("tc.example.org", "CNAME", "target.example.net")]))
    cur = by_key(provider.records())[("tc.example.org", "CNAME")]
    # BIND silently drops an A added next to a CNAME: removals must come first in the message.
    provider.apply_changes(Changes(create=[ep("tc.example.org", "A", "192.0.2.44")], delete=[cur]))
    assert clean_bind.rrset("tc.example.org", "A") == (0, ["192.0.2.44"])
    assert clean_bind.rrset("tc.example.org", "CNAME") is None


def test_foreign_record_in_same_rrset_untouched_by_delete(provider: RFC2136Provider,
                                                          clean_bind: BindServer) -> None:
    upd = clean_bind.update("example.org")
    upd.add("shared.example.org.", 300, "A", "203.0.113.99")
    clean_bind.send(upd)
    provider.apply_changes(Changes(create=[ep("shared.example.org", "A", "203.0.113.1")]))
    # the create does not join the foreign record set (its TTL was rewritten to ours before, issue 27)
    assert clean_bind.rrset("shared.example.org", "A") == (300, ["203.0.113.99"])
    provider.apply_changes(Changes(delete=[ep("shared.example.org", "A", "203.0.113.1")]))
    assert clean_bind.rrset("shared.example.org", "A") == (300, ["203.0.113.99"])


def test_refused_records_first_in_a_batch_do_not_block_the_rest(make_provider: Callable[..., RFC2136Provider],
                                                                  clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=10)
    bad = [ep(f"bad{i}.example.org", "MX", f"10 nohost{i}.example.org") for i in range(4)]
    good = [ep(f"fine{i}.example.org", "A", f"192.0.2.{i}") for i in range(4)]
    with pytest.raises(SoftError):
        p.apply_changes(Changes(create=[*bad, *good]))
    for g in good:
        assert clean_bind.rrset(g.dns_name, "A") is not None
    assert not [n for n, *_ in clean_bind.axfr("example.org") if n.startswith("_external-dns-probe")]


def test_refused_record_does_not_block_the_rest(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    # named refuses an MX whose in-zone exchange has no address (integrity check): the whole UPDATE.
    bad = ep("bad.example.org", "MX", "10 nohost.example.org")
    good = [ep(f"ok{i}.example.org", "A", f"192.0.2.{i}") for i in range(5)]
    with pytest.raises(SoftError) as info:
        provider.apply_changes(Changes(create=[*good[:2], bad, *good[2:]]))
    msg = str(info.value)
    assert "zone example.org" in msg and "bad.example.org MX" in msg and "REFUSED" in msg
    for g in good:
        assert clean_bind.rrset(g.dns_name, "A") is not None
    assert clean_bind.rrset("bad.example.org", "MX") is None


def test_invalid_target_is_named_and_others_are_written(provider: RFC2136Provider,
                                                        clean_bind: BindServer) -> None:
    with pytest.raises(SoftError) as info:
        provider.apply_changes(Changes(create=[ep("broken.example.org", "A", "not-an-ip"),
                                               ep("fine.example.org", "A", "192.0.2.50")]))
    assert "broken.example.org A" in str(info.value) and "not-an-ip" in str(info.value)
    assert clean_bind.rrset("fine.example.org", "A") == (0, ["192.0.2.50"])


def test_wrong_tsig_secret_is_a_clear_error_and_writes_nothing(
        make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer) -> None:
    wrong = "c2VjcmV0LXRoYXQtaXMtd3Jvbmctc2VjcmV0LXRoYXQtaXM="
    p = make_provider(tsig_secret=wrong)
    with pytest.raises(TsigRejected) as info:
        p.apply_changes(Changes(create=[ep(f"w{i}.example.org", "A", "192.0.2.1") for i in range(3)]))
    assert not isinstance(info.value, SoftError) and isinstance(info.value, ProviderError)
    text = str(info.value)
    assert "externaldns-key" in text and "--rfc2136-tsig-secret" in text and "zone example.org" in text
    assert wrong not in text and clean_bind.key_secret not in text
    assert not [n for n, *_ in clean_bind.axfr("example.org") if n.startswith("w")]
    with pytest.raises(TsigRejected):
        p.records()


def test_unsigned_update_is_refused(make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer) -> None:
    p = make_provider(insecure=True, tsig_keyname="", tsig_secret="")
    with pytest.raises(SoftError, match=r"zone example.org \(create nosig.example.org A\).*REFUSED"):
        p.apply_changes(Changes(create=[ep("nosig.example.org", "A", "192.0.2.1")]))
    assert clean_bind.rrset("nosig.example.org", "A") is None


@pytest.mark.parametrize("algorithm", TSIG_ALGORITHMS)
def test_every_tsig_algorithm(make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer,
                              algorithm: str) -> None:
    name, secret = clean_bind.keys[algorithm]
    p = make_provider(tsig_keyname=name, tsig_secret=secret, tsig_secret_alg=algorithm)
    p.apply_changes(Changes(create=[ep(f"{algorithm}.example.com", "A", "192.0.2.77")]))
    assert (f"{algorithm}.example.com", "A") in by_key(p.records())


def test_failover_and_round_robin_over_several_hosts(make_provider: Callable[..., RFC2136Provider],
                                                     clean_bind: BindServer) -> None:
    # 127.0.0.2 is loopback too, but named listens on 127.0.0.1 only: connections are refused.
    for strategy in ("disabled", "round-robin", "random"):
        p = make_provider(hosts=("127.0.0.2", clean_bind.host), load_balancing_strategy=strategy)
        name = f"lb-{strategy}.example.org"
        p.apply_changes(Changes(create=[ep(name, "A", "192.0.2.10")]))
        assert (name, "A") in by_key(p.records())
    rr = make_provider(hosts=("a", "b", "c"), load_balancing_strategy="round-robin").transport
    assert [rr.host_order()[0] for _ in range(4)] == ["a", "b", "c", "a"]


def test_unreachable_servers_are_a_soft_error(make_provider: Callable[..., RFC2136Provider]) -> None:
    p = make_provider(hosts=("127.0.0.2",), timeout=2.0)
    with pytest.raises(Unreachable) as info:
        p.apply_changes(Changes(create=[ep("x.example.org", "A", "192.0.2.1")]))
    assert isinstance(info.value, SoftError)
    with pytest.raises(SoftError):
        p.records()


def test_dns_over_tls(make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer) -> None:
    p = make_provider(port=clean_bind.tls_port, use_tls=True, skip_tls_verify=True)
    p.apply_changes(Changes(create=[ep("tls.example.org", "A", "192.0.2.33")]))
    assert by_key(p.records())[("tls.example.org", "A")].targets == ["192.0.2.33"]
    # The server's certificate is self-signed: with verification on, the connection is refused.
    strict = make_provider(port=clean_bind.tls_port, use_tls=True)
    with pytest.raises(SoftError):
        strict.apply_changes(Changes(create=[ep("tls2.example.org", "A", "192.0.2.34")]))
    assert clean_bind.rrset("tls2.example.org", "A") is None


def test_axfr_disabled_reads_nothing(make_provider: Callable[..., RFC2136Provider]) -> None:
    p = make_provider(axfr=False)
    p.apply_changes(Changes(create=[ep("noaxfr.example.org", "A", "192.0.2.1")]))
    assert p.records() == []


def test_each_character_string_of_a_foreign_txt_is_one_target(provider: RFC2136Provider,
                                                               clean_bind: BindServer) -> None:
    upd = clean_bind.update("example.org")
    upd.add("multi.example.org.", 300, "TXT", '"first string" "second one"')
    upd.add("multi.example.org.", 300, "TXT", '"third"')
    clean_bind.send(upd)
    got = by_key(provider.records())[("multi.example.org", "TXT")]
    assert sorted(got.targets) == ["first string", "second one", "third"]


def test_zone_wide_refusal_is_probed_not_retried_per_record(make_provider: Callable[..., RFC2136Provider],
                                                             clean_bind: BindServer) -> None:
    p = make_provider(insecure=True, tsig_keyname="", tsig_secret="", batch_change_size=5)
    before = sent_messages()
    with pytest.raises(SoftError) as info:
        p.apply_changes(Changes(create=[ep(f"r{i:02d}.example.org", "A", "192.0.2.1") for i in range(40)]))
    # one refused batch, three single records, one harmless probe update, then nothing more for the zone
    assert sent_messages() - before == 5
    text = str(info.value)
    assert "REFUSED" in text and "not sent" in text and "r03.example.org" in text and "(+32 more)" in text


def test_named_runs_unprivileged(bind_server: BindServer) -> None:
    assert bind_server.process is not None
    status = Path(f"/proc/{bind_server.process.pid}/status").read_text()
    uids = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
    assert all(int(u) != 0 for u in uids), uids
