"""ZoneSnapshot bookkeeping without a server."""

from __future__ import annotations

from external_dns.providers.rfc2136.snapshot import Addition, Removal, ZoneSnapshot


def view(s: ZoneSnapshot) -> set[tuple[str, str, int, tuple[str, ...]]]:
    return {(e.dns_name, e.record_type, e.record_ttl, tuple(e.targets)) for e in s.endpoints()}


def test_fold_removals_then_additions_with_rrset_ttl() -> None:
    s = ZoneSnapshot("example.org", 1)
    s.add("Www.example.org", "A", 300, ["10.0.0.1", "10.0.0.2"])
    assert s.apply_message([Removal("www.example.org", "A", ["10.0.0.1"])],
                           [Addition("www.example.org", "A", 60, ["10.0.0.3"]),
                            Addition("new.example.org", "TXT", 0, ["v"])])
    # The rrset takes the TTL of the last addition, and the existing spelling of the name.
    assert view(s) == {("Www.example.org", "A", 60, ("10.0.0.2", "10.0.0.3")), ("new.example.org", "TXT", 0, ("v",))}
    assert s.apply_message([Removal("www.example.org", "A", None), Removal("new.example.org", "TXT", ["v"])], [])
    assert view(s) == set() and len(s) == 0


def test_uncertain_outcomes_are_reported() -> None:
    s = ZoneSnapshot("example.org", 1)
    s.add("c.example.org", "CNAME", 0, ["t.example.net"])
    assert not s.apply_message([], [Addition("c.example.org", "A", 0, ["10.0.0.1"])])
    s2 = ZoneSnapshot("example.org", 1)
    assert not s2.apply_message([Removal("example.org", "NS", ["ns1.example.org"])], [])
