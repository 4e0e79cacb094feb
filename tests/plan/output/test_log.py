"""The log output (plan/output/log.py): zones in order, each zone's safety lines, deletes then creates then updates,
an update's old and new TTL and values, the summary line."""

from __future__ import annotations

from external_dns.plan.output import render
from tests.plan.output.sample import fixed_plan


def test_log_order_and_update_shows_old_and_new() -> None:
    lines = render("log", fixed_plan()).splitlines()
    assert lines[0] == "Plan for zone example.com."
    org = lines[lines.index("Plan for zone example.org.") + 1:]
    assert org[0].startswith("Safety: UNSAFE, not applied without --force: Too many deletes")
    assert org[1].startswith("Thresholds: updates 2/12 = 16.67% (threshold 30.00%), deletes 3/12 = 25.00%")
    org = org[2:]
    ops = [line.split()[0] for line in org[:-1]]
    assert ops == ["Delete"] * 3 + ["Create"] * 3 + ["Update"] * 2
    assert org[0] == "Delete old.example.org A 300 10.0.0.9"
    assert org[1] == "Delete old.example.org AAAA 300 2001:db8::9"
    assert org[2] == "Delete zz.example.org AAAA 300 2001:db8::1"
    assert org[3].startswith("Create *.apps.example.org CNAME 60")
    assert "Update api.example.org A 300 10.0.0.3 -> 600 10.0.0.4;10.0.0.5" in org
    assert "Update web.example.org A [blue] 300 10.0.1.1 -> 300 10.0.1.2" in org
    assert org[-1] == "Summary: Creates=3, Updates=2, Deletes=3, Existing=12"
