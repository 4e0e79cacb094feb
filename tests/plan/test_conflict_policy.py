"""PerResource conflict resolver, policies, provider-specific update table, Changes helpers."""

from __future__ import annotations

import pytest
import structlog

from external_dns.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.plan import (
    POLICIES,
    Changes,
    CreateOnlyPolicy,
    PerResource,
    PlanRow,
    SyncPolicy,
    UpsertOnlyPolicy,
    get_policy,
    should_update_provider_specific,
    should_update_ttl,
    targets_changed,
)
from tests.helpers.endpoints import ep

# -- PerResource ------------------------------------------------------------------------------------------------


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


# -- update predicates --------------------------------------------------------------------------------------------


def _ps(*pairs: tuple[str, str]) -> list[ProviderSpecificProperty]:
    return [ProviderSpecificProperty(n, v) for n, v in pairs]


@pytest.mark.parametrize(
    ("current", "desired", "want"),
    [
        ((("aws/evaluate-target-health", "true"),), (("aws/evaluate-target-health", "true"),), False),
        ((("custom/property", "true"),), (("custom/property", "true"),), False),
        ((("custom/property", "true"),), (("custom/property", "false"),), True),
        ((("custom/property", "true"),), (("new/property", "true"),), True),
        ((), (), False),
        ((), (("added", "x"),), True),
        ((("removed", "x"),), (), True),
        ((("a", "1"), ("b", "2")), (("b", "2"), ("a", "1")), False),  # order-insensitive
        ((("a", "1"),), (("A", "1"),), True),  # names compared exactly
    ],
)
def test_should_update_provider_specific(
    current: tuple[tuple[str, str], ...], desired: tuple[tuple[str, str], ...], want: bool
) -> None:
    c = Endpoint("foo.com", "A", provider_specific=_ps(*current))
    d = Endpoint("bar.com", "A", provider_specific=_ps(*desired))
    assert should_update_provider_specific(d, c) is want


def test_ttl_and_target_predicates() -> None:
    assert should_update_ttl(ep("a", "A", ttl=300), ep("a", "A", ttl=0))
    assert not should_update_ttl(ep("a", "A", ttl=0), ep("a", "A", ttl=300))
    assert not should_update_ttl(ep("a", "A", ttl=300), ep("a", "A", ttl=300))
    assert targets_changed(ep("a", "A", "1.1.1.1"), ep("a", "A", "2.2.2.2"))
    assert not targets_changed(ep("a", "CNAME", "LB.x"), ep("a", "CNAME", "lb.x"))


# -- policies ---------------------------------------------------------------------------------------------------


def _changes() -> Changes:
    return Changes(
        create=[ep("c", "A", "1.1.1.1")],
        update_old=[ep("u", "A", "1.1.1.1")],
        update_new=[ep("u", "A", "2.2.2.2")],
        delete=[ep("d", "A", "1.1.1.1")],
    )


def test_policies() -> None:
    ch = _changes()
    s = SyncPolicy().apply(ch)
    assert (len(s.create), len(s.update_old), len(s.update_new), len(s.delete)) == (1, 1, 1, 1)
    u = UpsertOnlyPolicy().apply(ch)
    assert (len(u.create), len(u.update_old), len(u.update_new), len(u.delete)) == (1, 1, 1, 0)
    c = CreateOnlyPolicy().apply(ch)
    assert (len(c.create), len(c.update_old), len(c.update_new), len(c.delete)) == (1, 0, 0, 0)
    assert len(ch.delete) == 1  # input untouched
    assert set(POLICIES) == {"sync", "upsert-only", "create-only"}
    assert isinstance(get_policy("upsert-only"), UpsertOnlyPolicy)
    with pytest.raises(ValueError, match="unknown policy: foo"):
        get_policy("foo")


# -- Changes -----------------------------------------------------------------------------------------------------


def test_changes_has_changes_and_json() -> None:
    assert not Changes().has_changes()
    same = Changes(update_old=[ep("u", "A", "1.1.1.1")], update_new=[ep("u", "A", "1.1.1.1")])
    assert not same.has_changes()
    assert _changes().has_changes()
    data = _changes().to_json()
    assert set(data) == {"create", "updateOld", "updateNew", "delete"}
    back = Changes.from_json(data)
    assert back.to_json() == data
