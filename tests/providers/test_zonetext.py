"""zonetext: the compact zone-file reader gives exactly what dnspython's zone parser gives (or hands the file to
it), and what the writer writes reads back identically in both and loads in named-checkzone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.providers.zonefile import new_zone_text, read_with_dnspython, zone_to_text
from external_dns.providers.zonetext import Unusual, ZoneData, read_zone_text

ORIGIN = "example.org"


def dnspython(text: str) -> ZoneData:
    return read_with_dnspython("test.zone", text, ORIGIN)


def same(text: str) -> ZoneData | None:
    """The compact reading of `text`, checked against dnspython's; None when the compact reader declined."""
    try:
        mine = read_zone_text(text, ORIGIN)
    except Unusual:
        return None
    ref = dnspython(text)
    assert mine.soa == ref.soa
    assert mine.rrsets == ref.rrsets
    return mine


label = st.from_regex(r"[a-z0-9_-]{1,12}|\*|[A-Z][a-z]{0,5}", fullmatch=True)
relative = st.lists(label, min_size=1, max_size=3).map(".".join)
owner = st.one_of(st.just("@"), relative, relative.map(lambda r: f"{r}.{ORIGIN}."))
hostname = st.one_of(relative, relative.map(lambda r: f"{r}.example.net."), st.just("@"))
printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=40)
rdata = st.one_of(
    st.tuples(st.just("A"), st.ip_addresses(v=4).map(str)),
    st.tuples(st.just("AAAA"), st.ip_addresses(v=6).map(str)),
    st.tuples(st.just("TXT"), st.lists(printable.map(lambda s: f'"{s}"'), min_size=1, max_size=3).map(" ".join)),
    st.tuples(st.just("TXT"), st.from_regex(r'"[a-z\\";é ]{0,10}"|[a-z]{1,8}', fullmatch=True)),
    st.tuples(st.sampled_from(["CNAME", "NS", "PTR", "DNAME"]), hostname),
    st.tuples(st.just("MX"), st.tuples(st.integers(0, 65535), hostname).map(lambda t: f"{t[0]} {t[1]}")),
    st.tuples(st.just("SRV"), st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 65535), hostname)
              .map(lambda t: f"{t[0]} {t[1]} {t[2]} {t[3]}")),
    st.tuples(st.just("CAA"), st.just('0 issue "letsencrypt.org"')),
)
ttl = st.one_of(st.none(), st.integers(0, 2**31 - 1))
record = st.tuples(owner, ttl, st.sampled_from(["", "IN "]), rdata, st.booleans(), st.sampled_from(["", " ; note"]))


def zone_text(records: list[tuple[str, int | None, str, tuple[str, str], bool, str]], with_ttl: bool) -> str:
    lines = ["$TTL 300" if with_ttl else "", f"$ORIGIN {ORIGIN}.",
             "@ 3600 IN SOA ns1.example.net. hostmaster ( 7 3600 ; refresh", " 600 86400 300 )",
             "@ 3600 IN NS ns1.example.net."]
    for name, t, cls, (rtype, text), blank_owner, comment in records:
        shown = "" if blank_owner and len(lines) > 5 else name
        lines.append(f"{shown}\t{'' if t is None else t} {cls}{rtype} {text}{comment}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(record, max_size=25), with_ttl=st.booleans())
def test_reads_like_dnspython_or_declines(records: list[tuple[str, int | None, str, tuple[str, str], bool, str]],
                                          with_ttl: bool) -> None:
    text = zone_text(records, with_ttl)
    try:
        dnspython(text)
    except Exception:  # not a valid zone: the compact reader must not accept it either
        with pytest.raises(Unusual):
            read_zone_text(text, ORIGIN)
        return
    data = same(text)
    if data is None:
        return
    # what we write reads back identically, in both readers
    written = zone_to_text(data)
    again = same(written)
    assert again is not None, "our own output must take the compact path"
    assert again.rrsets == data.rrsets and again.soa == data.soa


def test_our_own_lines_take_the_compact_path() -> None:
    data = read_zone_text(new_zone_text(ORIGIN), ORIGIN)
    data.rrsets[("www.example.org", "A")] = ("www.example.org", 300, ("192.0.2.1", "192.0.2.2"))
    data.rrsets[("a-www.example.org", "TXT")] = ("a-www.example.org", 300, ('"heritage=external-dns;x"',))
    data.rrsets[("m.example.org", "MX")] = ("m.example.org", 60, ("10 mail.example.org",))
    assert same(zone_to_text(data)) is not None


@pytest.mark.parametrize("text", [
    "$ORIGIN example.org.\n$INCLUDE other.zone\n",
    "$ORIGIN example.org.\n@ 300 IN SOA a. b. 1 1 1 1 1\n$GENERATE 1-3 h$ A 192.0.2.$\n",
    "$ORIGIN example.org.\n@ 300 CH SOA a. b. 1 1 1 1 1\n",
    "$ORIGIN example.org.\n@ 1h IN SOA a. b. 1 1 1 1 1\n",
    "$ORIGIN example.org.\n@ 300 IN SOA a. b. 1 1 1 1 1\nw\\ x 300 IN A 192.0.2.1\n",
    "$ORIGIN example.org.\n@ 300 IN SOA a. b. 1 1 1 1 1\nc 300 IN CNAME x.\nc 300 IN A 192.0.2.1\n",
    "$ORIGIN example.org.\n@ 300 IN SOA a. b. 1 1 1 1 1\nout.example.net. 300 IN A 192.0.2.1\n",
    "$ORIGIN example.org.\n@ 300 IN SOA a. b. 1 1 1 1 1\nbad 300 IN A 300.1.1.1\n",
])
def test_unusual_files_are_left_to_dnspython(text: str) -> None:
    with pytest.raises(Unusual):
        read_zone_text(text, ORIGIN)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("named-checkzone") is None, reason="named-checkzone (bind9-utils) not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(records=st.lists(record.filter(lambda r: r[3][0] not in ("NS", "DNAME", "CNAME")), max_size=15))
def test_what_we_write_loads_in_named_checkzone(tmp_path: Path,
                                                records: list[tuple[str, int | None, str, tuple[str, str], bool, str]]
                                                ) -> None:
    text = zone_text(records, True)
    try:
        data = dnspython(text)
    except Exception:  # only valid zones are of interest here
        return
    path = tmp_path / "example.org.zone"
    path.write_text(zone_to_text(data))
    check = subprocess.run(["named-checkzone", "-i", "none", ORIGIN, str(path)], capture_output=True, text=True,
                           check=False)
    assert check.returncode == 0, check.stdout + check.stderr + path.read_text()


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), relative, st.sampled_from(["A", "TXT", "NS", "MX"])), max_size=40))
def test_kept_order_and_lines_match_a_fresh_render(ops: list[tuple[bool, str, str]]) -> None:
    """put/delete keep the canonical order and rendered lines exactly as a render from scratch."""
    data = read_zone_text(new_zone_text(ORIGIN), ORIGIN)
    zone_to_text(data)  # from here on the order and lines are maintained
    targets = {"A": "192.0.2.1", "TXT": '"v"', "NS": "ns.example.net", "MX": "10 mx.example.net"}
    for add, name, rtype in ops:
        key = (f"{name}.{ORIGIN}".lower(), rtype)
        if add:
            data.put(key, (f"{name}.{ORIGIN}", 300, (targets[rtype],)))
        elif key in data.rrsets:
            data.delete(key)
    fresh = ZoneData(data.origin, data.soa, dict(data.rrsets))
    assert zone_to_text(data) == zone_to_text(fresh)
