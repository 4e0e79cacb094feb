"""The hand-rendered UPDATE messages parse back, with dnspython, into exactly the intended update section."""

from __future__ import annotations

import dns.message
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.tsig
import dns.update
import pytest

from external_dns.providers.rfc2136 import wire
from external_dns.providers.rfc2136.config import RFC2136Config
from external_dns.providers.rfc2136.transport import Transport

SECRET = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="


def test_name_wire_compresses_against_the_zone() -> None:
    assert wire.name_wire("www.example.org", "example.org") == b"\x03www\xc0\x0c"
    assert wire.name_wire("example.org.", "example.org") == b"\xc0\x0c"
    assert wire.name_wire("a.b.example.org", "example.org") == b"\x01a\x01b\xc0\x0c"
    assert wire.name_wire("*.example.org", "example.org") == b"\x01*\xc0\x0c"
    with pytest.raises(ValueError, match="label"):
        wire.name_wire("a..example.org", "example.org")
    with pytest.raises(ValueError, match="label"):
        wire.name_wire("x" * 64 + ".example.org", "example.org")


def test_rdata_wire() -> None:
    assert wire.rdata_wire("A", "10.0.0.1") == b"\x0a\x00\x00\x01"
    assert wire.rdata_wire("AAAA", "2001:db8::1")[:4] == b"\x20\x01\x0d\xb8"
    assert wire.rdata_wire("TXT", '"a b"') == b"\x03a b"
    assert wire.rdata_wire("TXT", "x" * 300) == b"\xff" + b"x" * 255 + b"\x2d" + b"x" * 45
    assert wire.rdata_wire("MX", "10 mail.example.net") == b"\x00\x0a\x04mail\x07example\x03net\x00"
    for rtype, bad in (("A", "300.1.1.1"), ("AAAA", "zz::1"), ("MX", "mail.example.net"), ("CNAME", "a..b")):
        with pytest.raises(ValueError):
            wire.rdata_wire(rtype, bad)


def test_rendered_update_parses_back_signed() -> None:
    transport = Transport(RFC2136Config(hosts=("127.0.0.1",), port=53, zones=("example.org",), tsig_keyname="k",
                                        tsig_secret=SECRET, tsig_secret_alg="hmac-sha512"))
    owner = wire.name_wire("www.example.org", "example.org")
    a, txt = wire.type_code("A"), wire.type_code("TXT")
    section = (wire.rr(owner, a, wire.CLASS_ANY, 0, b"")
               + wire.rr(owner, a, wire.CLASS_NONE, 0, wire.rdata_wire("A", "10.0.0.1"))
               + wire.rr(owner, a, wire.CLASS_IN, 60, wire.rdata_wire("A", "10.0.0.2"))
               + wire.rr(wire.name_wire("t.example.org", "example.org"), txt, wire.CLASS_IN, 0,
                         wire.rdata_wire("TXT", 'he said "hi"')))
    msg, data = wire.render_update(dns.name.from_text("example.org."), section, 4, transport.sign)
    assert msg.mac  # signed: the answer will be verified against this MAC
    parsed = dns.message.from_wire(data, keyring=transport.keyring)  # verifies the TSIG signature
    assert isinstance(parsed, dns.update.UpdateMessage)
    assert parsed.zone[0].name == dns.name.from_text("example.org.") and parsed.zone[0].rdtype == dns.rdatatype.SOA
    # dnspython files deletions under class IN with `deleting` set to the wire class (ANY / NONE).
    got = [(r.name.to_text(), dns.rdatatype.to_text(r.rdtype), dns.rdataclass.to_text(r.deleting or r.rdclass),
            r.ttl, [rd.to_text() for rd in r]) for r in parsed.update]
    assert got == [
        ("www.example.org.", "A", "ANY", 0, []),
        ("www.example.org.", "A", "NONE", 0, ["10.0.0.1"]),
        ("www.example.org.", "A", "IN", 60, ["10.0.0.2"]),
        ("t.example.org.", "TXT", "IN", 0, ['"he said \\"hi\\""']),
    ]
    with pytest.raises(dns.tsig.BadSignature):
        other = {dns.name.from_text("k."): dns.tsig.Key("k.", "b3RoZXI=", "hmac-sha512")}
        dns.message.from_wire(data, keyring=other)


def test_oversized_update_is_refused_before_sending() -> None:
    transport = Transport(RFC2136Config(hosts=("h",), port=53, insecure=True))
    with pytest.raises(dns.exception.TooBig):
        wire.render_update(dns.name.from_text("example.org."), b"\x00" * 70000, 1, transport.sign)
