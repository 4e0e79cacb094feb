"""Conversions between endpoint targets and DNS rdata for the RFC2136 provider.

Owns the read-back form of every record type we write, so that desired endpoints (after
`canonical_target`) compare equal to what AXFR returns and a no-op re-sync sends nothing:
- A/AAAA: the canonical address text; hostnames (CNAME, DNAME, NS, PTR, the MX exchange, the SRV target):
  absolute names without the trailing dot, lower-cased (name compression makes BIND answer in another
  case); MX `"<preference> <exchange>"`; SRV
  `"<priority> <weight> <port> <target>"`; NAPTR its presentation form.
- TXT: each character-string is one target, compared unquoted. A target wrapped in double quotes (as the TXT
  registry writes) loses the outer quotes (`\\"` and `\\\\` inside are unescaped); anything else, spaces and
  quotes included, is written verbatim as one character-string. Values over 255 bytes are split into
  255-byte strings of one RR and joined again when read.
"""

from __future__ import annotations

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
from cachetools import LRUCache, cached
from dns.rdtypes.ANY.TXT import TXT
from dns.rdtypes.IN.A import A

from external_dns.endpoint.names import IPV4

# Types read back from AXFR (every type we write; MX and SRV included, unlike Go external-dns).
READ_TYPES = ("A", "AAAA", "CNAME", "DNAME", "TXT", "NS", "PTR", "SRV", "MX", "NAPTR")
_HOST_TYPES = ("CNAME", "DNAME", "NS", "PTR")
TXT_CHUNK = 255
# Conversions are pure and rdata objects immutable: memoised so that a steady-state sync re-parses nothing.
_RDATA_CACHE: LRUCache[tuple[str, str], dns.rdata.Rdata] = LRUCache(maxsize=200_000)
_CANONICAL_CACHE: LRUCache[tuple[str, str], str] = LRUCache(maxsize=200_000)


def _host(name: dns.name.Name) -> str:
    text: str = name.to_text().lower()  # DNS names are case-insensitive; BIND may return another case
    return text[:-1] if text.endswith(".") and text != "." else text


def target_of(rd: dns.rdata.Rdata) -> str:
    """The endpoint target for one rdata (not TXT: see `txt_targets`)."""
    rtype = dns.rdatatype.to_text(rd.rdtype)
    if rtype in _HOST_TYPES:
        return _host(rd.target)  # type: ignore[attr-defined]
    if rtype == "MX":
        return f"{rd.preference} {_host(rd.exchange)}"  # type: ignore[attr-defined]
    if rtype == "SRV":
        return f"{rd.priority} {rd.weight} {rd.port} {_host(rd.target)}"  # type: ignore[attr-defined]
    return str(rd.to_text())


def txt_targets(rd: dns.rdata.Rdata) -> list[str]:
    """The targets one TXT RR carries: one per character-string, except that strings split at 255 bytes
    (all but the last exactly 255 bytes long) are joined back into one value."""
    strings: tuple[bytes, ...] = rd.strings  # type: ignore[attr-defined]
    if len(strings) > 1 and all(len(s) == TXT_CHUNK for s in strings[:-1]):
        return [b"".join(strings).decode("utf-8", errors="surrogateescape")]
    return [s.decode("utf-8", errors="surrogateescape") for s in strings]


def unquote_txt(value: str) -> str:
    """A TXT target as stored: outer double quotes removed (with `\\"`/`\\\\` unescaped) when present."""
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        inner = value[1:-1]
        if "\\" not in inner:
            return inner
        out: list[str] = []
        i = 0
        while i < len(inner):
            ch = inner[i]
            if ch == "\\" and i + 1 < len(inner) and inner[i + 1] in '"\\':
                out.append(inner[i + 1])
                i += 2
                continue
            out.append(ch)
            i += 1
        return "".join(out)
    return value


def txt_rdata(value: str) -> dns.rdata.Rdata:
    data = unquote_txt(value).encode("utf-8", errors="surrogateescape")
    chunks = [data[i:i + TXT_CHUNK] for i in range(0, len(data), TXT_CHUNK)] or [b""]
    return TXT(dns.rdataclass.IN, dns.rdatatype.TXT, chunks)


@cached(_RDATA_CACHE, key=lambda rtype, target: (rtype, target))
def to_rdata(rtype: str, target: str) -> dns.rdata.Rdata:
    """Parse a target into rdata; raises ValueError with the reason on a malformed target."""
    if rtype == "TXT":
        return txt_rdata(target)
    if rtype == "A" and IPV4.fullmatch(target):
        return A(dns.rdataclass.IN, dns.rdatatype.A, target)  # type: ignore[no-untyped-call]
    try:
        rdtype = dns.rdatatype.from_text(rtype)
    except Exception as exc:
        raise ValueError(f"unsupported record type {rtype!r}") from exc
    if rtype not in READ_TYPES:
        raise ValueError(f"unsupported record type {rtype!r} (supported: {', '.join(READ_TYPES)})")
    try:
        return dns.rdata.from_text(dns.rdataclass.IN, rdtype, target.strip(), origin=dns.name.root,
                                    relativize=False)
    except Exception as exc:
        raise ValueError(f"invalid {rtype} target {target!r}: {exc}") from None


def canonical_target(rtype: str, target: str) -> str:
    """The form `records()` will return for this target (unchanged when it does not parse)."""
    if rtype == "TXT":
        return unquote_txt(target)
    if rtype == "A" and IPV4.fullmatch(target):
        return target
    return _canonical_parsed(rtype, target)


@cached(_CANONICAL_CACHE, key=lambda rtype, target: (rtype, target))
def _canonical_parsed(rtype: str, target: str) -> str:
    try:
        rd = to_rdata(rtype, target)
    except ValueError:
        return target
    return target_of(rd)
