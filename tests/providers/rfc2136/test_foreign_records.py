"""Records this owner did not write, against a real BIND: a create never joins a record set that exists or sits
beside a CNAME (UPDATE prerequisites), whether or not the zone is read back (--rfc2136-axfr); a record the
server refuses is named in a warning and its ownership TXT is never written (issue 27, items 3 and 12)."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import pytest

from external_dns.providers.rfc2136 import RFC2136Provider
from tests.helpers.endpoints import ep
from tests.helpers.sync import sync
from tests.providers.rfc2136.conftest import sent_messages
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration

def hand_made(srv: BindServer, name: str, rtype: str, *values: str, ttl: int = 600) -> None:
    upd = srv.update(srv.zone_of(name))
    for value in values:
        upd.add(name + ".", ttl, rtype, value)
    srv.send(upd)


def serial(srv: BindServer, zone: str = "example.org") -> int:
    return next(int(values[0].split()[2]) for name, rtype, _ttl, values in srv.axfr(zone)
                if name == zone and rtype == "SOA")


def refusals(logs: list[MutableMapping[str, Any]]) -> set[object]:
    return {line.get("record") for line in logs if line["log_level"] == "warning"
            and str(line["event"]).startswith("RFC2136: record not written")}


def test_without_axfr_a_create_never_joins_a_hand_made_rrset(make_provider: Callable[..., RFC2136Provider],
                                                             clean_bind: BindServer) -> None:
    """Item 3: the zone reads as empty, so the plan creates; the create must not add our value into the
    hand-made record set and claim it (a later run with AXFR then deleted the whole set)."""
    hand_made(clean_bind, "www.example.org", "A", "198.51.100.1", "198.51.100.2")
    logs = sync(make_provider(axfr=False), [ep("www.example.org", "A", "192.0.2.1"),
                                            ep("mine.example.org", "A", "192.0.2.9")])
    assert clean_bind.rrset("www.example.org", "A") == (600, ["198.51.100.1", "198.51.100.2"])
    assert clean_bind.rrset("a-www.example.org", "TXT") is None  # no ownership claimed
    assert clean_bind.rrset("mine.example.org", "A") is not None  # the rest is written
    assert refusals(logs) == {"create www.example.org A"}
    assert any("--rfc2136-axfr is off" in str(line["event"]) for line in logs)  # the read-back warning, loud
    # A later run that reads the zone back and desires nothing: the hand-made set stays.
    sync(make_provider(axfr=True), [])
    assert clean_bind.rrset("www.example.org", "A") == (600, ["198.51.100.1", "198.51.100.2"])
    assert clean_bind.rrset("mine.example.org", "A") is None


def test_without_axfr_a_second_sync_finds_its_records_in_place(make_provider: Callable[..., RFC2136Provider],
                                                               clean_bind: BindServer) -> None:
    desired = [ep(f"r{i}.example.org", "A", f"192.0.2.{i}") for i in range(1, 8)]
    sync(make_provider(axfr=False, batch_change_size=4), desired)
    before, sent = serial(clean_bind), sent_messages()
    logs = sync(make_provider(axfr=False, batch_change_size=4), desired)
    assert serial(clean_bind) == before  # nothing written again
    assert not refusals(logs)
    # 7 records and their TXTs, 4 changes a message: 4 batches, each a refused create and the check that it
    # is in place
    assert sent_messages() - sent == 8
    # A changed target cannot be an update without the read-back: refused, the old value kept (not merged).
    logs = sync(make_provider(axfr=False), [ep("r1.example.org", "A", "192.0.2.100")])
    assert clean_bind.rrset("r1.example.org", "A") == (0, ["192.0.2.1"])
    assert refusals(logs) == {"create r1.example.org A"}


def test_a_cname_beside_a_hand_made_record_is_refused_with_its_txt(make_provider: Callable[..., RFC2136Provider],
                                                                   clean_bind: BindServer) -> None:
    """Item 12: BIND answers NOERROR to a CNAME added beside other data and ignores it; the ownership TXT in the
    same message was written, orphaned, and every run tried again in silence."""
    hand_made(clean_bind, "www.example.org", "MX", "10 mail.example.net.")  # a type this owner does not manage
    hand_made(clean_bind, "alias.example.org", "CNAME", "elsewhere.example.net.")
    logs = sync(make_provider(), [ep("www.example.org", "CNAME", "target.example.net"),
                                  ep("alias.example.org", "A", "192.0.2.7"),
                                  ep("ok.example.org", "CNAME", "target.example.net")], managed=("A", "CNAME"))
    assert refusals(logs) == {"create www.example.org CNAME"}
    assert clean_bind.rrset("www.example.org", "CNAME") is None
    assert clean_bind.rrset("cname-www.example.org", "TXT") is None  # no orphaned ownership record
    assert clean_bind.rrset("www.example.org", "MX") == (600, ["10 mail.example.net."])
    assert clean_bind.rrset("ok.example.org", "CNAME") == (0, ["target.example.net."])
    # the hand-made CNAME is a managed type: the plan itself leaves alias alone (another owner's name)
    assert clean_bind.rrset("alias.example.org", "CNAME") == (600, ["elsewhere.example.net."])
    assert clean_bind.rrset("alias.example.org", "A") is None
    # with CNAME unmanaged the plan cannot see it: the provider's prerequisite refuses the A beside it
    logs = sync(make_provider(), [ep("alias.example.org", "A", "192.0.2.7")], managed=("A",))
    assert refusals(logs) == {"create alias.example.org A"}
    assert clean_bind.rrset("alias.example.org", "A") is None
    assert clean_bind.rrset("a-alias.example.org", "TXT") is None


def test_a_type_change_removes_ours_then_refuses_the_cname(make_provider: Callable[..., RFC2136Provider],
                                                           clean_bind: BindServer) -> None:
    """A record of ours changing from A to CNAME where a hand-made MX sits: the A and its TXT go (the plan no
    longer wants them), the CNAME is refused, the MX stays; without the split the CNAME's prerequisite saw
    our own A and refused the whole change."""
    sync(make_provider(), [ep("www.example.org", "A", "192.0.2.1")])
    assert clean_bind.rrset("a-www.example.org", "TXT") is not None
    logs = sync(make_provider(), [ep("www.example.org", "CNAME", "target.example.net")])
    assert clean_bind.rrset("www.example.org", "CNAME") == (0, ["target.example.net."])
    assert clean_bind.rrset("www.example.org", "A") is None and clean_bind.rrset("a-www.example.org", "TXT") is None
    assert not refusals(logs)
    hand_made(clean_bind, "mx.example.org", "MX", "10 mail.example.net.")
    sync(make_provider(), [ep("mx.example.org", "A", "192.0.2.1")])
    logs = sync(make_provider(), [ep("mx.example.org", "CNAME", "target.example.net")])
    assert refusals(logs) == {"create mx.example.org CNAME"}
    assert clean_bind.rrset("mx.example.org", "A") is None
    assert clean_bind.rrset("a-mx.example.org", "TXT") is None
    assert clean_bind.rrset("cname-mx.example.org", "TXT") is None
    assert clean_bind.rrset("mx.example.org", "MX") == (600, ["10 mail.example.net."])


def test_a_clock_off_by_an_hour_is_named_as_the_clock(make_provider: Callable[..., RFC2136Provider],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """BIND answers BADTIME to an UPDATE signed an hour off: the error points at the clocks, not the key
    (issue 27, item 19)."""
    import time
    import types

    from external_dns.plan.changes import Changes
    from external_dns.providers.rfc2136 import wire
    from external_dns.providers.rfc2136.transport import TsigKeyRejected

    monkeypatch.setattr(wire, "time", types.SimpleNamespace(time=lambda: time.time() + 3600))
    with pytest.raises(TsigKeyRejected, match=r"clock.*differ by more than 300 seconds") as info:
        make_provider(axfr=False).apply_changes(Changes(create=[ep("late.example.org", "A", "192.0.2.1")]))
    assert "--rfc2136-tsig-secret" not in str(info.value)


def test_two_records_of_one_sync_that_clash_never_leave_an_orphan(make_provider: Callable[..., RFC2136Provider],
                                                                   clean_bind: BindServer) -> None:
    """`www` A owns its TXT at `a-www`, and a CNAME is desired at `a-www` too: in one message BIND kept one and
    dropped the other in silence (found by the hostile property suite), leaving `www` A without its ownership
    record, never deleted again. They go in separate messages: the second is refused by its prerequisites."""
    desired = [ep("www.example.org", "A", "192.0.2.7"), ep("a-www.example.org", "CNAME", "t.example.net")]
    sync(make_provider(), desired)
    owned = {(e.dns_name, e.record_type) for e in make_provider().records()}
    assert ("www.example.org", "A") not in owned or ("a-www.example.org", "TXT") in owned
    assert ("a-www.example.org", "CNAME") not in owned or ("cname-a-www.example.org", "TXT") in owned
    sync(make_provider(), [])
    left = {(n, t) for n, t, _ttl, _v in clean_bind.axfr("example.org")} - {("example.org", "SOA"),
                                                                           ("example.org", "NS"),
                                                                           ("ns1.example.org", "A")}
    assert not left
