# mypy: disable-error-code="no-untyped-call"
"""DNS UPDATE messages rendered directly to wire format (RFC 2136 section 2), signed with dnspython's TSIG.

Rendering tens of thousands of RRs through dnspython's rrset objects costs more than BIND takes to apply
them, so the update section is built here from bytes: owner names compressed against the zone name in the
zone section (offset 12), A/AAAA/TXT rdata packed directly, any other type through dnspython's rdata
(`targets.to_rdata`). The header, zone section and TSIG record still come from dnspython's renderer, so the
signature and its verification are dnspython's.
"""

from __future__ import annotations

import re
import socket
import struct
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import dns.exception
import dns.message
import dns.name
import dns.query
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.renderer
import dns.tsig
import dns.update
from cachetools import LRUCache, cached

from external_dns.endpoint.names import IPV4
from external_dns.providers.rfc2136.targets import TXT_CHUNK, target_of, to_rdata, unquote_txt

CLASS_IN = int(dns.rdataclass.IN)
CLASS_NONE = int(dns.rdataclass.NONE)
CLASS_ANY = int(dns.rdataclass.ANY)
TYPE_ANY = int(dns.rdatatype.ANY)
TYPE_CNAME = int(dns.rdatatype.CNAME)
MAX_MESSAGE = 65535
TSIG_RESERVE = 512  # room kept for the TSIG record
_ZONE_POINTER = b"\xc0\x0c"  # the zone name sits right after the 12-byte header
_RDATA_CACHE: LRUCache[tuple[str, str], bytes] = LRUCache(maxsize=200_000)


_TYPE_CODES: dict[str, int] = {}


def type_code(rtype: str) -> int:
    code = _TYPE_CODES.get(rtype)
    if code is None:
        code = _TYPE_CODES[rtype] = int(dns.rdatatype.from_text(rtype))
    return code


def name_wire(name: str, zone: str) -> bytes:
    """An owner name inside `zone`, compressed against the zone name of the message."""
    n = name[:-1] if name.endswith(".") else name
    if zone == ".":
        rel = n
    elif n.lower() == zone:
        rel = ""
    else:
        rel = n[: -(len(zone) + 1)]
    if "\\" in rel or not rel.isascii():
        # Escapes or non-ASCII: let dnspython encode the full name (uncompressed).
        return bytes(dns.name.from_text(n + ".").to_wire() or b"")
    out = bytearray()
    if rel:
        for label in rel.split("."):
            raw = label.encode("ascii")
            if not 0 < len(raw) <= 63:
                raise ValueError(f"invalid DNS name {name!r}: empty label or label over 63 bytes")
            out.append(len(raw))
            out += raw
    out += _ZONE_POINTER
    return bytes(out)


def rdata_wire(rtype: str, target: str) -> bytes:
    """The rdata of one target; raises ValueError naming the problem."""
    if rtype == "A" and IPV4.fullmatch(target):
        return socket.inet_aton(target)
    if rtype == "TXT":
        data = unquote_txt(target).encode("utf-8", errors="surrogateescape")
        if len(data) <= TXT_CHUNK:
            return bytes((len(data),)) + data
        return b"".join(bytes((len(c),)) + c for c in (data[i:i + TXT_CHUNK]
                                                       for i in range(0, len(data), TXT_CHUNK)))
    return _rdata_wire_parsed(rtype, target)


@cached(_RDATA_CACHE, key=lambda rtype, target: (rtype, target))
def _rdata_wire_parsed(rtype: str, target: str) -> bytes:
    if rtype == "AAAA":
        try:
            return socket.inet_pton(socket.AF_INET6, target.strip())
        except OSError:
            raise ValueError(f"invalid AAAA target {target!r}") from None
    return bytes(to_rdata(rtype, target).to_wire() or b"")


