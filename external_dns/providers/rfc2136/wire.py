# mypy: disable-error-code="no-untyped-call"
"""DNS UPDATE messages rendered directly to wire format (RFC 2136 section 2), signed with dnspython's TSIG.

Rendering tens of thousands of RRs through dnspython's rrset objects costs more than BIND takes to apply
them, so the update section is built here from bytes: owner names compressed against the zone name in the
zone section (offset 12), A/AAAA/TXT rdata packed directly, any other type through dnspython's rdata
(`targets.to_rdata`). The header, zone section and TSIG record still come from dnspython's renderer, so the
signature and its verification are dnspython's.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable

import dns.exception
import dns.message
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.renderer
import dns.tsig
import dns.update
from cachetools import LRUCache, cached

from external_dns.providers.rfc2136.targets import _IPV4, TXT_CHUNK, to_rdata, unquote_txt

CLASS_IN = int(dns.rdataclass.IN)
CLASS_NONE = int(dns.rdataclass.NONE)
CLASS_ANY = int(dns.rdataclass.ANY)
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
    if rtype == "A" and _IPV4.fullmatch(target):
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
                  sign: Callable[[dns.message.Message], None]) -> tuple[dns.update.UpdateMessage, bytes]:
    """The signed UPDATE message (for answer verification) and its wire form. `sign` is the transport's
    `sign(msg)`. Raises dns.exception.TooBig when the message would not fit."""
    msg = dns.update.UpdateMessage(zone)
    sign(msg)
    r = dns.renderer.Renderer(msg.id, msg.flags, MAX_MESSAGE)
    r.add_question(zone, dns.rdatatype.SOA, dns.rdataclass.IN)
    if r.output.tell() + len(update_section) + TSIG_RESERVE > MAX_MESSAGE:
        raise dns.exception.TooBig
    r.output.write(update_section)
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

