"""Conversions between endpoints and PowerDNS RRsets.

PowerDNS wants canonical names (absolute, with the trailing dot, lower case, ASCII: Unicode labels go out as
IDNA punycode) for rrset names and for host names inside record contents, and TXT contents as quoted
character-strings. The read-back form (what `records()` gives)
follows external-dns's `NewEndpointWithTTL`: names without the trailing dot; one trailing dot trimmed from
targets except SRV, TXT and NAPTR, which keep it; TXT contents exactly as stored (quoted). `canonical_target`
turns a desired target into that form so that a re-sync compares equal and sends nothing.

Types: A, AAAA, CNAME, MX, SRV, TXT, NS, PTR, CAA (plus NAPTR, DNAME and anything else read back as stored).
A CNAME endpoint with the provider-specific `alias=true` is written as a PowerDNS ALIAS rrset, and an ALIAS
rrset reads back as such a CNAME. Disabled records are invisible (as external-dns); a rrset whose records
are all disabled is skipped.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from external_dns.endpoint.endpoint import PROVIDER_SPECIFIC_ALIAS, Endpoint, ProviderSpecificProperty
from external_dns.endpoint.names import IPV4, to_ascii_name
from external_dns.endpoint.targets import Targets

DEFAULT_TTL = 300  # external-dns writes this when an endpoint has no TTL
MAX_TTL = 2**31 - 1  # PowerDNS stores TTLs as signed 32-bit integers
WRITE_TYPES = ("A", "AAAA", "CNAME", "MX", "SRV", "TXT", "NS", "PTR", "CAA", "NAPTR", "DNAME")
_KEEP_DOT = frozenset(("SRV", "TXT", "NAPTR"))
_HOST_TYPES = frozenset(("CNAME", "NS", "PTR", "DNAME", "ALIAS"))
_SKIP_READ = frozenset(("SOA",))


class InvalidRecordError(ValueError):
    """A desired record PowerDNS would refuse; the message names the record and the field."""


def canonical_name(name: str) -> str:
    """`www.Example.org` -> `www.example.org.`, `bücher.example.org` -> `xn--bcher-kva.example.org.`
    (PowerDNS stores names lower-cased and in ASCII; it refuses other characters)."""
    name = to_ascii_name(name.strip())
    return name if name.endswith(".") else name + "."


def _dot(host: str) -> str:
    if not host.isascii():
        host = to_ascii_name(host)  # a host name in a target: ASCII (punycode) as well
    return host if host.endswith(".") else host + "."


def _undot(host: str) -> str:
    return host[:-1] if host.endswith(".") and host != "." else host


def quote_txt(value: str) -> str:
    """A TXT target as PowerDNS content: kept when it is already one or more quoted strings, else wrapped in
    double quotes with `"` and `\\` escaped."""
    inner = value[1:-1]
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"' and '"' not in inner and "\\" not in inner:
        return value  # one plain quoted string (what the TXT registry writes): the common case, checked fast
    if _is_quoted(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_quoted(value: str) -> bool:
    """True for `"..."` or `"..." "..."` with every inner quote escaped."""
    i, n, strings = 0, len(value), 0
    while i < n:
        if value[i] == " ":
            i += 1
            continue
        if value[i] != '"':
            return False
        i += 1
        while i < n and value[i] != '"':
            i += 2 if value[i] == "\\" else 1
        if i >= n:
            return False
        i += 1
        strings += 1
    return strings > 0


def content_for(rtype: str, target: str) -> str:
    """The PowerDNS record content for one endpoint target. Raises InvalidRecordError on a malformed target."""
    target = target.strip()
    if rtype == "TXT":
        return quote_txt(target)
    if rtype == "A" and IPV4.fullmatch(target):
        return target
    if rtype in ("A", "AAAA"):
        try:
            addr = ipaddress.ip_address(target)
        except ValueError:
            raise InvalidRecordError(f"{target!r} is not an IP address") from None
        if (addr.version == 4) != (rtype == "A"):
            raise InvalidRecordError(f"{target!r} is not an IPv{4 if rtype == 'A' else 6} address")
        return str(addr)
    if rtype in _HOST_TYPES:
        if not target or " " in target:
            raise InvalidRecordError(f"{target!r} is not a host name")
        return _dot(target)
    if rtype == "MX":
        parts = target.split()
        if len(parts) != 2 or not parts[0].isdigit():
            raise InvalidRecordError(f"{target!r} is not '<preference> <host>'")
        return f"{int(parts[0])} {_dot(parts[1])}"
    if rtype == "SRV":
        parts = target.split()
        if len(parts) != 4 or not all(p.isdigit() for p in parts[:3]):
            raise InvalidRecordError(f"{target!r} is not '<priority> <weight> <port> <host>'")
        return f"{int(parts[0])} {int(parts[1])} {int(parts[2])} {_dot(parts[3])}"
    return target


def read_target(rtype: str, content: str) -> str:
    """The endpoint target for stored content (external-dns trims one trailing dot except SRV/TXT/NAPTR)."""
    if rtype in _KEEP_DOT:
        return content
    return _undot(content)


def canonical_target(rtype: str, target: str) -> str:
    """The form `records()` returns for this desired target (unchanged when it does not parse)."""
    if rtype == "A" and IPV4.fullmatch(target):
        return target  # the common case first: a sync adjusts every desired target
    if rtype == "TXT":
        return quote_txt(target.strip())
    try:
        return read_target(rtype, content_for(rtype, target))
    except InvalidRecordError:
        return target


def rrset_type(ep: Endpoint) -> str:
    """The PowerDNS type of an endpoint: ALIAS for a CNAME marked `alias=true`."""
    if ep.record_type == "CNAME" and ep.get_provider_specific_property(PROVIDER_SPECIFIC_ALIAS) == "true":
        return "ALIAS"
    return ep.record_type


def endpoint_from_rrset(rrset: dict[str, Any]) -> Endpoint | None:
    """The endpoint for one rrset of a zone listing, None for SOA and fully disabled rrsets. (Runs once per
    rrset of every zone on every sync: written for speed.)"""
    rtype = rrset.get("type")
    if not isinstance(rtype, str) or not rtype or rtype in _SKIP_READ:
        return None
    keep_dot = rtype in _KEEP_DOT
    targets: list[str] = []
    for record in rrset.get("records") or ():
        if isinstance(record, dict) and not record.get("disabled"):
            content = str(record.get("content", ""))
            if not keep_dot and content.endswith(".") and content != ".":
                content = content[:-1]
            targets.append(content)
    if not targets:
        return None
    if len(targets) > 1:
        targets.sort()
    ep = Endpoint.record(_undot(str(rrset.get("name", "")).lower()), rtype, Targets(targets),
                         int(rrset.get("ttl") or 0))
    if rtype == "ALIAS":
        ep.record_type = "CNAME"
        ep.provider_specific.append(ProviderSpecificProperty(PROVIDER_SPECIFIC_ALIAS, "true"))
    return ep


def endpoints_from_export(data: bytes, zone: str) -> list[Endpoint] | None:
    """The endpoints of a zone export (`GET .../zones/<id>/export`: one `name TAB ttl TAB IN TAB type TAB
    content` line per enabled record, names and contents as the JSON zone gives them), read as
    `endpoint_from_rrset` reads the JSON rrsets: one endpoint per name and type, its TTL the lowest of its
    records, SOA left out, ALIAS as a CNAME with `alias=true`. None when `data` does not read as the whole
    export of `zone` (a line of another shape, a carriage return, a quoted string left open, no SOA at the
    apex, not UTF-8): the caller then reads the zone as JSON. An export wrapped in JSON (`{"zone": "..."}`, PowerDNS's answer to
    `Accept: application/json`) is taken too. (Runs once per record of every zone on every sync.)"""
    try:
        if data[:1] == b"{":
            wrapped = json.loads(data)
            text = wrapped.get("zone") if isinstance(wrapped, dict) else None
            if not isinstance(text, str):
                return None
        else:
            text = data.decode("utf-8")
        if "\r" in text:
            return None  # line ends rewritten on the way: contents could not be trusted to the last byte
        rrsets: dict[tuple[str, str], Targets] = {}  # (name with its dot, type) -> targets in read-back form
        ttls: dict[tuple[str, str], int] = {}
        for line in text.split("\n"):
            if not line:
                continue
            name, ttl_text, klass, rtype, content = line.split("\t", 4)  # ValueError: another shape
            if klass != "IN" or not rtype or not ttl_text.isdigit() or not ttl_text.isascii():
                return None
            if '"' in content and (_open_quote(content) if "\\" in content else content.count('"') % 2):
                # PowerDNS writes a line break inside a quoted string (a TXT value) as it is: this line is cut
                # short, and the lines after it could be anything the value holds (even a forged ownership
                # record). Only the JSON zone can be read safely then.
                return None
            if rtype not in _KEEP_DOT and content[-1:] == "." and content != ".":
                content = content[:-1]
            key = (name.lower(), rtype)
            targets = rrsets.get(key)
            if targets is None:
                rrsets[key] = Targets((content,))
                ttls[key] = int(ttl_text)
            else:
                targets.append(content)
                ttls[key] = min(ttls[key], int(ttl_text))
    except ValueError:  # UnicodeDecodeError and JSON errors included
        return None
    if (zone.lower().rstrip(".") + ".", "SOA") not in rrsets:
        return None  # not the whole zone (PowerDNS exports the SOA of every zone it serves)
    out: list[Endpoint] = []
    for key, targets in rrsets.items():
        name, rtype = key
        if rtype in _SKIP_READ:
            continue
        if len(targets) > 1:
            targets.sort()
        ep = Endpoint.record(name[:-1] if name[-1:] == "." and name != "." else name, rtype, targets, ttls[key])
        if rtype == "ALIAS":
            ep.record_type = "CNAME"
            ep.provider_specific.append(ProviderSpecificProperty(PROVIDER_SPECIFIC_ALIAS, "true"))
        out.append(ep)
    return out


def _open_quote(content: str) -> bool:
    """True when `content` ends inside a quoted string (backslash escapes honoured)."""
    inside = False
    i, n = 0, len(content)
    while i < n:
        c = content[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            inside = not inside
        i += 1
    return inside


def rrset_replace(ep: Endpoint) -> dict[str, Any]:
    """The REPLACE rrset writing `ep` (TTL 0 -> 300 as external-dns). Raises InvalidRecordError."""
    if ep.record_type not in WRITE_TYPES:
        raise InvalidRecordError(f"record type {ep.record_type} is not supported by the pdns provider "
                                 f"(supported: {', '.join(WRITE_TYPES)})")
    if not ep.targets:
        raise InvalidRecordError("no targets")
    if ep.record_ttl < 0 or ep.record_ttl > MAX_TTL:
        raise InvalidRecordError(f"TTL {ep.record_ttl} is out of range (0-{MAX_TTL})")
    rtype = rrset_type(ep)
    if rtype == "CNAME" and len(ep.targets) > 1:
        raise InvalidRecordError("a CNAME has exactly one target")
    targets = ep.targets
    if len(targets) == 1:  # nearly every record: nothing to de-duplicate or sort
        records = [{"content": content_for(rtype, targets[0]), "disabled": False}]
    else:
        contents = sorted(dict.fromkeys(content_for(rtype, t) for t in targets))
        records = [{"content": c, "disabled": False} for c in contents]
    return {"name": canonical_name(ep.dns_name), "type": rtype, "ttl": ep.record_ttl or DEFAULT_TTL,
            "changetype": "REPLACE", "records": records}


def rrset_delete(ep: Endpoint) -> dict[str, Any]:
    """The DELETE rrset removing `ep`'s name and type (PowerDNS deletes by name and type)."""
    return {"name": canonical_name(ep.dns_name), "type": rrset_type(ep), "changetype": "DELETE"}
