"""Targets and names in a zone file's form (providers/zonefile/targets.py): the shortcuts for the common forms (an
IPv4 address, plain TXT, a plain host name) give exactly what dnspython's parse-and-print gives, which is what
records() reads back, so a plan never sees a spurious update; names are written lower-cased and escaped."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from external_dns.providers.errors import ProviderError
from external_dns.providers.zonefile.targets import (
    canonical_target,
    presentation_name,
    rdata_to_target,
    target_to_rdata,
)

LABEL = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,20}[A-Za-z0-9])?", fullmatch=True)
HOST = st.lists(LABEL, min_size=1, max_size=5).map(".".join)
IPV4 = st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t)))
PLAIN_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=600)


def parsed(rtype: str, target: str) -> str:
    """The slow path: dnspython's parse of the target, printed as records() prints it."""
    return rdata_to_target(rtype, target_to_rdata(rtype, target))


@given(IPV4)
def test_an_ipv4_address_is_its_own_canonical_form(address: str) -> None:
    assert canonical_target("A", address) == address == parsed("A", address)


@given(PLAIN_TEXT)
def test_plain_txt_reads_back_quoted_as_dnspython_prints_it(text: str) -> None:
    assert canonical_target("TXT", text) == parsed("TXT", text)
    quoted = f'"{text}"'
    assert canonical_target("TXT", quoted) == parsed("TXT", quoted)


@given(st.sampled_from(["CNAME", "NS", "PTR", "DNAME"]), HOST, st.booleans())
def test_a_host_name_target_reads_back_without_its_final_dot(rtype: str, host: str, dot: bool) -> None:
    target = host + "." if dot else host
    assert canonical_target(rtype, target) == parsed(rtype, target) == host


def test_canonical_target_rejects_garbage() -> None:
    assert canonical_target("AAAA", "2001:DB8:0::1") == "2001:db8::1"
    with pytest.raises(ValueError, match="invalid A target"):
        canonical_target("A", "hello")


@pytest.mark.parametrize(("rtype", "target", "back"), [
    ("MX", "10 Mail.Example.org.", "10 Mail.Example.org"),
    ("SRV", "0 5 5060 sip.example.org", "0 5 5060 sip.example.org"),
    ("CAA", '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'),
    ("TXT", '"a" "b"', '"a" "b"'),  # short strings stay apart
    ("TXT", '"' + "a" * 255 + '" "' + "b" * 10 + '"', '"' + "a" * 255 + "b" * 10 + '"'),  # a split long value is one
])
def test_other_types_through_dnspython(rtype: str, target: str, back: str) -> None:
    assert canonical_target(rtype, target) == back
    assert rdata_to_target(rtype, target_to_rdata(rtype, target)) == back


def test_a_long_raw_txt_is_split_in_255_byte_strings() -> None:
    rdata = target_to_rdata("TXT", "x" * 600)
    assert [len(s) for s in rdata.strings] == [255, 255, 90]  # type: ignore[attr-defined]


def test_presentation_names() -> None:
    assert presentation_name("WWW.Example.ORG.") == "www.example.org"
    assert presentation_name("with space.example.org") == "with\\032space.example.org"
    with pytest.raises(ProviderError, match="invalid DNS name"):
        presentation_name("a" * 64 + ".example.org")
