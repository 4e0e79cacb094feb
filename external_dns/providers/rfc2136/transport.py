"""DNS transport for the RFC2136 provider: TCP (or DNS over TLS) connections to one of several servers,
TSIG-signed UPDATE exchanges and AXFR reads.

Owns host selection (`--rfc2136-load-balancing-strategy`: disabled = configured order with failover,
round-robin, random), connection reuse (one connection carries every UPDATE of a sync), timeouts on every
socket operation, and turning transport/TSIG failures into provider errors that never contain the secret.
"""

from __future__ import annotations

import itertools
import random
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any, Protocol

import dns.exception
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.tsig
import dns.tsigkeyring
import structlog

from external_dns.errors import ConfigError
from external_dns.providers.provider import ProviderError, SoftError
from external_dns.providers.rfc2136 import wire
from external_dns.providers.rfc2136.config import TSIG_ALGORITHMS, RFC2136Config

log = structlog.get_logger(__name__)


class TsigRejected(ProviderError):
    """The server refused our TSIG key for a zone (NOTAUTH: not authoritative for it, or the key is not
    allowed to update it): that zone's sync fails and is retried, the other zones go on."""


class TsigKeyRejected(TsigRejected, ConfigError):
    """The server rejected the TSIG signature itself (BADKEY, BADSIG, BADTIME: wrong key name, secret,
    algorithm or clock), for every zone alike: a configuration error, never retried; the long-running
    process exits 1. Departure from Go, whose rfc2136 provider returns every failure as a SoftError."""


class Unreachable(SoftError):
    """No configured server could be reached."""


def _read_exact(sock: socket.socket, count: int, deadline: float) -> bytes:
    buf = bytearray()
    while len(buf) < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("DNS read timed out")
        sock.settimeout(remaining)
        chunk = sock.recv(count - len(buf))
        if not chunk:
            raise EOFError("connection closed by the DNS server")
        buf += chunk
    return bytes(buf)


def _read_message_wire(sock: socket.socket, deadline: float) -> bytes:
    (length,) = struct.unpack("!H", _read_exact(sock, 2, deadline))
    return _read_exact(sock, length, deadline)


