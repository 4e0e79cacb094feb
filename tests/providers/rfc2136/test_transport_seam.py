"""The RFC2136 provider driven through its transport seam (transport.DNSTransport / DNSConnection): a fake
server in memory, no socket and no private attribute touched."""

from __future__ import annotations

from collections.abc import Generator, Iterator

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from external_dns.providers.provider import SoftError
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.rfc2136.transport import DNSConnection, DNSTransport, TsigRejected
from external_dns.providers.rfc2136.wire import AxfrRecord

ZONE = "example.org"


class FakeServer:
    def __init__(self) -> None:
        self.serial = 5
        self.records = [AxfrRecord("www.example.org", "A", 300, ("192.0.2.1",)),
                        AxfrRecord("a-www.example.org", "TXT", 300, ("heritage=external-dns,external-dns/owner=x",))]
        self.transfers = 0
        self.soa_queries = 0
        self.down = False


class FakeConnection:
    def __init__(self, server: FakeServer, host: str) -> None:
        self.server = server
        self.host = host

    def exchange(self, msg: dns.message.Message, wire: bytes | None = None) -> dns.message.Message:
        if self.server.down:
            raise ConnectionRefusedError("down")
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


def provider(server: FakeServer) -> RFC2136Provider:
    config = RFC2136Config(hosts=("192.0.2.53",), port=53, zones=(ZONE,), insecure=True, axfr=True)
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