def rr(owner: bytes, rtype: int, rclass: int, ttl: int, rdata: bytes) -> bytes:
    return owner + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def render_update(zone: dns.name.Name, update_section: bytes, count: int,
                  sign: Callable[[dns.message.Message], None], prerequisites: bytes = b"",
                  prerequisite_count: int = 0) -> tuple[dns.update.UpdateMessage, bytes]:
    """The signed UPDATE message (for answer verification) and its wire form, with `prerequisites` (RFC 2136
    section 2.4, the answer section) checked by the server before any update. `sign` is the transport's
    `sign(msg)`. Raises dns.exception.TooBig when the message would not fit."""
    msg = dns.update.UpdateMessage(zone)
    sign(msg)
    r = dns.renderer.Renderer(msg.id, msg.flags, MAX_MESSAGE)
    r.add_question(zone, dns.rdatatype.SOA, dns.rdataclass.IN)
    if r.output.tell() + len(prerequisites) + len(update_section) + TSIG_RESERVE > MAX_MESSAGE:
        raise dns.exception.TooBig
    r.output.write(prerequisites)
    r.output.write(update_section)
    r.counts[dns.renderer.ANSWER] = prerequisite_count
    r.counts[dns.renderer.AUTHORITY] = count
    r.write_header()
    if msg.tsig is not None:
        new_tsig, _ctx = dns.tsig.sign(r.get_wire(), msg.keyring, msg.tsig[0], int(time.time()),
                                       msg.request_mac, None, False)
        msg.tsig.clear()
        msg.tsig.add(new_tsig)
        r.add_rrset(dns.renderer.ADDITIONAL, msg.tsig)
        r.write_header()
    return msg, r.get_wire()



# -- zone transfers: answers read into compact records -------------------------------------------------------
# Escaping of name labels as dnspython's `Name.to_text()` does it: these bytes stand for themselves, the
# special characters get a backslash, anything else is `\DDD`.
_PLAIN_LABEL = re.compile(rb"[\x21\x23\x25-\x27\x2a-\x2d\x2f-\x3a\x3c-\x3f\x41-\x5b\x5d-\x7e]*")
_SPECIAL = frozenset(b'"().;\\@$')
TYPE_SOA, TYPE_TSIG, TYPE_AXFR = 6, 250, 252
MAX_UNSIGNED = 99  # RFC 8945 5.3.1: at most 99 unsigned messages between signed ones
_TYPE_NAMES: dict[int, str] = {}


class AxfrRecord(NamedTuple):
    """One RR of a zone transfer: owner as the server spells it (no final dot), type, TTL, targets in the
    provider's read-back form (targets.py), and the serial of an SOA (0 otherwise)."""

    name: str
    rtype: str
    ttl: int
    targets: tuple[str, ...]
    serial: int = 0


def _label_text(label: bytes) -> str:
    if _PLAIN_LABEL.fullmatch(label):
        return label.decode("ascii")
    out = []
    for c in label:
        if c in _SPECIAL:
            out.append("\\" + chr(c))
        elif 0x20 < c < 0x7F:
            out.append(chr(c))
        else:
            out.append(f"\\{c:03d}")
    return "".join(out)


def read_name(wire: bytes, offset: int) -> tuple[str, int]:
    """The name at `offset` (compression pointers followed, backwards only) as dnspython's absolute text
    without the final dot ("." for the root), and the offset after it. Raises FormError when malformed."""
    labels: list[str] = []
    end = -1
    total = 0
    pos = offset
    limit = len(wire)
    while True:
        if pos >= limit:
            raise dns.exception.FormError("name runs past the message")
        n = wire[pos]
        if n == 0:
            pos += 1
            break
        if n >= 0xC0:
            if pos + 1 >= limit:
                raise dns.exception.FormError("truncated compression pointer")
            target = ((n & 0x3F) << 8) | wire[pos + 1]
            if end < 0:
                end = pos + 2
            if target >= pos:  # only backwards: no loops
                raise dns.exception.FormError("bad compression pointer")
            pos = target
            continue
        if n > 63:
            raise dns.exception.FormError("bad label type")
        label = wire[pos + 1:pos + 1 + n]
        if len(label) != n:
            raise dns.exception.FormError("label runs past the message")
        total += n + 1
        if total > 254:
            raise dns.exception.FormError("name too long")
        labels.append(_label_text(label))
        pos += 1 + n
    return ".".join(labels) or ".", pos if end < 0 else end


