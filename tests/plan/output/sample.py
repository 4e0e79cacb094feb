"""One fixed plan every output renders (a refused zone, a zone without changes, one with a TTL-less create), its
meta and where its golden renderings are, for the plan output tests."""

from __future__ import annotations

from pathlib import Path

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.output import PlanMeta, ZonePlan
from external_dns.plan.safety import Thresholds, assess
from tests.helpers import endpoints

GOLDEN = Path(__file__).parent / "golden"  # regenerated with UPDATE_GOLDEN=1 (test_output.py)


def ep(name: str, rtype: str, ttl: int, *targets: str, set_id: str = "") -> Endpoint:
    return endpoints.ep(name, rtype, *targets, ttl=ttl, set_id=set_id, owner="golden", resource="service/default/web")


def fixed_plan() -> list[ZonePlan]:
    org = Changes(
        create=[
            ep("www.example.org", "A", 300, "10.0.0.1", "10.0.0.2"),
            ep("*.apps.example.org", "CNAME", 60, "lb.example.net"),
            ep("note.example.org", "TXT", 300, '"<script>alert(1)</script> & a|b"'),
        ],
        update_old=[ep("web.example.org", "A", 300, "10.0.1.1", set_id="blue"),
                    ep("api.example.org", "A", 300, "10.0.0.3")],
        update_new=[ep("web.example.org", "A", 300, "10.0.1.2", set_id="blue"),
                    ep("api.example.org", "A", 600, "10.0.0.4", "10.0.0.5")],
        delete=[ep("zz.example.org", "AAAA", 300, "2001:db8::1"), ep("old.example.org", "A", 300, "10.0.0.9"),
                ep("old.example.org", "AAAA", 300, "2001:db8::9")],
    )
    com = Changes(create=[ep("example.com", "A", 0, "192.0.2.10")])
    # example.org is refused: 3 of 12 deleted is over a 20 % delete threshold
    return [ZonePlan("example.org", org, existing=12, verdict=assess("example.org", org, 12, Thresholds(delete=0.2))),
            ZonePlan("example.net", Changes(), existing=3, verdict=assess("example.net", Changes(), 3, Thresholds())),
            ZonePlan("example.com", com, existing=0, verdict=assess("example.com", com, 0, Thresholds()))]


META = PlanMeta(owner_id="golden", generated_at=1796083200.0)  # 2026-12-01T00:00:00Z
