"""Zone snapshots against BIND: an unchanged zone is not transferred again, our own writes are folded in
only when the SOA serial proves nobody else wrote, and anything uncertain falls back to a full AXFR."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from external_dns.plan.changes import Changes
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.providers.rfc2136.provider import ZONE_READS
from tests.helpers.endpoints import ep
from tests.providers.rfc2136.conftest import make_config
from tests.servers.bind import BindServer, running_bind

pytestmark = pytest.mark.integration


def reads(kind: str) -> float:
    return sum(s.value for m in ZONE_READS.collect() for s in m.samples
               if s.name.endswith("_total") and s.labels["kind"] == kind)


def state(p: RFC2136Provider) -> set[tuple[str, str, int, tuple[str, ...]]]:
    return {(e.dns_name, e.record_type, e.record_ttl, tuple(sorted(e.targets))) for e in p.records()}


def test_unchanged_zone_is_not_transferred_again(make_provider: Callable[..., RFC2136Provider]) -> None:
    p = make_provider()
    first = state(p)
    axfr = reads("axfr")
    assert state(p) == first
    assert reads("axfr") == axfr  # three zones, each answered from its snapshot


def test_own_writes_are_folded_in_and_match_a_fresh_transfer(make_provider: Callable[..., RFC2136Provider],
                                                             clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=7)
    p.records()
    p.apply_changes(Changes(create=[ep(f"s{i}.example.org", "A", f"10.2.0.{i}", ttl=60) for i in range(20)]
                            + [ep("t.example.org", "TXT", "a b", '"c"')]))
    cur = {(e.dns_name, e.record_type): e for e in p.records()}
    p.apply_changes(Changes(update_old=[cur[("s1.example.org", "A")], cur[("t.example.org", "TXT")]],
                            update_new=[ep("s1.example.org", "A", "10.2.1.1", ttl=120),
                                        ep("t.example.org", "TXT", "a b", "d")],
                            delete=[cur[("s2.example.org", "A")]]))
    axfr = reads("axfr")
    folded = state(p)
    assert reads("axfr") == axfr  # served from the snapshot
    assert folded == state(make_provider())  # ... and identical to what a new provider transfers
    assert ("s1.example.org", "A", 120, ("10.2.1.1",)) in folded
    assert ("t.example.org", "TXT", 0, ("a b", "d")) in folded
    assert not any(name == "s2.example.org" for name, *_ in folded)


def test_foreign_change_is_seen(make_provider: Callable[..., RFC2136Provider], clean_bind: BindServer) -> None:
    p = make_provider()
    p.records()
    upd = clean_bind.update("example.com")
    upd.add("foreign.example.com.", 300, "A", "192.0.2.123")
    clean_bind.send(upd)
    assert ("foreign.example.com", "A", 300, ("192.0.2.123",)) in state(p)

    # A foreign write between our read and our write: the snapshot is dropped, the next read transfers.
    upd = clean_bind.update("example.com")
    upd.add("foreign2.example.com.", 300, "A", "192.0.2.124")
    clean_bind.send(upd)
    p.apply_changes(Changes(create=[ep("mine.example.com", "A", "192.0.2.1")]))
    axfr = reads("axfr")
    after = state(p)
    assert reads("axfr") > axfr
    assert {("foreign2.example.com", "A", 300, ("192.0.2.124",)), ("mine.example.com", "A", 0, ("192.0.2.1",))} <= after


def test_silently_ignored_write_drops_the_snapshot(make_provider: Callable[..., RFC2136Provider],
                                                   clean_bind: BindServer) -> None:
    p = make_provider()
    p.apply_changes(Changes(create=[ep("alias.example.org", "CNAME", "target.example.net")]))
    p.records()
    # named answers NOERROR but drops an A next to a CNAME: the provider must not believe it was written.
    p.apply_changes(Changes(create=[ep("alias.example.org", "A", "192.0.2.5"), ep("ok.example.org", "A", "192.0.2.6")]))
    got = state(p)
    assert not any(n == "alias.example.org" and t == "A" for n, t, *_ in got)
    assert ("ok.example.org", "A", 0, ("192.0.2.6",)) in got
    assert clean_bind.rrset("alias.example.org", "A") is None


def test_foreign_changes_are_caught_up_by_ixfr(make_provider: Callable[..., RFC2136Provider],
                                               clean_bind: BindServer) -> None:
    p = make_provider()
    p.apply_changes(Changes(create=[ep("keep.example.org", "A", "192.0.2.1", "192.0.2.2", ttl=60),
                                    ep("gone.example.org", "TXT", "bye"), ep("cn.example.org", "CNAME", "x.example.net")]))
    p.records()
    # Several foreign transactions: an added name, a removed rrset, a removed target, a TTL change.
    for build in (
        lambda u: u.add("new.example.org.", 30, "A", "192.0.2.9"),
        lambda u: u.delete("gone.example.org.", "TXT"),
        lambda u: u.delete("keep.example.org.", "A", "192.0.2.1"),
        lambda u: (u.delete("cn.example.org.", "CNAME"), u.add("cn.example.org.", 600, "CNAME", "y.example.net.")),
    ):
        upd = clean_bind.update("example.org")
        build(upd)
        clean_bind.send(upd)
    axfr, ixfr = reads("axfr"), reads("ixfr")
    caught_up = state(p)
    assert reads("axfr") == axfr and reads("ixfr") == ixfr + 1  # only example.org changed
    assert caught_up == state(make_provider())  # same as a full transfer
    assert ("keep.example.org", "A", 60, ("192.0.2.2",)) in caught_up
    assert ("cn.example.org", "CNAME", 600, ("y.example.net",)) in caught_up
    assert ("new.example.org", "A", 30, ("192.0.2.9",)) in caught_up
    assert not any(n == "gone.example.org" for n, *_ in caught_up)


def test_full_answer_to_ixfr_becomes_the_snapshot() -> None:
    # named's default max-ixfr-ratio (100%) answers IXFR of a tiny zone with the whole zone.
    with running_bind(["tiny.test"], with_tls=False, ixfr_ratio="100%") as srv:
        p = RFC2136Provider(make_config(srv, zones=("tiny.test",)))
        p.records()
        upd = srv.update("tiny.test")
        upd.add("x.tiny.test.", 60, "A", "192.0.2.1")
        srv.send(upd)
        axfr, ixfr = reads("axfr"), reads("ixfr")
        got = state(p)
        assert (reads("axfr"), reads("ixfr")) == (axfr, ixfr + 1)
        assert ("x.tiny.test", "A", 60, ("192.0.2.1",)) in got
        assert got == state(RFC2136Provider(make_config(srv, zones=("tiny.test",))))