def _host_text(wire: bytes, offset: int) -> str:
    return read_name(wire, offset)[0].lower()


def _type_name(code: int) -> str:
    name = _TYPE_NAMES.get(code)
    if name is None:
        name = _TYPE_NAMES[code] = dns.rdatatype.to_text(dns.rdatatype.RdataType.make(code))
    return name


def _txt_strings(rdata: bytes) -> tuple[str, ...]:
    strings: list[bytes] = []
    i = 0
    while i < len(rdata):
        n = rdata[i]
        if i + 1 + n > len(rdata):
            raise dns.exception.FormError("TXT string runs past its record")
        strings.append(rdata[i + 1:i + 1 + n])
        i += 1 + n
    if not strings:
        raise dns.exception.FormError("empty TXT record")
    if len(strings) > 1 and all(len(s) == TXT_CHUNK for s in strings[:-1]):
        return (b"".join(strings).decode("utf-8", errors="surrogateescape"),)
    return tuple(s.decode("utf-8", errors="surrogateescape") for s in strings)


def _targets(rtype: str, code: int, wire: bytes, start: int, rdlen: int) -> tuple[str, ...]:
    """The read-back targets of one RR (targets.target_of / txt_targets, without rdata objects)."""
    end = start + rdlen
    if rtype == "A":
        if rdlen != 4:
            raise dns.exception.FormError("A record of the wrong length")
        return (socket.inet_ntoa(wire[start:end]),)
    if rtype == "TXT":
        return _txt_strings(wire[start:end])
    if rtype in ("CNAME", "NS", "PTR", "DNAME"):
        name, after = read_name(wire, start)
        if after != end:
            raise dns.exception.FormError(f"{rtype} record of the wrong length")
        return (name.lower(),)
    if rtype == "MX" and rdlen >= 3:
        (pref,) = struct.unpack_from("!H", wire, start)
        name, after = read_name(wire, start + 2)
        if after != end:
            raise dns.exception.FormError("MX record of the wrong length")
        return (f"{pref} {name.lower()}",)
    if rtype == "SRV" and rdlen >= 7:
        prio, weight, port = struct.unpack_from("!HHH", wire, start)
        name, after = read_name(wire, start + 6)
        if after != end:
            raise dns.exception.FormError("SRV record of the wrong length")
        return (f"{prio} {weight} {port} {name.lower()}",)
    # AAAA, NAPTR and anything rarer: dnspython's rdata for this one record
    rd = dns.rdata.from_wire(dns.rdataclass.IN, dns.rdatatype.RdataType.make(code), wire, start, rdlen)
    return (target_of(rd),)


