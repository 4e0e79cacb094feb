"""RFC 1035 zone-file text <-> compact record sets, without a dnspython object per record.

The zonefile provider reads and writes whole zone files; dnspython's zone parser builds a name, an rdataset
and an rdata object per record (about 1.3 s per 10,000 records), so the text is read here into plain tuples
and strings instead, and written back from them:
- `read_zone_text(text, origin)` reads the forms people and tools write: one record per line, owner
  omitted (leading blank = the previous owner), `@`, relative and absolute names, optional TTL and class
  in either order, `$ORIGIN` and `$TTL <seconds>`, comments, parentheses over several lines. A, TXT
  (printable ASCII strings), CNAME, NS, PTR, DNAME, MX, SRV and the SOA are converted directly; every
  other type (AAAA, CAA, NAPTR, anything else) goes through dnspython's parser for its rdata only.
  Anything unusual (`$INCLUDE`, `$GENERATE`, TTL units, a class other than IN, escapes or non-ASCII in
  owner names, a CNAME beside other data, a record that does not parse, an owner outside the zone)
  raises `Unusual`: the caller then parses the whole file with dnspython, which stays the reference (and
  reports errors with their line).
- The result is the exact data dnspython's parser gives: targets are the text `rdata.to_text()` gives
  (names absolute, without their final dot for name-valued types), the TTL of a set is the smallest of its
  records, a node keeps the spelling of its first owner, duplicates are dropped.
- `render_zone_text(zone)` writes one record per line, names relative to the origin, SOA first, then the
  record sets in DNSSEC canonical name order (the order `dns.zone.Zone.to_text(sorted=True)` uses).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from external_dns.endpoint.names import IPV4, IPV4_TEXT, UNESCAPED_NAME_TEXT

if TYPE_CHECKING:
    import dns.rdtypes.txtbase

# Types whose text form ends with a domain name: its trailing dot is dropped on read, as external-dns does.
NAME_TERMINATED = frozenset({"CNAME", "NS", "PTR", "DNAME", "MX", "SRV"})
_HOST_TYPES = frozenset({"CNAME", "NS", "PTR", "DNAME"})
_SINGLETONS = frozenset({"CNAME", "DNAME"})  # dnspython keeps only the last record of these
_CLASSES = frozenset({"IN", "CH", "CHAOS", "HS", "HESIOD", "NONE", "ANY"})
# A name in presentation form needing no escapes (letters, digits, '-', '_', '*'; labels of 1..63), `@`, `.`.
_NAME = re.compile(rf"{UNESCAPED_NAME_TEXT}\.?|@|\.")
# One token of a logical line: a quoted string (escapes inside), a parenthesis, a comment, a word.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[()]|;[^\n]*|[^\s"();]+|"')
# A TXT character-string that reads back unchanged: printable ASCII without quote or backslash, at most 255
# bytes; a run of them, quoted and separated by single blanks, is already in dnspython's text form.
PLAIN_STRING_TEXT = r"[ !#-\[\]-~]{0,255}"
_PLAIN_QUOTED_RUN_TEXT = rf'"{PLAIN_STRING_TEXT}"(?: "{PLAIN_STRING_TEXT}")*'
_PLAIN_QUOTED_RUN = re.compile(_PLAIN_QUOTED_RUN_TEXT)
# A line exactly as `render_zone_text` writes A and TXT records: read with one match.
_FAST_LINE = re.compile(
    rf"({UNESCAPED_NAME_TEXT}|@) ([0-9]{{1,10}}) IN (A|TXT) ({IPV4_TEXT}|{_PLAIN_QUOTED_RUN_TEXT})")
# A TXT value longer than one character-string is written as 255-octet strings and a shorter last one; read
# back, such a run is one value again (as the RFC2136 and PowerDNS providers read it), so an ownership record
# over 255 octets round-trips. A plain one of any length, quoted:
_LONG_PLAIN_QUOTED = re.compile(r'"[ !#-\[\]-~]*"')
TXT_CHUNK = 255
_TYPE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
MAX_NAME = 255


class Unusual(Exception):
    """The text uses something the compact reader leaves to dnspython; the message says what."""


Rrset = tuple[str, int, tuple[str, ...]]  # (name as spelled, without the final dot; TTL; targets)
Key = tuple[str, str]  # (lower-case name without the final dot, record type)


@dataclass
class Soa:
    ttl: int
    mname: str  # absolute, with its final dot
    rname: str
    serial: int
    refresh: int
    retry: int
    expire: int
    minimum: int

    def text(self) -> str:
        return f"{self.mname} {self.rname} {self.serial} {self.refresh} {self.retry} {self.expire} {self.minimum}"


@dataclass
class ZoneData:
    """One zone's records: the SOA apart, every other record set by (lower-case name, type). Change record
    sets through `put`/`delete`: once written, the canonical order and each set's rendered lines are kept
    up to date, so writing the zone again after a few changes costs a join, not a sort and a render."""

    origin: str  # lower-case, without the final dot
    soa: Soa | None = None
    rrsets: dict[Key, Rrset] = field(default_factory=dict)
    # the keys in canonical order, searched with `_canonical_key` computed per probe (keeping the sort keys
    # cost ~280 bytes a record set: 56 MiB at 200k), and each one's rendered lines in the same order (a write
    # joins them: no lookup per record set)
    _order: list[Key] | None = field(default=None, repr=False)
    _texts: list[str] = field(default_factory=list, repr=False)
    _types: set[str] | None = field(default=None, repr=False)  # every type held (see `types`)

    def names(self) -> dict[str, list[str]]:
        """lower-case name -> record types held there."""
        out: dict[str, list[str]] = {}
        for name, rtype in self.rrsets:
            out.setdefault(name, []).append(rtype)
        return out

    def types(self) -> set[str]:
        """Every record type held, kept by `put` (a type whose last record set went stays: callers look a
        name's record sets up by these types)."""
        if self._types is None:
            self._types = {key[1] for key in self.rrsets}
        return self._types

    def sorted_keys(self) -> list[Key]:
        if self._order is not None:
            return list(self._order)
        return sorted(self.rrsets, key=_canonical_key)

    def put(self, key: Key, rrset: Rrset) -> None:
        if self._order is not None:
            i = bisect.bisect_left(self._order, _canonical_key(key), key=_canonical_key)
            text = _render_rrset(key[1], rrset, self.origin)
            if key in self.rrsets:
                self._texts[i] = text
            else:
                self._order.insert(i, key)
                self._texts.insert(i, text)
        if self._types is not None:
            self._types.add(key[1])
        self.rrsets[key] = rrset

    def delete(self, key: Key) -> None:
        del self.rrsets[key]
        if self._order is not None:
            i = bisect.bisect_left(self._order, _canonical_key(key), key=_canonical_key)
            del self._order[i]
            del self._texts[i]

    def copy(self) -> ZoneData:
        soa = None if self.soa is None else Soa(**vars(self.soa))
        return ZoneData(self.origin, soa, dict(self.rrsets), None if self._order is None else list(self._order),
                        list(self._texts), None if self._types is None else set(self._types))

    def rendered(self) -> list[str]:
        """Each record set's lines, in canonical order (built on first use, then kept)."""
        if self._order is None:
            self._order = sorted(self.rrsets, key=_canonical_key)
            self._texts = [_render_rrset(k[1], self.rrsets[k], self.origin) for k in self._order]
        return self._texts


def _canonical_key(key: Key) -> tuple[tuple[str, ...], int, str]:
    labels = key[0].split(".")
    labels.reverse()
    return tuple(labels), 0 if key[1] == "NS" else 1, key[1]


def bare(name: str) -> str:
    name = name.strip()
    return name[:-1] if name.endswith(".") and name != "." else name


# -- TXT values over one character-string -------------------------------------------------------------------
def join_txt(text: str) -> str:
    """A TXT rdata's text as read back: strings of exactly 255 octets followed by a last one of 1 to 255 are one
    value (one quoted string, longer than a character-string may be); anything else is left as it is."""
    if '" "' not in text:
        return text
    if _PLAIN_QUOTED_RUN.fullmatch(text):
        strings = [part.encode() for part in text[1:-1].split('" "')]
    else:
        strings = list(_txt_rdata(text).strings)
    if len(strings) < 2 or any(len(b) != TXT_CHUNK for b in strings[:-1]) or not strings[-1]:
        return text
    return _quoted(b"".join(strings))


def split_txt(text: str) -> str:
    """A read-back TXT value as zone-file text: one quoted string over 255 octets is written as 255-octet
    strings and the rest (`join_txt` reads it back as it was); anything else as it is."""
    if len(text) <= TXT_CHUNK + 2 or not text.startswith('"'):
        return text
    if _LONG_PLAIN_QUOTED.fullmatch(text):
        body = text[1:-1]
        return " ".join(f'"{body[i:i + TXT_CHUNK]}"' for i in range(0, len(body), TXT_CHUNK))
    raw = _unquote(text)
    if raw is None or len(raw) <= TXT_CHUNK:
        return text
    return " ".join(_quoted(raw[i:i + TXT_CHUNK]) for i in range(0, len(raw), TXT_CHUNK))


_ESCAPE = re.compile(rb"\\([0-9]{3}|.)", re.DOTALL)


def _unquote(text: str) -> bytes | None:
    """The octets of one quoted string in presentation form (escapes resolved); None when it is not one."""
    body = text[1:-1]
    if len(text) < 2 or not text.endswith('"') or re.search(r'(?<!\\)(?:\\\\)*"', body):
        return None
    return _ESCAPE.sub(lambda m: bytes((int(m[1]),)) if m[1].isdigit() else m[1], body.encode("utf-8"))


def _quoted(raw: bytes) -> str:
    import dns.rdata

    return '"' + str(dns.rdata._escapify(raw)) + '"'  # type: ignore[no-untyped-call]


def _txt_rdata(text: str) -> dns.rdtypes.txtbase.TXTBase:
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.rdtypes.txtbase

    rd = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.TXT, text)
    assert isinstance(rd, dns.rdtypes.txtbase.TXTBase)
    return rd


