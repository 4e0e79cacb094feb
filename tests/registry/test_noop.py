"""NoopRegistry: records pass through without ownership, and no TXT is written."""

from __future__ import annotations

from external_dns.plan.changes import Changes
from external_dns.registry import NoopRegistry
from tests.registry.fakes import DictProvider, ep, owner_txt, txt


def test_noop_passes_through_without_ownership() -> None:
    p = DictProvider([ep("a.example.com", "A", "1.1.1.1"), txt("a-a.example.com", owner_txt("x"))])
    reg = NoopRegistry(p)
    assert reg.owner_id() == ""
    got = reg.records()
    assert sorted((e.dns_name, e.record_type) for e in got) == [("a-a.example.com", "TXT"), ("a.example.com", "A")]
    assert all(e.labels == {} for e in got)
    reg.apply_changes(Changes(create=[ep("b.example.com", "A", "2.2.2.2")]))
    assert [e.dns_name for e in p.applied[-1].create] == ["b.example.com"]  # no TXT added
    assert p.applied[-1].create[0].labels == {}
