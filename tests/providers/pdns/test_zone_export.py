"""Zones are read from PowerDNS's plain-text zone export (a third of the server's work of the JSON zone): the same
endpoints as the JSON read on a real server for every kind of rrset (disabled records, ALIAS, long and escaped
TXT, comment-only rrsets, wildcards, upper-case names), one request per zone; the parser on its own (lowest TTL,
trailing dots, shapes it refuses); and the fall-back to the JSON zone, kept from then on, where the export is
not served whole (a proxy's 404, a truncated or rewritten answer), but not for a transient failure or a zone
that is gone."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.pdns import PDNSConfig, PDNSProvider
from external_dns.providers.pdns.records import endpoints_from_export
from external_dns.providers.provider import SoftError
from tests.providers.pdns.conftest import make_provider
from tests.providers.pdns.rawhttp import Handler, RawServer, answer
from tests.servers.pdns import PdnsServer

KEY = "export-test-key"
SOA = "example.org.\t3600\tIN\tSOA\tns1.example.org. hostmaster.example.org. 1 10800 3600 604800 3600\n"


def shape(endpoints: list[Endpoint]) -> list[tuple[str, str, list[str], int, list[tuple[str, str]]]]:
    return sorted((e.dns_name, e.record_type, list(e.targets), e.record_ttl,
                   [(p.name, p.value) for p in e.provider_specific]) for e in endpoints)


def rrset(name: str, rtype: str, *contents: str, ttl: int = 300, disabled: tuple[str, ...] = ()) -> dict[str, object]:
    return {"name": name, "type": rtype, "ttl": ttl, "changetype": "REPLACE",
            "records": [{"content": c, "disabled": c in disabled} for c in contents]}


@pytest.mark.integration
def test_export_reads_what_the_json_zone_reads(pdns: PdnsServer) -> None:
    pdns.patch("example.org", [
        rrset("multi.example.org.", "A", "10.0.0.2", "10.0.0.1", "10.0.0.3", disabled=("10.0.0.3",)),
        rrset("off.example.org.", "A", "10.0.0.9", disabled=("10.0.0.9",)),
        rrset("UPPER.example.org.", "AAAA", "2001:db8::1", ttl=60),
        rrset("*.wild.example.org.", "A", "10.0.1.1"),
        rrset("alias.example.org.", "ALIAS", "target.example.net."),
        rrset("cname.example.org.", "CNAME", "target.example.net."),
        rrset("txt.example.org.", "TXT", '"' + "x" * 300 + '"', '"a\\"b\\\\c\\010d" "e"', '"heritage=external-dns"'),
        rrset("mx.example.org.", "MX", "10 mail.example.org.", "20 backup.example.net."),
        rrset("_sip._udp.example.org.", "SRV", "10 60 5060 sip.example.net."),
        rrset("sub.example.org.", "NS", "ns1.elsewhere.net.", "ns2.elsewhere.net."),
        rrset("caa.example.org.", "CAA", '0 issue "letsencrypt.org"'),
        rrset("naptr.example.org.", "NAPTR", '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.org!" .'),
        rrset("d.example.org.", "DNAME", "example.net."),
        rrset("ptr.example.org.", "PTR", "host.example.net."),
        {"name": "commented.example.org.", "type": "A", "changetype": "REPLACE",
         "comments": [{"content": "a comment without records", "account": ""}]},
    ])
    exported = make_provider(pdns)
    mark = pdns.mark()
    got = exported.zone_records("example.org")
    assert [r[1].rsplit("/", 1)[1] for r in pdns.requests_since(mark) if "/zones/" in r[1]] == ["export"]
    as_json = make_provider(pdns)
    as_json._export = False
    want = as_json.zone_records("example.org")
    assert shape(got) == shape(want)
    names = {(e.dns_name, e.record_type) for e in got}
    assert ("multi.example.org", "A") in names and ("off.example.org", "A") not in names  # disabled: invisible
    assert ("alias.example.org", "CNAME") in names and ("upper.example.org", "AAAA") in names
    assert ("commented.example.org", "A") not in names and ("example.org", "SOA") not in names
    assert exported._export and not exported._json_zones  # nothing made it fall back


@pytest.mark.integration
def test_a_value_with_a_line_break_cannot_forge_records(pdns: PdnsServer) -> None:
    """PowerDNS exports a TXT value's line break as it is, so the rest of the value starts a line of its own:
    written by another tool, a value holding a whole ownership record line must not read as one. The export
    is refused for the JSON zone, which reads the value as the one TXT record it is."""
    # Every piece of the cut line parses: "x / a forged ownership TXT for www / z.example.org TXT \"" .
    forged = ('x\na-www.example.org.\t300\tIN\tTXT\theritage=external-dns,external-dns/owner=intruder\n'
              'z.example.org.\t300\tIN\tTXT\t\\"')
    pdns.patch("example.org", [rrset("note.example.org.", "TXT", '"' + forged + '"'),
                               rrset("www.example.org.", "A", "192.0.2.1")])
    provider = make_provider(pdns)
    got = provider.zone_records("example.org")
    names = sorted((e.dns_name, e.record_type) for e in got)
    assert names == [("example.org", "NS"), ("note.example.org", "TXT"), ("www.example.org", "A")]
    mark = pdns.mark()
    provider.zone_records("example.org")
    provider.zone_records("example.com")  # another zone keeps its export
    assert [r[1].rsplit("/", 1)[1] for r in pdns.requests_since(mark) if "/zones/" in r[1]] == [
        "example.org.", "export"]


def test_parser_groups_records_into_endpoints() -> None:
    data = (SOA + "www.Example.org.\t300\tIN\tA\t10.0.0.2\n"
            "mail.example.org.\t60\tIN\tMX\t10 mx.example.net.\n"
            "www.example.org.\t120\tIN\tA\t10.0.0.1\n"
            "srv.example.org.\t300\tIN\tSRV\t1 2 3 host.example.net.\n"
            "t.example.org.\t300\tIN\tTXT\t\"tab\\009inside\"\n"
            "al.example.org.\t300\tIN\tALIAS\tx.example.net.\n").encode()
    got = {(e.dns_name, e.record_type): e for e in endpoints_from_export(data, "example.org") or []}
    assert set(got) == {("www.example.org", "A"), ("mail.example.org", "MX"), ("srv.example.org", "SRV"),
                        ("t.example.org", "TXT"), ("al.example.org", "CNAME")}
    www = got[("www.example.org", "A")]
    assert list(www.targets) == ["10.0.0.1", "10.0.0.2"] and www.record_ttl == 120  # sorted, lowest TTL
    assert list(got[("mail.example.org", "MX")].targets) == ["10 mx.example.net"]  # one dot trimmed
    assert list(got[("srv.example.org", "SRV")].targets) == ["1 2 3 host.example.net."]  # SRV keeps it
    assert list(got[("t.example.org", "TXT")].targets) == ['"tab\\009inside"']
    assert got[("al.example.org", "CNAME")].get_provider_specific_property("alias") == "true"
    wrapped = b'{"zone": "' + SOA.replace("\t", "\\t").replace("\n", "\\n").encode() + b'"}'
    assert endpoints_from_export(wrapped, "example.org") == []  # the JSON-wrapped form: only the SOA


@pytest.mark.parametrize("data", [
    b"",  # nothing at all
    SOA.encode().replace(b"example.org.\t3600", b"other.org.\t3600"),  # no SOA of this zone
    (SOA + "www.example.org.\t300\tIN\tA\n").encode(),  # four fields
    (SOA + "www.example.org.\t300\tCH\tA\t10.0.0.1\n").encode(),  # another class
    (SOA + "www.example.org.\t-1\tIN\tA\t10.0.0.1\n").encode(),  # a TTL that is not a number
    (SOA + "www.example.org.\t300\tIN\tA\t10.0.0.1\n").replace("\n", "\r\n").encode(),  # line ends rewritten
    (SOA + 't.example.org.\t300\tIN\tTXT\t"cut\n').encode(),  # a line break inside a quoted string
    (SOA + 't.example.org.\t300\tIN\tTXT\t"a\\"b" "c\n').encode(),  # the same after an escaped quote
    SOA.encode() + b"caf\xe9.example.org.\t300\tIN\tA\t10.0.0.1\n",  # not UTF-8
    b'{"id": "example.org."}', b"{not json",  # JSON, but no export in it
])
def test_parser_refuses_what_is_not_a_whole_export(data: bytes) -> None:
    assert endpoints_from_export(data, "example.org") is None


def zone_server(raw: Callable[[Handler], RawServer], export: Callable[[int], bytes]) -> RawServer:
    """A fake PowerDNS with one zone: its JSON form holds www.example.org A 10.0.0.1; `export(n)` answers the
    n-th request for the export."""
    exports: list[int] = []
    srv: RawServer

    def handler(c: socket.socket, n: int) -> None:
        path = srv.heads[n - 1].split(b" ")[1]
        if path.endswith(b"/zones?dnssec=false"):
            c.sendall(answer("200 OK", b'[{"id": "example.org.", "name": "example.org."}]'))
        elif path.endswith(b"/export"):
            exports.append(n)
            c.sendall(export(len(exports)))
        else:
            c.sendall(answer("200 OK", b'{"name": "example.org.", "rrsets": [{"name": "www.example.org.", '
                                       b'"type": "A", "ttl": 300, "records": [{"content": "10.0.0.1", '
                                       b'"disabled": false}], "comments": []}]}'))

    srv = raw(handler)
    return srv


def paths(srv: RawServer) -> list[str]:
    return [h.split(b" ")[1].decode().rsplit("/", 1)[1] for h in srv.heads if b"/zones/" in h]


def provider_for(srv: RawServer) -> PDNSProvider:
    return PDNSProvider(PDNSConfig(server=srv.url, api_key=KEY, retry_base=0.01, retries=1))


@pytest.mark.parametrize("export_answer", [
    answer("404 Not Found", b'{"error": "Not Found"}'),  # a proxy in front that does not know the path
    answer("200 OK", b"www.example.org.\t300\tIN\tA\t10.0.0.1\n"),  # no SOA: not the whole zone
    answer("200 OK", b"<html>login</html>"),
])
def test_falls_back_to_the_json_zone_and_stays_there(raw: Callable[[Handler], RawServer],
                                                     export_answer: bytes) -> None:
    srv = zone_server(raw, lambda _n: export_answer)
    provider = provider_for(srv)
    first = provider.records()
    assert shape(first) == [("www.example.org", "A", ["10.0.0.1"], 300, [])]
    assert shape(provider.records()) == shape(first)
    assert paths(srv) == ["export", "example.org.", "example.org."]  # the export is asked for once only


def test_export_answer_is_used_without_a_json_read(raw: Callable[[Handler], RawServer]) -> None:
    body = (SOA + "www.example.org.\t300\tIN\tA\t10.0.0.1\n").encode()
    srv = zone_server(raw, lambda _n: answer("200 OK", body, "Content-Type: text/plain\r\n"))
    provider = provider_for(srv)
    assert shape(provider.records()) == [("www.example.org", "A", ["10.0.0.1"], 300, [])]
    assert paths(srv) == ["export"]
    assert b"accept: text/plain" in srv.heads[-1].lower()


def test_transient_failure_of_the_export_is_soft_and_the_export_is_kept(raw: Callable[[Handler], RawServer]) -> None:
    body = (SOA + "www.example.org.\t300\tIN\tA\t10.0.0.2\n").encode()
    srv = zone_server(raw, lambda n: answer("503 Service Unavailable", b"busy") if n <= 2 else answer("200 OK", body))
    provider = provider_for(srv)
    with pytest.raises(SoftError, match="HTTP 503"):
        provider.records()  # 1 retry: two 503s, no JSON read
    assert paths(srv) == ["export", "export"]
    assert shape(provider.records()) == [("www.example.org", "A", ["10.0.0.2"], 300, [])]
    assert provider._export and not provider._json_zones


def test_a_zone_gone_from_both_reads_is_soft_and_the_export_is_kept(raw: Callable[[Handler], RawServer]) -> None:
    srv: RawServer

    def handler(c: socket.socket, n: int) -> None:
        if srv.heads[n - 1].split(b" ")[1].endswith(b"/zones?dnssec=false"):
            c.sendall(answer("200 OK", b'[{"id": "example.org.", "name": "example.org."}]'))
        else:
            c.sendall(answer("404 Not Found", b'{"error": "Not Found"}'))

    srv = raw(handler)
    provider = provider_for(srv)
    with pytest.raises(SoftError, match="disappeared"):
        provider.records()
    assert provider._export and not provider._json_zones


@pytest.mark.integration
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=300),
                min_size=1, max_size=40),
       st.lists(st.integers(1, 2**31 - 1), min_size=1, max_size=40))
def test_any_txt_values_read_the_same_from_the_export_and_the_json(pdns_server: PdnsServer, values: list[str],
                                                                   ttls: list[int]) -> None:
    """Any text, control characters and non-ASCII included (PowerDNS writes them as stored, in both answers),
    any TTL: the export reads exactly what the JSON zone reads; a line break in a value (which would cut the
    export's line) makes it read the JSON zone instead."""
    pdns_server.reset()
    writer = make_provider(pdns_server)
    writer.apply_changes(Changes(create=[Endpoint(f"t{i}.example.org", "TXT", Targets([v]), ttls[i % len(ttls)])
                                         for i, v in enumerate(values)]))
    exported = make_provider(pdns_server)
    as_json = make_provider(pdns_server)
    as_json._export = False
    got = exported.zone_records("example.org")
    # (A value is written stripped of surrounding white space, as every target; CR and LF both refuse it.)
    breaks = any("\n" in v.strip() or "\r" in v.strip() for v in values)
    assert ("example.org." in exported._json_zones) == breaks
    assert shape(got) == shape(as_json.zone_records("example.org"))
    assert sum(1 for e in got if e.record_type == "TXT") == len(values)