# -- reading ----------------------------------------------------------------------------------------------------
def _logical_lines(text: str) -> Iterator[tuple[bool, list[str], bool]]:
    """(starts with blank, tokens, in our own simple A/TXT form) per logical line: comments dropped,
    parenthesised groups joined."""
    lines = iter(text.split("\n"))
    fast = _FAST_LINE.fullmatch
    for line in lines:
        if not line or line[0] == ";":
            continue
        m = fast(line)
        if m is not None and (m[3] == "A") == (m[4][0] != '"'):
            yield False, [m[1], m[2], "IN", m[3], m[4]], True
            continue
        blank, tokens = _tokens(line, lines)
        if tokens:
            yield blank, tokens, False


def _tokens(line: str, lines: Iterator[str]) -> tuple[bool, list[str]]:
    """(starts with blank, tokens) of the logical line starting with `line` (not empty, not a comment, not
    in our simple form): comments dropped, a parenthesised group joined with the lines it takes from
    `lines`."""
    if ";" not in line and "(" not in line and ")" not in line and "\\" not in line:
        quote = line.find('"')
        if quote < 0:
            return line[0] in " \t", line.split()
        run = line[quote:].rstrip()
        if _PLAIN_QUOTED_RUN.fullmatch(run):  # TXT strings as we write them: one token
            tokens = line[:quote].split()
            tokens.append(run)
            return line[0] in " \t", tokens
    blank = line[0] in " \t"
    tokens = []
    depth = 0
    while True:
        for tok in _TOKEN.findall(line):
            if tok == '"':
                raise Unusual("unbalanced quote")
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth < 0:
                    raise Unusual("unbalanced ')'")
            elif tok[0] != ";":
                tokens.append(tok)
        if depth == 0:
            break
        following = next(lines, None)
        if following is None:
            raise Unusual("unbalanced '('")
        line = following
    return blank, tokens


