"""Endpoint targets and names in the form a zone file holds them.

`canonical_target(type, target)` is the exact text `records()` reads back for a target (so a plan never sees
a spurious update); the common forms (an IPv4 address, plain TXT, a plain host name) are recognised by pattern,
the rest goes through dnspython's rdata parser (memoised). `presentation_name` is an endpoint name as written
in the file.
"""

from __future__ import annotations

import contextlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from external_dns.endpoint.names import IPV4, UNESCAPED_NAME
from external_dns.endpoint.zones import normalize_zone
from external_dns.providers.errors import ProviderError
from external_dns.providers.zonetext import NAME_TERMINATED, PLAIN_STRING_TEXT, join_txt, split_txt

if TYPE_CHECKING:
    import dns.rdata

ZONEFILE_RECORD_TYPES = ("A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA", "NAPTR", "DNAME")
_HOST_TYPES = frozenset({"CNAME", "NS", "PTR", "DNAME"})
_PLAIN_TXT = re.compile(PLAIN_STRING_TEXT)
_PLAIN_QUOTED_TXT = re.compile(f'"{PLAIN_STRING_TEXT}"')
_LONG_PLAIN_TXT = re.compile(r'"[ !#-\[\]-~]*"|[ !#-\[\]-~]*')


def target_to_rdata(record_type: str, target: str) -> dns.rdata.Rdata:
    """Parse one endpoint target with dnspython; ValueError naming the problem when it is not valid."""
    import dns.exception
    import dns.name
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.rdtypes.ANY.TXT

    if record_type == "TXT":
        # Quoted text (one or more strings, a long one split as it is written) is parsed as such, anything
        # else is one raw string (split in 255-byte pieces).
        if target.startswith('"'):
            with contextlib.suppress(dns.exception.DNSException, ValueError):
                return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.TXT, split_txt(target))
        raw = target.encode("utf-8")
        chunks = [raw[i : i + 255] for i in range(0, len(raw), 255)] or [b""]
        return dns.rdtypes.ANY.TXT.TXT(dns.rdataclass.IN, dns.rdatatype.TXT, chunks)
    try:
        rdtype = dns.rdatatype.from_text(record_type)
        return dns.rdata.from_text(dns.rdataclass.IN, rdtype, target, origin=dns.name.root, relativize=False)
    except (dns.exception.DNSException, ValueError) as exc:
        raise ValueError(f"invalid {record_type} target {target!r}: {exc}") from None


def rdata_to_target(record_type: str, rdata: dns.rdata.Rdata) -> str:
    """The target string `records()` reports for one rdata."""
    text = str(rdata.to_text())
    if record_type in NAME_TERMINATED and text.endswith(".") and text != ".":
        text = text[:-1]
    return join_txt(text) if record_type == "TXT" else text


def canonical_target(record_type: str, target: str) -> str:
    """A target in the exact form `records()` would read it back; ValueError when it does not parse.
    The common forms are recognised directly, the rest goes through dnspython (memoised)."""
    if record_type == "A" and IPV4.fullmatch(target):
        return target
    if record_type == "TXT":
        if _PLAIN_QUOTED_TXT.fullmatch(target):
            return target
        if _PLAIN_TXT.fullmatch(target):
            return f'"{target}"'
        if _LONG_PLAIN_TXT.fullmatch(target):  # over one character-string: read back as one value
            return target if target.startswith('"') else f'"{target}"'
    elif record_type in _HOST_TYPES and UNESCAPED_NAME.fullmatch(target):
        bare = target[:-1] if target.endswith(".") else target
        if len(bare) <= 253:
            return bare
    return _canonical_parsed(record_type, target)


@lru_cache(maxsize=200_000)
def _canonical_parsed(record_type: str, target: str) -> str:
    return rdata_to_target(record_type, target_to_rdata(record_type, target))


def presentation_name(name: str) -> str:
    """An endpoint name as written in a zone file (lower case; escapes where dnspython needs them)."""
    bare = normalize_zone(name)
    if UNESCAPED_NAME.fullmatch(bare) and len(bare) <= 253:
        return bare
    import dns.exception
    import dns.name

    try:
        return str(dns.name.from_text(bare or ".", origin=dns.name.root).to_text(omit_final_dot=True))
    except dns.exception.DNSException as exc:
        raise ProviderError(f"invalid DNS name {name!r}: {exc}") from None

