"""RFC2136 target conversions (providers/rfc2136/targets.py): canonical forms, long TXT values split and joined,
bad targets as value errors."""

from __future__ import annotations

import pytest

from external_dns.providers.rfc2136.targets import canonical_target, to_rdata, txt_targets, unquote_txt


@pytest.mark.parametrize(("rtype", "target", "canonical"), [
    ("A", "10.0.0.1", "10.0.0.1"),
    ("AAAA", "2001:0db8:0000::0001", "2001:db8::1"),
    ("CNAME", "Target.Example.COM.", "target.example.com"),
    ("CNAME", "target.example.com", "target.example.com"),
    ("MX", "10 Mail.Example.net.", "10 mail.example.net"),
    ("SRV", "0 5 443 svc.example.net", "0 5 443 svc.example.net"),
    ("NS", "ns1.example.net.", "ns1.example.net"),
    ("TXT", '"heritage=external-dns,external-dns/owner=x"', "heritage=external-dns,external-dns/owner=x"),
    ("TXT", 'plain "inner" text', 'plain "inner" text'),
    ("TXT", '"escaped \\"inner\\" \\\\ text"', 'escaped "inner" \\ text'),
    ("A", "not-an-ip", "not-an-ip"),  # unparsable targets are left for apply_changes to report
])
def test_canonical_targets(rtype: str, target: str, canonical: str) -> None:
    assert canonical_target(rtype, target) == canonical


def test_txt_long_values_split_and_join() -> None:
    value = "v" * 600
    rd = to_rdata("TXT", value)
    strings = rd.strings  # type: ignore[attr-defined]
    assert [len(s) for s in strings] == [255, 255, 90]
    assert txt_targets(rd) == [value]
    two = to_rdata("TXT", "x")
    assert txt_targets(two) == ["x"]
    assert unquote_txt('"') == '"' and unquote_txt('""') == ""


def test_invalid_targets_are_value_errors() -> None:
    with pytest.raises(ValueError, match="invalid MX target"):
        to_rdata("MX", "mail.example.com")
    with pytest.raises(ValueError, match="unsupported record type"):
        to_rdata("SOA", "x")
