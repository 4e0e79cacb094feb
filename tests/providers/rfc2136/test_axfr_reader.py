"""wire.AxfrReader (zone transfers read into compact records) against dnspython's message reader: the same
records and targets for any content, the same refusals (TSIG chain, mismatched answers, malformed names)."""

from __future__ import annotations

from typing import Any

import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.tsig
import dns.tsigkeyring
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.providers.rfc2136 import wire
from external_dns.providers.rfc2136.targets import READ_TYPES, target_of, txt_targets

ZONE = "example.org."
KEYRING = dns.tsigkeyring.from_text({"k.": ("hmac-sha256", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=")})
TYPES = frozenset(READ_TYPES)


def signed_query() -> dns.message.Message:
    q = dns.message.make_query(ZONE, dns.rdatatype.AXFR)
    q.use_tsig(KEYRING, keyname="k.")
    q.to_wire()  # sets q.mac, as sending does
    return q


def answer_messages(query: dns.message.Message, chunks: list[list[dns.rrset.RRset]], sign: bool = True,
                    sign_every: int = 1) -> list[bytes]:
    """The server side: one message per chunk, TSIG over the running context (every `sign_every`-th)."""
    out: list[bytes] = []
    ctx: Any = None
    for i, chunk in enumerate(chunks):
        r = dns.message.make_response(query)
        if i:
            r.question = []
        r.answer = chunk
        last = i == len(chunks) - 1
        if not sign or (i % sign_every and not last):
            r.tsig = None
            data = r.to_wire()
            if ctx is not None:
                ctx.update(data)
        else:
            data = r.to_wire(multi=True, tsig_ctx=ctx)
            ctx = r.tsig_ctx
        out.append(data)
    return out


def soa(serial: int) -> dns.rrset.RRset:
    return dns.rrset.from_text(ZONE, 3600, "IN", "SOA", f"ns1.{ZONE} hostmaster.{ZONE} {serial} 1 1 1 1")


def reference(query: dns.message.Message, messages: list[bytes]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    """What dnspython's reader gives, in the provider's read-back form."""
    out: list[tuple[str, str, int, tuple[str, ...]]] = []
    ctx = None
    for i, data in enumerate(messages):
        m = dns.message.from_wire(data, keyring=query.keyring, request_mac=query.mac, xfr=True, tsig_ctx=ctx,
                                  multi=True, one_rr_per_rrset=True)
        assert query.is_response(m, xfr_continuation=i > 0)
        ctx = m.tsig_ctx
        for rrset in m.answer:
            rtype = dns.rdatatype.to_text(rrset.rdtype)
            name = rrset.name.to_text()
            name = name[:-1] if name.endswith(".") and name != "." else name
            if rtype == "SOA":
                out.append((name, rtype, rrset.ttl, (str(rrset[0].serial),)))
            elif rtype in TYPES:
                rd = rrset[0]
                targets = tuple(txt_targets(rd)) if rtype == "TXT" else (target_of(rd),)
                out.append((name, rtype, rrset.ttl, targets))
    return out


def compact(query: dns.message.Message, messages: list[bytes]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    reader = wire.AxfrReader(query, TYPES)
    out: list[tuple[str, str, int, tuple[str, ...]]] = []
    for data in messages:
        rcode, records = reader.feed(data)
        assert rcode == 0
        for r in records:
            out.append((r.name, r.rtype, r.ttl, (str(r.serial),) if r.rtype == "SOA" else r.targets))
    assert reader.last_signed
    return out


label = st.one_of(st.from_regex(r"[a-z0-9_-]{1,20}", fullmatch=True),
                  st.binary(min_size=1, max_size=12).map(lambda b: "".join(f"\\{c:03d}" for c in b)),
                  st.sampled_from(["*", "Mixed-Case", "a.b".replace(".", "\\."), "sp\\032ace", "q\\\"", "@x"]))
owner = st.lists(label, min_size=1, max_size=3).map(lambda ls: ".".join(ls) + "." + ZONE)
host = st.lists(st.from_regex(r"[A-Za-z0-9-]{1,12}", fullmatch=True), min_size=1, max_size=4).map(
    lambda ls: ".".join(ls) + ".")
txt = st.lists(st.binary(max_size=255).map(lambda b: '"' + "".join(f"\\{c:03d}" for c in b) + '"'),
               min_size=1, max_size=3).map(" ".join)
rdata = st.one_of(
    st.tuples(st.just("A"), st.ip_addresses(v=4).map(str)),
    st.tuples(st.just("AAAA"), st.ip_addresses(v=6).map(str)),
    st.tuples(st.just("TXT"), txt),
    st.tuples(st.sampled_from(["CNAME", "NS", "PTR", "DNAME"]), host),
    st.tuples(st.just("MX"), st.tuples(st.integers(0, 65535), host).map(lambda t: f"{t[0]} {t[1]}")),
    st.tuples(st.just("SRV"), st.tuples(st.integers(0, 65535), st.integers(0, 65535), st.integers(0, 65535),
                                        host).map(lambda t: f"{t[0]} {t[1]} {t[2]} {t[3]}")),
    st.tuples(st.just("NAPTR"), host.map(lambda h: f'100 10 "u" "E2U+sip" "!^.*$!sip:x@y!" {h}')),
    st.tuples(st.just("CAA"), st.just('0 issue "letsencrypt.org"')),  # not read: skipped by both
)


@settings(max_examples=150, deadline=None)
@given(records=st.lists(st.tuples(owner, st.integers(0, 2**31 - 1), rdata), max_size=30),
       per_message=st.integers(1, 7), sign_every=st.integers(1, 3))
def test_same_records_as_dnspython(records: list[tuple[str, int, tuple[str, str]]], per_message: int,
                                   sign_every: int) -> None:
    rrsets = [soa(7)] + [dns.rrset.from_text(name, ttl, "IN", rtype, text) for name, ttl, (rtype, text) in records]
    rrsets.append(soa(7))
    chunks = [rrsets[i:i + per_message] for i in range(0, len(rrsets), per_message)]
    query = signed_query()
    messages = answer_messages(query, chunks, sign_every=sign_every)
    assert compact(query, messages) == reference(query, messages)


def test_a_tampered_message_is_refused() -> None:
    query = signed_query()
    data = bytearray(answer_messages(query, [[soa(1), dns.rrset.from_text("a." + ZONE, 60, "IN", "A", "192.0.2.1"),
                                               soa(1)]])[0])
    data[data.index(bytes([192, 0, 2, 1]))] = 10
    with pytest.raises(dns.tsig.BadSignature):
        wire.AxfrReader(query, TYPES).feed(bytes(data))


def test_an_unsigned_answer_to_a_signed_query_is_refused() -> None:
    query = signed_query()
    (data,) = answer_messages(query, [[soa(1), soa(1)]], sign=False)
    with pytest.raises(dns.exception.FormError):
        wire.AxfrReader(query, TYPES).feed(data)


def test_unsigned_messages_between_signed_ones_are_accepted_and_tracked() -> None:
    query = signed_query()
    a = dns.rrset.from_text("a." + ZONE, 60, "IN", "A", "192.0.2.1")
    messages = answer_messages(query, [[soa(1)], [a], [a], [soa(1)]], sign_every=2)
    reader = wire.AxfrReader(query, TYPES)
    states = []
    for data in messages:
        reader.feed(data)
        states.append(reader.last_signed)
    assert states == [True, False, True, True]


def test_answer_to_another_query_is_refused() -> None:
    query = signed_query()
    (data,) = answer_messages(query, [[soa(1), soa(1)]])
    other = bytearray(data)
    other[0] ^= 0xFF  # another message ID
    with pytest.raises(dns.query.BadResponse):
        wire.AxfrReader(query, TYPES).feed(bytes(other))


def test_compression_loops_and_overruns_are_form_errors() -> None:
    looping = b"\x00" * 12 + b"\xc0\x0c"
    with pytest.raises(dns.exception.FormError):
        wire.read_name(looping, 12)
    with pytest.raises(dns.exception.FormError):
        wire.read_name(b"\x05abc", 0)


def test_refused_transfer_reports_its_rcode() -> None:
    query = signed_query()
    r = dns.message.make_response(query)
    r.set_rcode(dns.rcode.REFUSED)
    rcode, records = wire.AxfrReader(query, TYPES).feed(r.to_wire(multi=True))
    assert rcode == dns.rcode.REFUSED and records == []
