"""Zone transfers are bounded (issue 27, item 17): a server that keeps streaming an AXFR or IXFR answer (many
records fast, or a few slowly, each message inside its own timeout) fails the read with an error naming the
zone, the server and the flag (`--rfc2136-axfr-max-records`, `--rfc2136-axfr-timeout`) instead of growing the
process without bound. The server here is a small TCP DNS server on 127.0.0.1 that never ends its answer."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import dns.flags
import dns.message
import dns.rdatatype
import dns.rrset
import pytest

from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.rfc2136.transport import AxfrLimitExceeded

ZONE = "example.org."


def soa(serial: int) -> dns.rrset.RRset:
    return dns.rrset.from_text(ZONE, 3600, "IN", "SOA", f"ns1.{ZONE} hostmaster.{ZONE} {serial} 1 1 1 1")


@dataclass
class Streamer:
    """Answers SOA queries with `serial`; a zone transfer (AXFR, or IXFR once `ixfr_streams`) opens with the SOA
    and then sends `per_message` A records every `pause` seconds until `max_records`, never the closing SOA.
    Without a pause, the first `ready` records are built before any client connects and go out in one write (the
    client gives each message 1 s, which a loaded machine could take to build them one by one on this thread), and
    the stream then waits for the client to hang up before it goes on: streaming on regardless raced the client's
    reading and piled records up in the socket buffers (`sent` past 20 000 when this thread won the GIL)."""

    serial: int = 1
    per_message: int = 100
    pause: float = 0.0
    max_records: int = 200_000
    finite_axfr: bool = False  # AXFR answers a two-record zone properly (for the IXFR test)
    ready: int = 6_000  # records built up front (without a pause): more than the tests' cap of 5000
    sent: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    _ready_wires: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.pause:
            self._ready_wires = [_wire(0, self._rrsets(n)) for n in range(0, self.ready, self.per_message)]

    def _rrsets(self, first: int) -> list[dns.rrset.RRset]:
        return [dns.rrset.from_text(f"h{first + i}.{ZONE}", 60, "IN", "A", "192.0.2.1") for i in range(self.per_message)]

    def handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        with conn:
            while not self.stop.is_set():
                try:
                    (length,) = struct.unpack("!H", _read(conn, 2))
                    query = dns.message.from_wire(_read(conn, length))
                except (OSError, EOFError, struct.error):
                    return
                qtype = query.question[0].rdtype
                if qtype == dns.rdatatype.SOA:
                    _send(conn, query, [soa(self.serial)])
                    continue
                if qtype == dns.rdatatype.AXFR and self.finite_axfr:
                    _send(conn, query, [soa(self.serial), dns.rrset.from_text("a." + ZONE, 60, "IN", "A", "192.0.2.1"),
                                        soa(self.serial)])
                    continue
                self._stream(conn, query)
                return

    def _stream(self, conn: socket.socket, query: dns.message.Message) -> None:
        try:
            _send(conn, query, [soa(self.serial)])
            if self._ready_wires:
                conn.sendall(b"".join(struct.pack("!HH", len(w), query.id) + w[2:] for w in self._ready_wires))
                self.sent += self.per_message * len(self._ready_wires)
                if self._hung_up(conn, time.monotonic() + 10):
                    return
            while self.sent < self.max_records and not self.stop.is_set():
                _send(conn, query, self._rrsets(self.sent), first=False)
                self.sent += self.per_message
                if self.pause:
                    self.stop.wait(self.pause)
        except OSError:
            return  # the client hung up


    def _hung_up(self, conn: socket.socket, deadline: float) -> bool:
        """Whether the client closes the connection before `deadline` (or the server stops)."""
        conn.settimeout(0.2)
        while time.monotonic() < deadline and not self.stop.is_set():
            try:
                if not conn.recv(1):
                    return True
            except TimeoutError:
                continue
            except OSError:
                return True
        conn.settimeout(5)
        return self.stop.is_set()


def _read(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def _wire(query_id: int, rrsets: list[dns.rrset.RRset]) -> bytes:
    """A later message of a transfer (no question section) as sent in answer to query `query_id`."""
    r = dns.message.Message(query_id)
    r.flags = dns.flags.QR | dns.flags.AA
    r.answer = rrsets
    return r.to_wire()


def _send(conn: socket.socket, query: dns.message.Message, rrsets: list[dns.rrset.RRset], first: bool = True) -> None:
    r = dns.message.make_response(query)
    if not first:
        r.question = []
    r.answer = rrsets
    data = r.to_wire()
    conn.sendall(struct.pack("!H", len(data)) + data)


@pytest.fixture
def streamer() -> Generator[Callable[..., tuple[Streamer, int]], None, None]:
    servers: list[tuple[Streamer, socket.socket, threading.Thread]] = []

    def start(**kw: object) -> tuple[Streamer, int]:
        srv = Streamer(**kw)  # type: ignore[arg-type]
        sock = socket.create_server(("127.0.0.1", 0))
        sock.settimeout(0.2)

        def serve() -> None:
            workers = []
            while not srv.stop.is_set():
                try:
                    conn, _ = sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    break
                t = threading.Thread(target=srv.handle, args=(conn,))
                t.start()
                workers.append(t)
            for t in workers:
                t.join(10)

        thread = threading.Thread(target=serve)
        thread.start()
        servers.append((srv, sock, thread))
        return srv, sock.getsockname()[1]

    yield start
    for srv, sock, thread in servers:
        srv.stop.set()
        thread.join(10)
        sock.close()


def provider(port: int, **kw: object) -> RFC2136Provider:
    config: dict[str, object] = {"timeout": 1.0, **kw}
    return RFC2136Provider(RFC2136Config(hosts=("127.0.0.1",), port=port, zones=("example.org",), insecure=True,
                                         axfr=True, **config))  # type: ignore[arg-type]


def test_an_endless_axfr_stops_at_the_record_cap(streamer: Callable[..., tuple[Streamer, int]]) -> None:
    srv, port = streamer()
    with pytest.raises(AxfrLimitExceeded, match=r"zone example\.org .*--rfc2136-axfr-max-records \(5000\)"):
        provider(port, axfr_max_records=5000).records()
    assert srv.sent < 20_000, "the transfer went on past the cap"


def test_a_slow_endless_axfr_stops_at_the_deadline(streamer: Callable[..., tuple[Streamer, int]]) -> None:
    """A record every 0.2 s for 12 s, each well within its message's own timeout (10 s, so that a loaded machine
    cannot end the transfer through it instead): only the total deadline (1.5 s) ends it, before the stream."""
    srv, port = streamer(per_message=1, pause=0.2, max_records=60)
    with pytest.raises(AxfrLimitExceeded, match=r"--rfc2136-axfr-timeout \(1\.5s\)"):
        provider(port, axfr_timeout=1.5, timeout=10.0).records()
    assert srv.sent < srv.max_records  # the stream (12 s at the least) had not ended


def test_an_endless_ixfr_is_capped_too(streamer: Callable[..., tuple[Streamer, int]]) -> None:
    srv, port = streamer(finite_axfr=True)
    p = provider(port, axfr_max_records=5000)
    assert [e.dns_name for e in p.records()] == ["a.example.org"]
    srv.serial = 2  # the zone moved: the provider asks for the differences, which never end
    with pytest.raises(AxfrLimitExceeded, match=r"IXFR of zone example\.org"):
        p.records()
    assert srv.sent < 20_000


@pytest.mark.parametrize(("kw", "flag"), [({"axfr_timeout": 0}, "--rfc2136-axfr-timeout"),
                                          ({"axfr_max_records": 0}, "--rfc2136-axfr-max-records")])
def test_limits_are_checked_at_start_up(kw: dict[str, object], flag: str) -> None:
    from external_dns.providers.rfc2136 import RFC2136ConfigError

    with pytest.raises(RFC2136ConfigError, match=flag):
        provider(53, **kw)
