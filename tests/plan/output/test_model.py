"""The plan as every output sees it (plan/output/model.py): rows in output order with TTLs shown as they will be,
the zone's summary line and its name as octoDNS prints it, the plan's facts, and the safety texts that must read
the same in every output."""

from __future__ import annotations

from external_dns.plan.changes import Changes
from external_dns.plan.output.model import (
    PlanMeta,
    Row,
    Side,
    ZonePlan,
    figures_text,
    plan_verdict_text,
    problem_text,
    rows,
    verdict_text,
    zones_with_changes,
)
from external_dns.plan.safety import RootNsChangeError, Thresholds, assess
from tests.helpers.endpoints import ep

CHANGES = Changes(
    create=[ep("b.example.org", "A", "10.0.0.2"), ep("A.example.org", "TXT", "t", ttl=60)],
    update_old=[ep("z.example.org", "A", "10.0.0.1", ttl=300), ep("m.example.org", "A", "10.0.0.1", set_id="eu")],
    update_new=[ep("z.example.org", "A", "10.0.0.9", ttl=60), ep("m.example.org", "A", "10.0.0.8", set_id="eu")],
    delete=[ep("old.example.org", "CNAME", "x.example.net")],
)


def test_rows_deletes_then_creates_then_updates_each_sorted() -> None:
    assert rows(CHANGES, default_ttl=300) == [
        Row("Delete", "old.example.org", "CNAME", "", Side(300, ("x.example.net",)), None),
        Row("Create", "A.example.org", "TXT", "", None, Side(60, ("t",))),  # sorted without case
        Row("Create", "b.example.org", "A", "", None, Side(300, ("10.0.0.2",))),
        Row("Update", "m.example.org", "A", "eu", Side(300, ("10.0.0.1",)), Side(300, ("10.0.0.8",))),
        Row("Update", "z.example.org", "A", "", Side(300, ("10.0.0.1",)), Side(60, ("10.0.0.9",))),
    ]
    assert rows(CHANGES)[0].old == Side(0, ("x.example.net",))  # no default known: 0 as it is


def test_zone_plan_summary_and_zones_with_changes() -> None:
    plan = ZonePlan("Example.org", CHANGES, existing=12)
    assert plan.summary() == "Creates=2, Updates=2, Deletes=1, Existing=12"
    assert plan.display_name == "example.org." and plan.has_changes and plan.safe
    quiet = ZonePlan("a.test", Changes())
    later = ZonePlan("z.test", CHANGES)
    assert zones_with_changes([later, quiet, plan]) == [plan, later]


def test_plan_meta_text() -> None:
    assert PlanMeta("cluster-a", 1796083200.0).text() == "Owner ID cluster-a, made 2026-12-01T00:00:00Z"
    assert PlanMeta(generated_at=1796083200.0).text() == "Made 2026-12-01T00:00:00Z"
    assert PlanMeta("cluster-a").text() == "Owner ID cluster-a" and PlanMeta().text() == ""


def test_safety_texts_of_a_refused_a_forced_and_a_safe_plan() -> None:
    th = Thresholds(update=0.1, delete=0.1, min_existing=10)
    deletes = Changes(delete=[ep(f"d{i}.example.org", "A", "10.0.0.1") for i in range(3)],
                      create=[ep("new.example.org", "A", "10.0.0.1")])
    refused = ZonePlan("example.org", deletes, existing=20, verdict=assess("example.org", deletes, 20, th))
    assert not refused.safe
    assert verdict_text(refused) == ("UNSAFE, not applied without --force: Too many deletes, 15.00% is over 10.00% "
                                     "(3/20), force required")
    assert figures_text(refused) == ("updates 0/20 = 0.00% (threshold 10.00%), deletes 3/20 = 15.00% (threshold "
                                     "10.00%) of the existing records; creates 1 (never limited)")
    small = ZonePlan("small.test", deletes, existing=4, verdict=assess("small.test", deletes, 4, th))
    assert small.safe and verdict_text(small) == "Safe"
    assert figures_text(small) == ("updates 0, deletes 3 of 4 existing: not checked against the thresholds "
                                   "(10.00% / 10.00%) under 10 existing records; creates 1 (never limited)")
    assert plan_verdict_text([small, refused]) == "UNSAFE: 1 zone(s) need --force (example.org.)"
    forced = ZonePlan("example.org", deletes, existing=20, verdict=refused.verdict, forced=True)
    assert verdict_text(forced).startswith("UNSAFE, applied with --force: Too many deletes")
    assert plan_verdict_text([forced, small]) == "UNSAFE: 1 zone(s) applied with --force (example.org.)"
    assert plan_verdict_text([small]) == "Safe"
    unjudged = ZonePlan("example.org", deletes)
    assert verdict_text(unjudged) == figures_text(unjudged) == plan_verdict_text([unjudged]) == ""


def test_problem_text_drops_the_zone_prefix() -> None:
    assert problem_text(RootNsChangeError("example.org")) == "Root NS record change, force required"