def _absolute(name: str, origin: str) -> str:
    """A name of the file as an absolute name with its final dot (origin: absolute, with its dot)."""
    if not _NAME.fullmatch(name):
        raise Unusual(f"name needs escapes: {name!r}")
    if name == "@":
        return origin
    out = name if name.endswith(".") else name + "." + origin if origin != "." else name + "."
    if len(out) > MAX_NAME - 1:
        raise Unusual("name too long")
    return out


def _host_target(token: str, origin: str) -> str:
    name = _absolute(token, origin)
    return name[:-1] if name != "." else name


def _digits(token: str) -> bool:
    """A decimal number in ASCII digits: `str.isdigit` (and `int`) also take other scripts' digits, which
    dnspython refuses."""
    return token.isascii() and token.isdigit()


def _u16(token: str) -> int:
    if not _digits(token) or int(token) > 65535:
        raise Unusual(f"not a 16-bit number: {token!r}")
    return int(token)


def _targets(rtype: str, tokens: list[str], origin: str) -> list[str]:
    """Targets of one record, in dnspython's text form."""
    n = len(tokens)
    if rtype == "A" and n == 1 and IPV4.fullmatch(tokens[0]):
        return [tokens[0]]
    if rtype == "TXT" and all(_PLAIN_QUOTED_RUN.fullmatch(t) for t in tokens):
        return [join_txt(" ".join(tokens))]
    if rtype in _HOST_TYPES and n == 1:
        return [_host_target(tokens[0], origin)]
    if rtype == "MX" and n == 2:
        return [f"{_u16(tokens[0])} {_host_target(tokens[1], origin)}"]
    if rtype == "SRV" and n == 4:
        return [f"{_u16(tokens[0])} {_u16(tokens[1])} {_u16(tokens[2])} {_host_target(tokens[3], origin)}"]
    return [_rdata_text(rtype, " ".join(tokens), origin)]


