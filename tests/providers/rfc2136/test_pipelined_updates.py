"""UPDATE messages pipelined on the sync's connection (provider._PIPELINE ahead once one was applied): every
batch still lands exactly as when sent one by one, a refused batch in flight is retried record by record, the
zone snapshot is kept (one serial step per message), and a connection lost with messages in flight resends
those one by one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import dns.message
import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.provider import SoftError
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.providers.rfc2136.provider import ZONE_READS
from external_dns.providers.rfc2136.transport import DNSConnection
from tests.providers.rfc2136.conftest import sent_messages
from tests.providers.rfc2136.test_transport_seam import FakeConnection, FakeServer, FakeTransport, provider
from tests.servers.bind import BindServer


def ep(name: str, rtype: str, *targets: str) -> Endpoint:
    return Endpoint(name, rtype, Targets(targets))


def axfr_reads() -> float:
    return sum(s.value for m in ZONE_READS.collect() for s in m.samples
               if s.name.endswith("_total") and s.labels["kind"] == "axfr")


@pytest.mark.integration
def test_pipelined_batches_all_land_once_and_the_snapshot_is_kept(make_provider: Callable[..., RFC2136Provider],
                                                                  clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=4)
    p.records()  # a snapshot to keep
    before, reads = sent_messages(), axfr_reads()
    p.apply_changes(Changes(create=[ep(f"p{i:03d}.example.org", "A", f"192.0.2.{i % 250}") for i in range(120)]))
    assert sent_messages() - before == 30  # 120 records, 4 per message, each sent once
    for i in (0, 57, 119):
        assert clean_bind.rrset(f"p{i:03d}.example.org", "A") is not None
    assert {e.dns_name for e in p.records() if e.dns_name.startswith("p")} == {
        f"p{i:03d}.example.org" for i in range(120)}
    assert axfr_reads() == reads, "the serial moved by one per message: the snapshot was kept"


@pytest.mark.integration
def test_a_refused_batch_in_flight_is_retried_and_the_rest_lands(make_provider: Callable[..., RFC2136Provider],
                                                                 clean_bind: BindServer) -> None:
    p = make_provider(batch_change_size=2)
    good = [ep(f"g{i:02d}.example.org", "A", f"192.0.2.{i}") for i in range(20)]
    bad = ep("bad.example.org", "MX", "10 nohost.example.org")  # named refuses it (no address in the zone)
    with pytest.raises(SoftError) as info:
        p.apply_changes(Changes(create=[*good[:9], bad, *good[9:]]))
    assert "bad.example.org MX" in str(info.value) and "REFUSED" in str(info.value)
    assert not any(g.dns_name in str(info.value) for g in good)
    for g in good:
        assert clean_bind.rrset(g.dns_name, "A") is not None
    assert clean_bind.rrset("bad.example.org", "MX") is None


class PipeliningConnection(FakeConnection):
    """The fake server's connection, sending ahead as transport.Connection does (send_only / next_answer).
    With `lose_at`, the connection fails when that many messages were sent ahead: the messages still unanswered
    then were applied (answer lost) when their position is below `applied_before_loss`."""

    def __init__(self, server: FakeServer, host: str, lose_at: int | None, applied_before_loss: int) -> None:
        super().__init__(server, host)
        self.lose_at = lose_at
        self.applied_before_loss = applied_before_loss
        self.ahead: list[tuple[dns.message.Message, bytes]] = []
        self.pushed = 0
        self.max_in_flight = 0

    def send_only(self, wire: bytes) -> None:
        msg = dns.message.from_wire(wire)
        self.ahead.append((msg, wire))
        self.pushed += 1
        self.max_in_flight = max(self.max_in_flight, len(self.ahead))

    def next_answer(self, pending: Sequence[dns.message.Message]) -> tuple[int, dns.message.Message | Exception]:
        if self.lose_at is not None and self.pushed >= self.lose_at:
            for k, (msg, wire) in enumerate(self.ahead):
                if k < self.applied_before_loss:
                    self.exchange(msg, wire)  # applied, the answer lost
            self.ahead.clear()
            self.lose_at = None
            raise EOFError("connection closed by the DNS server")
        msg, wire = self.ahead.pop(0)
        answer = self.exchange(msg, wire)
        index = next(i for i, m in enumerate(pending) if m.id == msg.id)
        return index, answer


def pipelining_provider(server: FakeServer, conn: list[PipeliningConnection], lose_at: int | None = None,
                        applied_before_loss: int = 0) -> RFC2136Provider:
    p = provider(server, batch_change_size=1)
    transport = p.transport
    assert isinstance(transport, FakeTransport)

    def connect(host: str) -> DNSConnection:
        c = PipeliningConnection(server, host, lose_at, applied_before_loss)
        conn.append(c)
        return c

    transport.connect = connect  # type: ignore[method-assign]
    return p


def test_messages_go_one_first_then_four_in_flight() -> None:
    server, conns = FakeServer(), list[PipeliningConnection]()
    p = pipelining_provider(server, conns)
    p.apply_changes(Changes(create=[ep(f"n{i}.example.org", "A", "192.0.2.1") for i in range(10)]))
    assert conns[0].pushed == 9 and conns[0].max_in_flight == 4  # the first one went alone
    assert [u.update[0].name.to_text(omit_final_dot=True) for u in server.updates] == [
        f"n{i}.example.org" for i in range(10)]


def test_a_connection_lost_with_messages_in_flight_resends_them_one_by_one() -> None:
    server, conns = FakeServer(), list[PipeliningConnection]()
    p = pipelining_provider(server, conns, lose_at=4, applied_before_loss=2)
    p.apply_changes(Changes(create=[ep(f"n{i}.example.org", "A", "192.0.2.1") for i in range(9)]))
    names = [u.update[0].name.to_text(omit_final_dot=True) for u in server.updates]
    # n1..n4 were in flight when the connection failed: n1 and n2 applied (answers lost), n3 and n4 not; all
    # four sent again one by one (an UPDATE without prerequisites applies the same again)
    assert [names.count(f"n{i}.example.org") for i in range(9)] == [1, 2, 2, 1, 1, 1, 1, 1, 1]


def test_a_refused_message_in_flight_is_retried_and_the_others_count() -> None:
    server, conns = FakeServer(), list[PipeliningConnection]()
    server.refuse = {"n3.example.org"}
    p = pipelining_provider(server, conns)
    with pytest.raises(SoftError, match=r"n3\.example\.org A.*REFUSED"):
        p.apply_changes(Changes(create=[ep(f"n{i}.example.org", "A", "192.0.2.1") for i in range(9)]))
    names = sorted(u.update[0].name.to_text(omit_final_dot=True) for u in server.updates)
    assert names == sorted(f"n{i}.example.org" for i in range(9) if i != 3)
