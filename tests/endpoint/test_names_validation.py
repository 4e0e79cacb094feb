"""normalize_dns_name / IDNA helpers and the name / record validation helpers."""

from __future__ import annotations

import pytest

from external_dns.endpoint import (
    InvalidDNSNameError,
    MXTarget,
    SRVTarget,
    dns_name_problem,
    is_valid_dns_name,
    new_mx_record,
    new_srv_record,
    normalize_dns_name,
    to_unicode_name,
    validate_dns_name,
)


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("Foo.Example.com", "foo.example.com."),
        ("foo.example.com.", "foo.example.com."),
        ("  foo.example.com ", "foo.example.com."),
        ("_acme-challenge.Example.com", "_acme-challenge.example.com."),
        ("*.example.com", "*.example.com."),
        ("bücher.de", "xn--bcher-kva.de."),
        ("*.BÜCHER.de", "*.xn--bcher-kva.de."),
        ("Straße.de", "strasse.de."),  # transitional processing, as Go's profile
        ("a\u3002b.com", "a.b.com."),  # ideographic full stop maps to '.'
        ("", "."),
    ],
)
def test_normalize_dns_name(name: str, want: str) -> None:
    assert normalize_dns_name(name) == want


def test_to_unicode_name() -> None:
    assert to_unicode_name("XN--BCHER-KVA.de.") == "bücher.de."
    assert to_unicode_name("Example.COM") == "example.com"
    assert to_unicode_name("xn--invalid-.example.com").endswith(".example.com")  # lenient per label


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "empty"),
        ("a..b", "empty label"),
        (f"{'a' * 64}.com", "longer than 63"),
        (".".join(["a" * 63] * 4), "longer than 253"),
        ("a.*.com", "'*'"),
        ("*a.com", "'*'"),
        (" a.com", "whitespace"),
        (".", "root"),
    ],
)
def test_dns_name_problems(name: str, fragment: str) -> None:
    problem = dns_name_problem(name)
    assert problem is not None and fragment in problem
    assert not is_valid_dns_name(name)
    with pytest.raises(InvalidDNSNameError, match="annotation hostname"):
        validate_dns_name(name, "annotation hostname")


@pytest.mark.parametrize(
    "name", ["a.com", "a.com.", "*.a.com", f"{'a' * 63}.com", "_srv._tcp.a.com", ".".join(["a" * 62] * 4)]
)
def test_valid_names(name: str) -> None:
    assert dns_name_problem(name) is None
    assert validate_dns_name(name) == name


def test_mx_and_srv_parsing() -> None:
    assert new_mx_record("10 mail.example.com") == MXTarget(10, "mail.example.com")
    assert new_srv_record("1 2 5060 sip.example.com.") == SRVTarget(1, 2, 5060, "sip.example.com.")
    for bad in ("mail.example.com", "+1 mail.example.com", "70000 mail.example.com", "1 a b"):
        with pytest.raises(ValueError, match=r"MX|integer"):
            new_mx_record(bad)
    for bad in ("1 2 3", "1 2 x host.", "1 2 3 host", "1 2 65536 host."):
        with pytest.raises(ValueError, match="SRV"):
            new_srv_record(bad)
