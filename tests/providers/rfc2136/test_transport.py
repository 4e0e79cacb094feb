"""The RFC2136 provider driven through its transport seam (transport.DNSTransport / DNSConnection): a fake
server in memory, no socket and no private attribute touched."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

import dns.message
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.update
import pytest

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.provider import SoftError
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.rfc2136.transport import DNSConnection, DNSTransport, TsigRejected
from external_dns.providers.rfc2136.wire import AxfrRecord

ZONE = "example.org"


class FakeServer:
    def __init__(self) -> None:
        self.updates: list[dns.update.UpdateMessage] = []  # every UPDATE applied, parsed
        self.refuse: set[str] = set()  # an UPDATE touching one of these names is answered REFUSED
        self.serial = 5
        self.records = [AxfrRecord("www.example.org", "A", 300, ("192.0.2.1",)),
                        AxfrRecord("a-www.example.org", "TXT", 300, ("heritage=external-dns,external-dns/owner=x",))]
        self.transfers = 0
        self.soa_queries = 0
        self.down = False
        self.overlapped = 0  # exchanges during which the provider prepared its next message


class FakeConnection:
    def __init__(self, server: FakeServer, host: str) -> None:
        self.server = server
        self.host = host

    def exchange(self, msg: dns.message.Message, wire: bytes | None = None,
                 meanwhile: Callable[[], None] | None = None) -> dns.message.Message:
        if self.server.down:
            raise ConnectionRefusedError("down")
        if meanwhile is not None:  # the message is "on the wire": the provider makes its next one
            self.server.overlapped += 1
            meanwhile()
        if msg.opcode() == dns.opcode.UPDATE:
            parsed = dns.message.from_wire(wire if wire is not None else msg.to_wire())
            assert isinstance(parsed, dns.update.UpdateMessage)
            if any(r.name.to_text(omit_final_dot=True) in self.server.refuse for r in parsed.update):
                response = dns.message.make_response(msg)
                response.set_rcode(dns.rcode.REFUSED)
                return response
            self.server.updates.append(parsed)
            self.server.serial += 1  # as BIND's serial-update-method increment
            return dns.message.make_response(msg)
        assert msg.question[0].rdtype == dns.rdatatype.SOA
        self.server.soa_queries += 1
        response = dns.message.make_response(msg)
        response.answer.append(dns.rrset.from_text(f"{ZONE}.", 300, "IN", "SOA",
                                                   f"ns. host. {self.server.serial} 1 1 1 1"))
        return response

    def axfr_records(self, zone: str, read_types: frozenset[str]) -> Iterator[AxfrRecord]:
        if self.server.down:
            raise ConnectionRefusedError("down")
        self.server.transfers += 1
        yield AxfrRecord(zone, "SOA", 300, (), self.server.serial)
        yield from (r for r in self.server.records if r.rtype in read_types)

    def ixfr(self, zone: str, serial: int) -> Generator[dns.rrset.RRset, None, None]:
        yield from ()  # an empty answer: the provider falls back to a full transfer

    def close(self) -> None:
        pass


class FakeTransport:
    def __init__(self, config: RFC2136Config, server: FakeServer) -> None:
        self._config = config
        self.server = server

    @property
    def config(self) -> RFC2136Config:
        return self._config

    def host_order(self) -> list[str]:
        return list(self._config.active_hosts)

    def sign(self, msg: dns.message.Message) -> None:
        pass

    def connect(self, host: str) -> DNSConnection:
        return FakeConnection(self.server, host)

    def describe_tsig_failure(self, host: str, exc: BaseException, context: str) -> TsigRejected:
        return TsigRejected(f"{host}: {context}")


def provider(server: FakeServer, batch_change_size: int = 50, min_ttl: int = 0) -> RFC2136Provider:
    config = RFC2136Config(hosts=("192.0.2.53",), port=53, zones=(ZONE,), insecure=True, axfr=True,
                           batch_change_size=batch_change_size, min_ttl=min_ttl)
    transport: DNSTransport = FakeTransport(config, server)
    return RFC2136Provider(config, transport=transport)


def test_records_come_through_the_seam_and_an_unchanged_serial_transfers_nothing() -> None:
    server = FakeServer()
    p = provider(server)
    got = {(e.dns_name, e.record_type): list(e.targets) for e in p.records()}
    assert got == {("www.example.org", "A"): ["192.0.2.1"],
                   ("a-www.example.org", "TXT"): ["heritage=external-dns,external-dns/owner=x"]}
    assert server.transfers == 1
    p.records()
    assert server.transfers == 1 and server.soa_queries == 1, "same serial: the snapshot is served"
    server.serial = 6
    server.records.append(AxfrRecord("new.example.org", "A", 60, ("192.0.2.9",)))
    assert ("new.example.org", "A") in {(e.dns_name, e.record_type) for e in p.records()}
    assert server.transfers == 2


def test_an_unreachable_server_is_a_soft_error() -> None:
    server = FakeServer()
    server.down = True
    with pytest.raises(SoftError, match=r"could not read zone example\.org"):
        provider(server).records()


def sent(server: FakeServer) -> list[list[tuple[str, str, str, int, list[str]]]]:
    """Per UPDATE message: (name, class, type, ttl, rdata) of its update section."""
    out = []
    for m in server.updates:
        out.append([(r.name.to_text(omit_final_dot=True), dns.rdataclass.to_text(r.deleting or r.rdclass),
                     dns.rdatatype.to_text(r.rdtype), r.ttl, sorted(rd.to_text() for rd in r)) for r in m.update])
    return out


def test_a_record_and_its_ownership_txt_travel_in_one_message() -> None:
    creates: list[Endpoint] = []
    for i in range(4):
        creates.append(Endpoint(f"r{i}.example.org", "A", Targets(["10.0.0.1"])))
        creates.append(Endpoint(f"a-r{i}.example.org", "TXT", Targets(['"o"']),
                                labels={OWNED_RECORD_LABEL_KEY: f"r{i}.example.org"}))
    for batch, expected in ((3, [["r0"], ["r1"], ["r2"], ["r3"]]), (4, [["r0", "r1"], ["r2", "r3"]])):
        server = FakeServer()
        server.records = []
        p = provider(server, batch_change_size=batch)
        p.records()
        p.apply_changes(Changes(create=[e.copy() for e in creates]))
        messages = sent(server)
        owners = [sorted({n.split(".")[0].removeprefix("a-") for n, *_ in m}) for m in messages]
        assert owners == expected, batch
        for m in messages:
            names = {n for n, *_ in m}
            assert all(f"a-{n}" in names for n in names if not n.startswith("a-")), "record without its TXT"


def test_an_unchanged_update_pair_is_sent_only_when_the_zone_does_not_hold_it() -> None:
    old = Endpoint("a.example.org", "TXT", Targets(["v"]), 0)
    new = Endpoint("a.example.org", "TXT", Targets(['"v"']), 0, labels={"owner": "x"})
    server = FakeServer()
    server.records = []
    p = provider(server)
    p.records()
    # the zone does not hold it: the pair may stand for a record still to be written (ownership migration)
    p.apply_changes(Changes(update_old=[old.copy()], update_new=[new.copy()]))
    assert sent(server) == [[("a.example.org", "IN", "TXT", 0, ['"v"'])]]
    server.updates.clear()
    p.records()  # the snapshot now holds exactly that rrset: nothing to send
    p.apply_changes(Changes(update_old=[old.copy()], update_new=[new.copy()]))
    assert server.updates == []


def test_an_update_without_a_ttl_keeps_the_record_ttl() -> None:
    server = FakeServer()
    server.records = [AxfrRecord("a.example.org", "A", 300, ("10.0.0.1",))]
    p = provider(server, min_ttl=60)
    p.records()
    p.apply_changes(Changes(update_old=[Endpoint("a.example.org", "A", Targets(["10.0.0.1"]), 300)],
                            update_new=[Endpoint("a.example.org", "A", Targets(["10.0.0.2"]), 0)]))
    assert sent(server) == [[("a.example.org", "NONE", "A", 0, ["10.0.0.1"]),
                             ("a.example.org", "IN", "A", 300, ["10.0.0.2"])]]


def test_a_refused_record_fails_alone_and_the_rest_of_its_message_is_written() -> None:
    """As BIND refusing an MX whose in-zone target has no address: the message is retried record by record."""
    server = FakeServer()
    server.records = []
    server.refuse = {"bad.example.org"}
    p = provider(server)
    p.records()
    creates = [Endpoint(f"ok{i}.example.org", "A", Targets(["192.0.2.1"])) for i in range(5)]
    creates.insert(2, Endpoint("bad.example.org", "MX", Targets(["0 bad.example.org"])))
    with pytest.raises(SoftError, match=r"bad\.example\.org"):
        p.apply_changes(Changes(create=creates))
    written = {n for m in sent(server) for n, *_ in m}
    assert written == {f"ok{i}.example.org" for i in range(5)}


def test_creates_carry_prerequisites_and_a_type_change_removes_first() -> None:
    """A create must not join a record set or sit beside a CNAME (issue 27, items 3 and 12): 'RRset does not
    exist' for its type and for CNAME, 'name is not in use' for a CNAME. Changing a name's type, the removals
    go first in a message of their own, so the new record's prerequisites do not see our old record."""
    server = FakeServer()
    server.records = [AxfrRecord("t.example.org", "A", 300, ("192.0.2.1",))]
    p = provider(server)
    p.records()
    p.apply_changes(Changes(create=[Endpoint("www.example.org", "A", Targets(["192.0.2.1"])),
                                    Endpoint("c.example.org", "CNAME", Targets(["x.example.net"])),
                                    Endpoint("t.example.org", "CNAME", Targets(["x.example.net"]))],
                            delete=[Endpoint("t.example.org", "A", Targets(["192.0.2.1"]))]))

    def prereqs(m: dns.update.UpdateMessage) -> set[tuple[str, str, str]]:
        return {(r.name.to_text(omit_final_dot=True), dns.rdatatype.to_text(r.rdtype),
                 dns.rdataclass.to_text(r.deleting or r.rdclass)) for r in m.prerequisite}

    first, second = server.updates
    assert prereqs(first) == set()
    assert [(r.name.to_text(omit_final_dot=True), dns.rdatatype.to_text(r.rdtype)) for r in first.update] == [
        ("t.example.org", "A")]
    assert prereqs(second) == {("www.example.org", "A", "NONE"), ("www.example.org", "CNAME", "NONE"),
                               ("c.example.org", "ANY", "NONE"), ("t.example.org", "ANY", "NONE")}
    assert {(r.name.to_text(omit_final_dot=True), dns.rdatatype.to_text(r.rdtype)) for r in second.update} == {
        ("t.example.org", "CNAME"), ("www.example.org", "A"), ("c.example.org", "CNAME")}


def test_each_message_is_made_while_the_one_before_is_on_the_wire_and_a_refusal_still_goes_in_order() -> None:
    """The next batch is rendered and signed between writing a message and reading its answer; messages still
    go one at a time in the planned order, and a refused one is retried record by record before the next."""
    server = FakeServer()
    server.records = []
    server.refuse = {"r3.example.org"}
    p = provider(server, batch_change_size=2)
    p.records()
    with pytest.raises(SoftError, match=r"r3\.example\.org"):
        p.apply_changes(Changes(create=[Endpoint(f"r{i}.example.org", "A", Targets(["10.0.0.1"]))
                                        for i in range(8)]))
    assert [[n for n, *_ in m] for m in sent(server)] == [
        ["r0.example.org", "r1.example.org"], ["r2.example.org"], ["r4.example.org", "r5.example.org"],
        ["r6.example.org", "r7.example.org"]]
    assert server.overlapped == 4, "every batch's first message carried the making of the next"