class AxfrReader:
    """Reads the messages of one zone transfer into `AxfrRecord`s without building dnspython objects per
    record. Checks what dnspython's reader checks: the answer matches the query (ID, QR, opcode, question
    of the first message), the answer code, well-formed records, and the TSIG chain (RFC 8945 5.3.1: the
    first message signed, at most 99 unsigned in a row, every signature verified by `dns.tsig.validate`
    over the running context). `done()` says whether the last message was signed (required at the end)."""

    def __init__(self, query: dns.message.Message, read_types: frozenset[str]) -> None:
        self.query = query
        self.read_types = read_types
        self.keyring: Any = query.keyring
        self.request_mac: bytes = query.mac or b""
        self.ctx: Any = None
        self.first = True
        self.unsigned = 0
        self.last_signed = False
        self.qname = query.question[0].name.to_text().lower() if query.question else ""
        self.total = 0  # records of the answer sections so far, of every type (what the caller caps)

    def feed(self, wire: bytes) -> tuple[int, list[AxfrRecord]]:
        """(rcode, records of the answer section) of one message; raises FormError / BadResponse / TSIG
        errors as dnspython does."""
        if len(wire) < 12:
            raise dns.message.ShortHeader
        msg_id, flags, qd, an, ns, ar = struct.unpack_from("!HHHHHH", wire)
        if msg_id != self.query.id or not flags & 0x8000 or (flags >> 11) & 0xF != 0:
            raise dns.query.BadResponse("zone transfer answer does not match the request")
        pos = 12
        for _ in range(qd):
            qname, pos = read_name(wire, pos)
            if pos + 4 > len(wire):
                raise dns.exception.FormError("truncated question")
            (qtype,) = struct.unpack_from("!H", wire, pos)
            pos += 4
            if (qname.lower() + "." if qname != "." else ".") != self.qname or qtype != TYPE_AXFR:
                raise dns.query.BadResponse("zone transfer answer does not match the request")
        if self.first and qd != 1:
            raise dns.query.BadResponse("zone transfer answer does not match the request")
        self.total += an
        records: list[AxfrRecord] = []
        tsig_at = -1
        for index in range(an + ns + ar):
            start = pos
            name, pos = read_name(wire, pos)
            if pos + 10 > len(wire):
                raise dns.exception.FormError("truncated record")
            code, rclass, ttl, rdlen = struct.unpack_from("!HHIH", wire, pos)
            pos += 10
            if pos + rdlen > len(wire):
                raise dns.exception.FormError("record runs past the message")
            if code == TYPE_TSIG:
                if index != an + ns + ar - 1:
                    raise dns.exception.FormError("TSIG is not the last record")
                tsig_at = start
            elif index < an and rclass == 1:
                rtype = _type_name(code)
                if rtype == "SOA":
                    _mname, after = read_name(wire, pos)
                    _rname, after = read_name(wire, after)
                    if after + 20 != pos + rdlen:
                        raise dns.exception.FormError("SOA record of the wrong length")
                    (serial,) = struct.unpack_from("!I", wire, after)
                    records.append(AxfrRecord(name, "SOA", ttl, (), serial))
                elif rtype in self.read_types:
                    records.append(AxfrRecord(name, rtype, 0 if ttl > 0x7FFFFFFF else ttl,
                                              _targets(rtype, code, wire, pos, rdlen)))
            pos += rdlen
        if pos != len(wire):
            raise dns.message.TrailingJunk
        self._check_tsig(wire, tsig_at)
        self.first = False
        return flags & 0xF, records

    def _check_tsig(self, wire: bytes, tsig_at: int) -> None:
        if tsig_at < 0:
            self.last_signed = False
            if self.keyring is None:
                return
            self.unsigned += 1
            if self.ctx is None or self.unsigned > MAX_UNSIGNED:
                raise dns.exception.FormError("zone transfer answer is not signed")
            self.ctx.update(wire)
            return
        if self.keyring is None:
            raise dns.message.UnknownTSIGKey("got signed message without keyring")
        owner, used = dns.name.from_wire(wire, tsig_at)
        after = tsig_at + used
        # a signed query holds its key; a keyring dict is looked up by the TSIG owner name
        key = self.keyring.get(owner) if isinstance(self.keyring, dict) else self.keyring
        if not isinstance(key, dns.tsig.Key):
            raise dns.message.UnknownTSIGKey(f"key '{owner}' unknown")
        _code, _rclass, _ttl, rdlen = struct.unpack_from("!HHIH", wire, after)
        rd = dns.rdata.from_wire(dns.rdataclass.ANY, dns.rdatatype.TSIG, wire, after + 10, rdlen)
        self.ctx = dns.tsig.validate(wire, key, owner, rd, int(time.time()), self.request_mac, tsig_at, self.ctx,
                                     True)
        self.unsigned = 0
        self.last_signed = True
