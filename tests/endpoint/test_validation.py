"""The one-match answers of `dns_name_problem` and `ip_targets_problem` equal the full checks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.endpoint.targets import parse_ip
from external_dns.endpoint.validation import (
    MAX_LABEL_LENGTH,
    MAX_NAME_LENGTH,
    dns_name_problem,
    ip_targets_problem,
)


def full_name_problem(name: str) -> str | None:
    """The label-by-label rules, without the one-match shortcut."""
    if not name or not name.strip():
        return "DNS name is empty"
    if name != name.strip():
        return "whitespace"
    body = name[:-1] if name.endswith(".") else name
    if not body:
        return "root"
    if len(body.encode("utf-8", "surrogatepass")) > MAX_NAME_LENGTH:
        return "long"
    for i, label in enumerate(body.split(".")):
        if not label:
            return "empty label"
        if len(label.encode("utf-8", "surrogatepass")) > MAX_LABEL_LENGTH:
            return "long label"
        if "*" in label and (i != 0 or label != "*"):
            return "wildcard"
    return None


labels = st.one_of(st.text("ab-_09*. ", min_size=0, max_size=8), st.text(min_size=0, max_size=3),
                   st.sampled_from(["a" * 63, "a" * 64, "*", "xn--bcher-kva", "é"]))
names = st.one_of(st.builds(".".join, st.lists(labels, max_size=6)),
                  st.builds(lambda n, dot: ".".join(["a" * 63] * n) + dot, st.integers(1, 5),
                            st.sampled_from(["", ".", "..", " "])),
                  st.text(max_size=20))


@settings(max_examples=3000, deadline=None)
@given(name=names)
def test_dns_name_problem_agrees_with_the_full_rules(name: str) -> None:
    assert (dns_name_problem(name) is None) == (full_name_problem(name) is None)


def full_ip_problem(record_type: str, targets: list[str]) -> str | None:
    for t in targets:
        addr = parse_ip(t)
        if addr is None:
            return f"invalid {record_type} record target: {t} is not a valid IP address"
        if record_type == "A" and addr.version == 6:
            return f"invalid A record target: {t} is an IPv6 address"
        if record_type == "AAAA" and addr.version == 4:
            return f"invalid AAAA record target: {t} is an IPv4 address"
    return None


octets = st.one_of(st.integers(0, 300).map(str), st.sampled_from(["01", "00", "1٣", "", "-1", "0x1", " 1"]))
addresses = st.one_of(st.builds(".".join, st.lists(octets, min_size=3, max_size=5)),
                      st.sampled_from(["::1", "::ffff:1.2.3.4", "1.2.3.4/32", "a.b.c.d", "fe80::1%eth0"]),
                      st.text("0123456789.:", max_size=16))


@settings(max_examples=2000, deadline=None)
@given(record_type=st.sampled_from(["A", "AAAA"]), targets=st.lists(addresses, max_size=3))
def test_ip_targets_problem_agrees_with_the_full_check(record_type: str, targets: list[str]) -> None:
    assert ip_targets_problem(record_type, targets) == full_ip_problem(record_type, targets)