@lru_cache(maxsize=65536)
def _rdata_text(rtype: str, rdata: str, origin: str) -> str:
    """dnspython's text form of one rdata of any other type (the rare path; memoised)."""
    import dns.exception
    import dns.name
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype

    try:
        rd = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(rtype), rdata,
                                 origin=dns.name.from_text(origin), relativize=False)
    except (dns.exception.DNSException, ValueError, KeyError) as exc:
        raise Unusual(f"{rtype} {rdata!r}: {exc}") from None
    text = str(rd.to_text())
    if rtype in NAME_TERMINATED and text.endswith(".") and text != ".":
        text = text[:-1]
    return join_txt(text) if rtype == "TXT" else text


def _soa(ttl: int, tokens: list[str], origin: str) -> Soa:
    if len(tokens) != 7 or not all(_digits(t) for t in tokens[2:]):
        raise Unusual("SOA in an unusual form")
    serial, refresh, retry, expire, minimum = (int(t) for t in tokens[2:])
    if any(v >= 1 << 32 for v in (serial, refresh, retry, expire, minimum)):
        raise Unusual("SOA value out of range")
    return Soa(ttl, _absolute(tokens[0], origin), _absolute(tokens[1], origin), serial, refresh, retry, expire,
               minimum)


def _ttl(token: str) -> int:
    value = int(token)
    if value > 2147483647:
        raise Unusual("TTL out of range")
    return value


class _Reader:
    def __init__(self, origin: str) -> None:
        self.zone = ZoneData(origin.lower())
        self.apex = (origin + "." if origin else ".").lower()
        self.suffix = "." + self.apex if origin else ""
        self.spelling: dict[str, str] = {}  # lower-case name -> first spelling

    def add(self, owner: str, ttl: int, rtype: str, tokens: list[str], origin: str) -> None:
        low = owner.lower()
        if low != self.apex and not low.endswith(self.suffix) and self.apex != ".":
            raise Unusual(f"{owner} is outside the zone")
        if rtype == "SOA":
            if low != self.apex or self.zone.soa is not None:
                raise Unusual("SOA away from the apex, or more than one")
            self.zone.soa = _soa(ttl, tokens, origin)
            return
        key_name = low[:-1] if low != "." else low
        display = self.spelling.get(key_name)
        if display is None:
            display = self.spelling[key_name] = owner[:-1] if owner != "." else owner
        key = (key_name, rtype)
        targets = _targets(rtype, tokens, origin)
        rrsets = self.zone.rrsets
        old = rrsets.get(key)
        if old is None:
            rrsets[key] = (display, ttl, tuple(targets))
            return
        if rtype in _SINGLETONS and targets[0] not in old[2]:
            raise Unusual(f"more than one {rtype} record at one name")
        merged = list(old[2])
        seen = {t.lower() for t in merged}
        for t in targets:
            if t in merged:
                continue
            if t.lower() in seen:  # the same rdata in another case: dnspython's equality rules decide
                raise Unusual("records differing only in case")
            merged.append(t)
            seen.add(t.lower())
        rrsets[key] = (display, min(old[1], ttl), tuple(merged))

    def add_simple(self, relative: str, ttl: int, rtype: str, target: str) -> None:
        """A record of our own simple form (owner relative to the apex, target in its final form)."""
        owner = self.apex if relative == "@" else relative + self.suffix
        if len(owner) > MAX_NAME - 1:
            raise Unusual("name too long")
        key_name = owner[:-1].lower()
        display = self.spelling.get(key_name)
        if display is None:
            display = self.spelling[key_name] = owner[:-1]
        key = (key_name, rtype)
        rrsets = self.zone.rrsets
        old = rrsets.get(key)
        if old is None:
            rrsets[key] = (display, ttl, (target,))
        elif target not in old[2]:  # A and TXT targets compare exactly
            rrsets[key] = (display, min(old[1], ttl), (*old[2], target))
        elif ttl < old[1]:
            rrsets[key] = (display, ttl, old[2])

    def finish(self) -> ZoneData:
        rrsets = self.zone.rrsets
        cnames = {name for name, rtype in rrsets if rtype == "CNAME"}  # most zones: none, or few
        if cnames and any(rtype != "CNAME" and name in cnames for name, rtype in rrsets):
            raise Unusual("a CNAME beside other data")
        return self.zone