def _write(sock: socket.socket, data: bytes, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("DNS write timed out")
    sock.settimeout(remaining)
    sock.sendall(data)


class _TransferLimits:
    """The caps on one zone transfer: a total deadline (`--rfc2136-axfr-timeout`) besides each message's own
    timeout, and a number of records (`--rfc2136-axfr-max-records`). A transfer past either fails clearly
    (`AxfrLimitExceeded`) instead of growing the process without bound."""

    def __init__(self, config: RFC2136Config, zone: str, host: str, kind: str) -> None:
        self.config, self.zone, self.host, self.kind = config, zone, host, kind
        self.deadline = time.monotonic() + config.axfr_timeout

    def read(self, sock: socket.socket) -> bytes:
        """The next message of the transfer, within its own timeout and the transfer's deadline."""
        now = time.monotonic()
        if now >= self.deadline:
            raise self._exceeded(f"it did not finish within --rfc2136-axfr-timeout ({self.config.axfr_timeout:g}s)")
        try:
            return _read_message_wire(sock, min(now + self.config.timeout, self.deadline))
        except TimeoutError:
            if time.monotonic() >= self.deadline:
                raise self._exceeded(f"it did not finish within --rfc2136-axfr-timeout "
                                     f"({self.config.axfr_timeout:g}s)") from None
            raise

    def count(self, total: int) -> None:
        if total > self.config.axfr_max_records:
            raise self._exceeded(f"it holds more than --rfc2136-axfr-max-records ({self.config.axfr_max_records}) "
                                 "records")

    def _exceeded(self, why: str) -> AxfrLimitExceeded:
        return AxfrLimitExceeded(f"{self.kind} of zone {self.zone} from {self.host} stopped: {why}; nothing of it is "
                                 "used (raise the flag if the zone really is that large)")


class Connection:
    """One TCP/TLS connection to one server, reused for consecutive exchanges."""

    def __init__(self, transport: Transport, host: str) -> None:
        self.transport = transport
        self.host = host
        self.sock: socket.socket | None = None

    def _open(self) -> socket.socket:
        t = self.transport
        raw = socket.create_connection((self.host, t.config.port), timeout=t.config.timeout)
        if not t.config.use_tls:
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return raw
        try:
            wrapped = t.ssl_context().wrap_socket(raw, server_hostname=None if t.config.skip_tls_verify
                                                  else self.host)
        except BaseException:
            raw.close()
            raise
        wrapped.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return wrapped

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def exchange(self, msg: dns.message.Message, wire: bytes | None = None,
                 meanwhile: Callable[[], None] | None = None) -> dns.message.Message:
        """Send one message (`wire`: its rendering, when already done) and return the verified answer;
        reconnects once if a reused connection died. `meanwhile` runs once, after the message is written and
        before its answer is read: the caller's work for its next message overlaps the server's work on this
        one (still one message outstanding at a time). It must not raise."""
        data = msg.to_wire(prepend_length=True) if wire is None else struct.pack("!H", len(wire)) + wire
        for attempt in (0, 1):
            fresh = self.sock is None
            if self.sock is None:
                self.sock = self._open()
            deadline = time.monotonic() + self.transport.config.timeout
            try:
                _write(self.sock, data, deadline)
                if meanwhile is not None:
                    work, meanwhile = meanwhile, None
                    work()
                    deadline = time.monotonic() + self.transport.config.timeout  # the wait for the answer
                answer = _read_message_wire(self.sock, deadline)
            except (EOFError, ConnectionError, ssl.SSLError):
                self.close()
                if fresh or attempt:
                    raise
                continue
            except BaseException:
                self.close()
                raise
            response = dns.message.from_wire(answer, keyring=msg.keyring, request_mac=msg.mac)
            if not msg.is_response(response):
                self.close()
                raise dns.query.BadResponse("answer does not match the request")  # type: ignore[no-untyped-call]
            return response
        raise AssertionError("unreachable")

    def axfr(self, zone: str) -> Iterator[dns.rrset.RRset]:
        """Every rrset of a zone by AXFR (names absolute); the closing SOA is not repeated."""
        query = dns.message.make_query(dns.name.from_text(zone), dns.rdatatype.AXFR, dns.rdataclass.IN)
        soa_count = 0
        for rrset in self._transfer(query, zone, one_rr_per_rrset=False):
            if rrset.rdtype == dns.rdatatype.SOA:
                soa_count += 1
                if soa_count == 2:
                    return
            yield rrset

    def axfr_records(self, zone: str, read_types: frozenset[str]) -> Iterator[wire.AxfrRecord]:
        """Every record of a zone by AXFR as compact records (wire.AxfrReader: no dnspython object per
        record): the opening SOA first, then the records of `read_types`; the closing SOA is not repeated."""
        t = self.transport
        query = dns.message.make_query(dns.name.from_text(zone), dns.rdatatype.AXFR, dns.rdataclass.IN)
        t.sign(query)
        if self.sock is None:
            self.sock = self._open()
        sock = self.sock
        try:
            _write(sock, query.to_wire(prepend_length=True), time.monotonic() + t.config.timeout)
            reader = wire.AxfrReader(query, read_types)
            limits = _TransferLimits(t.config, zone, self.host, "AXFR")
            soa_count = 0
            while True:
                # Each message of a long transfer gets its own timeout, the transfer a deadline and a size cap.
                rcode, records = reader.feed(limits.read(sock))
                limits.count(reader.total)
                if rcode != dns.rcode.NOERROR:
                    raise AxfrRefused(zone, self.host, dns.rcode.to_text(dns.rcode.Rcode.make(rcode)))
                if soa_count == 0 and (not records or records[0].rtype != "SOA"):
                    raise AxfrRefused(zone, self.host, "no SOA at the start of the transfer")
                for rec in records:
                    if rec.rtype == "SOA":
                        soa_count += 1
                        if soa_count == 2:
                            if reader.keyring is not None and not reader.last_signed:
                                raise dns.exception.FormError(  # type: ignore[no-untyped-call]
                                    "the last message of the transfer is not signed")
                            return
                    yield rec
        finally:
            # A transfer stream cannot be reused for anything else.
            self.close()

    def ixfr(self, zone: str, serial: int) -> Generator[dns.rrset.RRset, None, None]:
        """The raw IXFR answer since `serial`, one RR per rrset, in order. The caller reads until its end
        (RFC 1995: the closing SOA) and must not ask for more: the next message would be waited for."""
        origin = dns.name.from_text(zone)
        query = dns.message.make_query(origin, dns.rdatatype.IXFR, dns.rdataclass.IN)
        query.authority.append(dns.rrset.from_text(origin, 0, "IN", "SOA", f". . {serial} 0 0 0 0"))
        yield from self._transfer(query, zone, one_rr_per_rrset=True)

    def _transfer(self, query: dns.message.Message, zone: str,
                  one_rr_per_rrset: bool) -> Generator[dns.rrset.RRset, None, None]:
        """The answer records of a zone transfer, message by message, as far as the caller reads."""
        t = self.transport
        t.sign(query)
        if self.sock is None:
            self.sock = self._open()
        sock = self.sock
        try:
            _write(sock, query.to_wire(prepend_length=True), time.monotonic() + t.config.timeout)
            tsig_ctx: Any = None
            first = True
            limits = _TransferLimits(t.config, zone, self.host, dns.rdatatype.to_text(query.question[0].rdtype))
            total = 0
            while True:
                # Each message of a long transfer gets its own timeout, the transfer a deadline and a size cap.
                wire = limits.read(sock)
                response = dns.message.from_wire(wire, keyring=query.keyring, request_mac=query.mac,
                                                 xfr=True, tsig_ctx=tsig_ctx, multi=True,
                                                 one_rr_per_rrset=one_rr_per_rrset)
                if not query.is_response(response, xfr_continuation=not first):
                    raise dns.query.BadResponse(  # type: ignore[no-untyped-call]
                        "zone transfer answer does not match the request")
                rcode = response.rcode()
                if rcode != dns.rcode.NOERROR:
                    raise AxfrRefused(zone, self.host, dns.rcode.to_text(rcode))
                if first and (not response.answer or response.answer[0].rdtype != dns.rdatatype.SOA):
                    raise AxfrRefused(zone, self.host, "no SOA at the start of the transfer")
                first = False
                tsig_ctx = response.tsig_ctx
                total += sum(len(rrset) for rrset in response.answer)
                limits.count(total)
                yield from response.answer
        finally:
            # A transfer stream cannot be reused for anything else.
            self.close()


class AxfrRefused(ProviderError):
    def __init__(self, zone: str, host: str, reason: str) -> None:
        super().__init__(f"AXFR of zone {zone} from {host} failed: {reason} "
                         "(is --rfc2136-tsig-keyname allowed to transfer the zone?)")
        self.zone = zone
        self.reason = reason


class AxfrLimitExceeded(ProviderError):
    """A zone transfer went past `--rfc2136-axfr-timeout` or `--rfc2136-axfr-max-records`: the read fails (the
    sync with it, deleting nothing); the message names the zone, the server and the flag."""


class DNSConnection(Protocol):
    """What the provider needs of a connection to one server (`Connection`; tests inject their own)."""

    host: str

    def exchange(self, msg: dns.message.Message, wire: bytes | None = None,
                 meanwhile: Callable[[], None] | None = None) -> dns.message.Message: ...

    def axfr_records(self, zone: str, read_types: frozenset[str]) -> Iterator[wire.AxfrRecord]: ...

    def ixfr(self, zone: str, serial: int) -> Generator[dns.rrset.RRset, None, None]: ...

    def close(self) -> None: ...


class DNSTransport(Protocol):
    """What the provider needs of its transport (`Transport`): the server order, signing, connections and
    the wording of a TSIG refusal. `RFC2136Provider(config, transport=...)` takes any implementation, so unit
    tests drive the provider through this seam instead of patching its internals."""

    @property
    def config(self) -> RFC2136Config: ...

    def host_order(self) -> list[str]: ...

    def sign(self, msg: dns.message.Message) -> None: ...

    def connect(self, host: str) -> DNSConnection: ...

    def describe_tsig_failure(self, host: str, exc: BaseException, context: str) -> TsigRejected: ...


class Transport:
    """Picks servers per the load-balancing strategy and signs messages with the TSIG key."""

    def __init__(self, config: RFC2136Config) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._rr = itertools.count()
        self._ssl: ssl.SSLContext | None = None
        self.keyring: dict[dns.name.Name, dns.tsig.Key] | None = None
        self.keyname: dns.name.Name | None = None
        self.algorithm: dns.name.Name | None = None
        if not config.insecure:
            self.keyname = dns.name.from_text(config.tsig_keyname)  # made a FQDN
            self.algorithm = TSIG_ALGORITHMS[config.tsig_secret_alg]
            self.keyring = {self.keyname: dns.tsig.Key(self.keyname, config.tsig_secret, self.algorithm)}

    def connect(self, host: str) -> Connection:
        """A connection to `host` (opened on first use)."""
        return Connection(self, host)

    def sign(self, msg: dns.message.Message) -> None:
        if self.keyring is not None and self.algorithm is not None:
            msg.use_tsig(self.keyring, keyname=self.keyname, fudge=300, algorithm=self.algorithm)

    def ssl_context(self) -> ssl.SSLContext:
        with self._lock:
            if self._ssl is None:
                verify = not self.config.skip_tls_verify
                ctx = dns.query.make_ssl_context(verify=verify, check_hostname=verify, alpns=["dot"])
                ctx.minimum_version = ssl.TLSVersion.TLSv1_3
                if verify and self.config.tls_ca:
                    ctx.load_verify_locations(cafile=self.config.tls_ca)  # --tls-ca, besides the system CAs
                if self.config.tls_client_cert:  # mutual TLS
                    ctx.load_cert_chain(self.config.tls_client_cert, self.config.tls_client_cert_key or None)
                self._ssl = ctx
            return self._ssl

    def host_order(self) -> list[str]:
        """The servers to try, in order, for the next operation."""
        hosts = list(self.config.active_hosts)
        strategy = self.config.load_balancing_strategy
        if strategy == "round-robin" and len(hosts) > 1:
            start = next(self._rr) % len(hosts)
            hosts = hosts[start:] + hosts[:start]
        elif strategy == "random":
            random.shuffle(hosts)
        return hosts

    def describe_tsig_failure(self, host: str, exc: BaseException, context: str) -> TsigRejected:
        if isinstance(exc, (dns.tsig.PeerBadTime, dns.tsig.BadTime)):
            # the key is right: the two clocks differ by more than the signature's fudge (300 s)
            return TsigKeyRejected(
                f"RFC2136 server {host}:{self.config.port} refused the time of the TSIG signature for {context} "
                f"({type(exc).__name__}): this machine's clock and the server's differ by more than 300 seconds; "
                "nothing was written; set both clocks right (NTP), the key is not at fault")
        return TsigKeyRejected(
            f"RFC2136 server {host}:{self.config.port} rejected TSIG key {self.config.tsig_keyname!r} "
            f"for {context} ({type(exc).__name__}): nothing was written; check --rfc2136-tsig-keyname, --rfc2136-tsig-secret and "
            f"--rfc2136-tsig-secret-alg ({self.config.tsig_secret_alg})")


TRANSPORT_ERRORS = (OSError, EOFError, TimeoutError, dns.exception.Timeout, dns.query.BadResponse,
                    dns.exception.FormError, ssl.SSLError)
TSIG_ERRORS = (dns.tsig.PeerError, dns.tsig.BadSignature, dns.message.UnknownTSIGKey, dns.tsig.BadTime)
