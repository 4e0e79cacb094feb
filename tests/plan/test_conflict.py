"""The PerResource conflict resolver (plan/conflict.py): which candidate wins a create or an update, a CNAME
discarded beside other types, and a plan row's current records."""

from __future__ import annotations

import pytest
import structlog

from external_dns.plan import PerResource, PlanRow
from tests.helpers.endpoints import ep


def test_resolve_create_picks_first_minimal() -> None:
    r = PerResource()
    v2, v1, v1b = ep("foo", "CNAME", "v2"), ep("foo", "CNAME", "v1"), ep("foo", "CNAME", "v1", resource="x")
    assert r.resolve_create([v2, v1, v1b]) is v1
    ip, host = ep("foo", "A", "1.2.3.4"), ep("foo", "CNAME", "1-2-3-4.example.com")
    assert r.resolve_create([host, ip]) is ip  # IPs before hostnames
    short, long = ep("foo", "A", "9.9.9.9"), ep("foo", "A", "1.1.1.1", "2.2.2.2")
    assert r.resolve_create([long, short]) is short  # shorter target list wins
    with pytest.raises(ValueError):
        r.resolve_create([])


def test_resolve_update_prefers_current_resource() -> None:
    r = PerResource()
    current = ep("foo", "CNAME", "old", resource="ingress/default/foo-v2")
    v1 = ep("foo", "CNAME", "v1", resource="ingress/default/foo-v1")
    v2 = ep("foo", "CNAME", "v2", resource="ingress/default/foo-v2")
    cands = [v1, v2]
    assert r.resolve_update(current, cands) is v2
    assert cands == [v1, v2]  # not reordered
    assert r.resolve_update(ep("foo", "CNAME", "old", resource="other"), [v2, v1]) is v1
    # A current record without a resource label matches a candidate without one.
    unlabelled = ep("foo", "CNAME", "z")
    assert r.resolve_update(ep("foo", "CNAME", "old"), [v1, unlabelled]) is unlabelled


def test_resolve_update_among_same_resource_takes_smallest() -> None:
    r = PerResource()
    current = ep("foo", "A", "3.3.3.3", resource="svc")
    a, b = ep("foo", "A", "2.2.2.2", resource="svc"), ep("foo", "A", "1.1.1.1", resource="svc")
    assert r.resolve_update(current, [a, b]) is b


def test_resolve_record_types_discards_cname_on_conflict() -> None:
    r = PerResource()
    cur_cname = ep("foo", "CNAME", "lb")
    cname, a = ep("foo", "CNAME", "v1"), ep("foo", "A", "1.1.1.1")
    row = PlanRow.build([cur_cname], [cname, a])
    with structlog.testing.capture_logs() as logs:
        out = r.resolve_record_types(("foo.", ""), row)
    assert out["CNAME"].current is cur_cname and out["CNAME"].candidates == []
    assert out["A"].candidates == [a]
    assert any(e["event"] == "Domain foo. contains conflicting record type candidates; discarding CNAME record" for e in logs)
    assert row.records["CNAME"].candidates == [cname]  # row untouched
    # No conflict: the same mapping comes back.
    plain = PlanRow.build([], [ep("foo", "A", "1.1.1.1"), ep("foo", "AAAA", "::1")])
    assert r.resolve_record_types(("foo.", ""), plain) is plain.records
    single = PlanRow.build([], [cname])
    assert r.resolve_record_types(("foo.", ""), single) is single.records


def test_plan_row_last_current_of_a_type_wins() -> None:
    a1, a2 = ep("foo", "A", "1.1.1.1"), ep("foo", "A", "2.2.2.2")
    row = PlanRow.build([a1, a2], [])
    assert row.records["A"].current is a2 and row.current == [a1, a2]
