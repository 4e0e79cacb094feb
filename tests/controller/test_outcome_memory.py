"""The zone controller's outcome history does not keep old syncs' changes alive: only the newest FULL_RESULTS
outcomes keep their RunResult's changes and change lines (a first sync of a big zone would otherwise hold
every created endpoint for the life of the process); the newest one always keeps them."""

from __future__ import annotations

import time

from external_dns.controller.controller import RunResult
from external_dns.controller.zone_controller import FULL_RESULTS, ZoneOutcome
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from tests.controller.test_zone_controller import make


def _result(i: int) -> RunResult:
    changes = Changes(create=[Endpoint(dns_name=f"h{i}.a.test", record_type="A", targets=Targets(["10.0.0.1"]))])
    return RunResult(changes=changes, applied=True, dry_run=False, current_count=i, desired_count=i + 1,
                     zone="a.test", change_lines=[f"CREATE h{i}.a.test A 10.0.0.1"])


def test_old_outcomes_release_their_changes_the_newest_keep_them() -> None:
    zc, _source, _provider = make(["a.test"], [])
    now = time.monotonic()
    first = _result(0)
    zc._record(ZoneOutcome("a.test", True, now, now, result=first))
    zc._record(ZoneOutcome("a.test", False, now, now, error="boom"))  # no result: not counted
    for i in range(1, FULL_RESULTS):
        zc._record(ZoneOutcome("a.test", True, now, now, result=_result(i)))
    assert first.created == 1 and first.change_lines  # still among the newest FULL_RESULTS results
    zc._record(ZoneOutcome("a.test", True, now, now, result=_result(FULL_RESULTS)))
    outcomes = zc.outcomes("a.test")
    assert len(outcomes) == FULL_RESULTS + 2  # the history itself is unchanged
    old = outcomes[0].result
    assert old is first and not old.has_changes and old.change_lines == []
    assert (old.applied, old.current_count, old.desired_count, old.zone) == (True, 0, 1, "a.test")
    kept = [o.result for o in outcomes[2:]]
    assert all(r is not None and r.created == 1 and len(r.change_lines) == 1 for r in kept)
    newest = outcomes[-1].result
    assert newest is not None and newest.changes.create[0].dns_name == f"h{FULL_RESULTS}.a.test"
