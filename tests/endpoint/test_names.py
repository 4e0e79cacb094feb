"""endpoint/names.py: the key names are compared by (`name_key`) and the lexical patterns, each held against an
independent reference: the plan's row name (`normalize_dns_name`), dnspython, `ipaddress`, and the rules read
label by label."""

from __future__ import annotations

import ipaddress
import string

import dns.name
from hypothesis import example, given
from hypothesis import strategies as st

from external_dns.endpoint.names import (
    HOST_NAME,
    IPV4,
    PLAIN_NAME,
    UNESCAPED_NAME,
    WILDCARD_PLAIN_NAME,
    name_key,
    normalize_dns_name,
)

ASCII_LABEL = string.ascii_letters + string.digits + "-_"
# Characters a name or an address may hold, plus near misses: other scripts' digits and letters, blanks,
# escapes, a star, a fullwidth dot.
NEAR = ASCII_LABEL + "*.é\u0661\uff15 \t\n\\\uff0e"

labels = st.text(alphabet=ASCII_LABEL, min_size=1, max_size=12)
plain_names = st.lists(labels, min_size=1, max_size=5).map(".".join)
dots = st.sampled_from(["", ".", "..", "..."])
# labels around the 63-octet limit and empty ones, of near-miss characters
edge_labels = st.one_of(st.text(alphabet=NEAR, max_size=6),
                        st.integers(61, 65).map(lambda n: "a" * n), st.just("*"), st.just("-a"), st.just("a-"))
edge_names = st.tuples(st.lists(edge_labels, min_size=1, max_size=4).map(".".join), dots).map("".join)


# -- name_key -----------------------------------------------------------------------------------------------------
def test_examples() -> None:
    assert name_key("WWW.Example.org.") == "www.example.org"
    assert name_key("A.example.org..") == "a.example.org"
    assert name_key(".") == "" == name_key("")


@given(st.one_of(st.text(max_size=30), st.tuples(plain_names, dots).map("".join)))
@example("A.example.org..")
def test_name_key_is_idempotent(name: str) -> None:
    """Keys cross layers that key them again (dirty names -> registry -> snapshot): a key keys to itself, as
    the same string object (maps keyed by it share one string per name)."""
    key = name_key(name)
    assert name_key(key) is key


@given(st.tuples(plain_names, dots).map("".join))
def test_name_key_folds_case(name: str) -> None:
    assert name_key(name.upper()) == name_key(name.lower()) == name_key(name) == name_key(name).lower()


@given(st.text(max_size=30), st.integers(0, 3))
def test_name_key_drops_every_trailing_dot(name: str, extra: int) -> None:
    key = name_key(name)
    assert not key.endswith(".")
    assert name_key(name + "." * extra) == key
    assert key.lower() == name.lower().rstrip(".")


@given(st.tuples(plain_names, dots).map("".join), st.tuples(plain_names, dots).map("".join))
@example("a.example.org..", "a.example.org.")
def test_one_plan_row_one_key(a: str, b: str) -> None:
    """Names the plan puts in one row (`normalize_dns_name`) share their key, so a by-name read finds every row
    the plan may hold for a name; for a name with at most one trailing dot the key is the row name without it."""
    if normalize_dns_name(a) == normalize_dns_name(b):
        assert name_key(a) == name_key(b)
    if not a.endswith(".."):
        assert name_key(a) + "." == normalize_dns_name(a)


@given(st.tuples(plain_names, st.sampled_from(["", "."])).map("".join))
def test_name_key_names_the_same_dns_name(name: str) -> None:
    """dnspython (names compare case-insensitively) reads the key and the name as one DNS name."""
    if len(name.rstrip(".")) <= 253:
        assert dns.name.from_text(name_key(name), origin=dns.name.root) == dns.name.from_text(name, origin=dns.name.root)


# -- IPv4 -----------------------------------------------------------------------------------------------------------
def _ipaddress_reads(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


quads = st.lists(st.one_of(st.integers(0, 300).map(str), st.text(alphabet="0123456789\u0661\uff15 x", max_size=4)),
                 min_size=3, max_size=5).map(".".join)


@given(st.one_of(st.ip_addresses(v=4).map(str), quads, st.text(alphabet="0123456789.\u0661\uff15 x\n", max_size=16)))
@example("01.2.3.4")
@example("\u0661.2.3.4")
@example("1.2.3.4\n")
def test_ipv4_is_what_ipaddress_reads(text: str) -> None:
    """A dotted quad exactly as `ipaddress` reads it: octets 0-255, no leading zeros, ASCII digits only (`\\d`
    would take other scripts' digits, which `ipaddress`, `inet_aton` and dnspython refuse); and its form is
    the canonical one."""
    matched = IPV4.fullmatch(text) is not None
    assert matched == _ipaddress_reads(text)
    if matched:
        assert str(ipaddress.IPv4Address(text)) == text


# -- names ----------------------------------------------------------------------------------------------------------
def _labels(name: str) -> list[str]:
    return (name[:-1] if name.endswith(".") else name).split(".")


def _plain(name: str, chars: str) -> bool:
    return all(1 <= len(label) <= 63 and all(c in chars for c in label) for label in _labels(name))


def _host_label(label: str) -> bool:
    ldh = string.ascii_letters + string.digits + "-"
    return (1 <= len(label) <= 63 and all(c in ldh for c in label)
            and label[0] != "-" and label[-1] != "-")


@given(st.one_of(edge_names, st.tuples(plain_names, dots).map("".join)))
@example("*.example.org")
@example("a" * 63 + ".org.")
@example("a" * 64 + ".org")
def test_name_patterns_follow_their_rules_label_by_label(name: str) -> None:
    assert (PLAIN_NAME.fullmatch(name) is not None) == _plain(name, ASCII_LABEL)
    assert (UNESCAPED_NAME.fullmatch(name) is not None) == _plain(name, ASCII_LABEL + "*")
    assert (WILDCARD_PLAIN_NAME.fullmatch(name) is not None) == (
        _plain(name, ASCII_LABEL) or (name.startswith("*.") and _plain(name[2:], ASCII_LABEL)))
    body = name[2:] if name.startswith("*.") else name
    assert (HOST_NAME.fullmatch(name) is not None) == all(_host_label(label) for label in _labels(body))


@given(st.one_of(edge_names, st.tuples(plain_names, dots).map("".join)))
def test_a_name_the_patterns_take_is_spelled_as_dnspython_spells_it(name: str) -> None:
    """What the patterns take needs no escapes and no IDNA: dnspython reads it and writes the same text back
    (zone files and UPDATEs carry it as it is)."""
    if UNESCAPED_NAME.fullmatch(name) is None or len(name.rstrip(".")) > 253:
        return
    read = dns.name.from_text(name, origin=dns.name.root)
    assert read.to_text(omit_final_dot=True) == (name[:-1] if name.endswith(".") else name)
    assert all(len(label) <= 63 for label in read.labels)