def read_zone_text(text: str, origin: str) -> ZoneData:
    """The records of a zone file (see the module docstring); `Unusual` when dnspython must read it."""
    reader = _Reader(bare(origin))
    current = reader.apex
    default_ttl: int | None = None
    owner: str | None = None
    simple = reader.apex != "."
    apex, suffix, spelling, rrsets = reader.apex, reader.suffix, reader.spelling, reader.zone.rrsets
    fast = _FAST_LINE.fullmatch
    lines = iter(text.split("\n"))
    for line in lines:
        if not line or line[0] == ";":
            continue
        m = fast(line)
        if m is not None:
            relative, ttl_text, rtype, target = m.groups()
            if (rtype == "A") != (target[0] != '"'):
                m = None
            elif rtype == "TXT" and '" "' in target:
                target = join_txt(target)
            elif simple and current == apex:
                # A line in our own simple A/TXT form (the bulk of a file we wrote): `_Reader.add_simple`, inline
                owner = apex if relative == "@" else relative + suffix  # also for blank-led lines after it
                if len(owner) > MAX_NAME - 1:
                    raise Unusual("name too long")
                simple_ttl = int(ttl_text)
                if simple_ttl > 2147483647:
                    raise Unusual("TTL out of range")
                key_name = owner[:-1].lower()
                display = spelling.get(key_name)
                if display is None:
                    display = spelling[key_name] = owner[:-1]
                key = (key_name, rtype)
                old = rrsets.get(key)
                if old is None:
                    rrsets[key] = (display, simple_ttl, (target,))
                elif target not in old[2]:  # A and TXT targets compare exactly
                    rrsets[key] = (display, min(old[1], simple_ttl), (*old[2], target))
                elif simple_ttl < old[1]:
                    rrsets[key] = (display, simple_ttl, old[2])
                continue
        if m is not None:
            blank, tokens = False, [relative, ttl_text, "IN", rtype, target]
        else:
            blank, tokens = _tokens(line, lines)
            if not tokens:
                continue
        first = tokens[0]
        if not blank and first[0] == "$":
            word = first.upper()
            if word == "$ORIGIN" and len(tokens) == 2 and tokens[1].endswith("."):
                current = _absolute(tokens[1], ".")
            elif word == "$TTL" and len(tokens) == 2 and _digits(tokens[1]):
                default_ttl = _ttl(tokens[1])
            else:
                raise Unusual(f"directive {' '.join(tokens)!r}")
            continue
        i = 0
        if not blank:
            owner = _absolute(first, current)
            i = 1
        if owner is None:
            raise Unusual("a record without an owner")
        ttl: int | None = None
        rtype = ""
        while i < len(tokens):
            tok = tokens[i]
            i += 1
            if _digits(tok) and ttl is None:
                ttl = _ttl(tok)
            elif tok.upper() in _CLASSES:
                if tok.upper() != "IN":
                    raise Unusual(f"class {tok}")
            else:
                rtype = tok.upper()
                break
        if not rtype or not _TYPE_WORD.fullmatch(rtype):
            raise Unusual("no record type")
        if ttl is None:
            if default_ttl is None:
                raise Unusual("a record without a TTL and no $TTL")
            ttl = default_ttl
        reader.add(owner, ttl, rtype, tokens[i:], current)
    return reader.finish()


# -- writing ----------------------------------------------------------------------------------------------------
def rdata_field(rtype: str, target: str) -> str:
    """The rdata text to write for a target in read-back form (name-valued types get their final dot)."""
    if rtype in NAME_TERMINATED and target != "." and not target.endswith("."):
        return target + "."
    return split_txt(target) if rtype == "TXT" else target


def relative_owner(name: str, origin: str) -> str:
    """`name` (as spelled, no final dot) relative to `origin` (lower-case): '@' at the apex."""
    low = name.lower()
    if low == origin:
        return "@"
    if origin and low.endswith("." + origin):
        return name[: -(len(origin) + 1)]
    return name + "."


def _render_rrset(rtype: str, rrset: Rrset, origin: str) -> str:
    name, ttl, targets = rrset
    head = f"{relative_owner(name, origin)} {ttl} IN {rtype} "
    return "".join(head + rdata_field(rtype, target) + "\n" for target in targets)


def render_lines(zone: ZoneData) -> Iterable[str]:
    origin = zone.origin
    yield f"$ORIGIN {origin}.\n" if origin else "$ORIGIN .\n"
    if zone.soa is not None:
        yield f"@ {zone.soa.ttl} IN SOA {zone.soa.text()}\n"
    yield "".join(zone.rendered())


def render_zone_text(zone: ZoneData, header: str = "") -> str:
    return header + "".join(render_lines(zone))
