"""The zone controller's outcome history does not keep old syncs' changes alive: each zone's newest result keeps
its changes and change lines (unless over RESULT_MAX), and so do the newest others within FULL_RESULTS outcomes and CHANGE_BUDGET
changes; older ones release them (a first sync of a big zone would otherwise hold every created endpoint for
the life of the process). Status, timings and counts of the zone stay."""

from __future__ import annotations

import time

from external_dns.controller.controller import RunResult
from external_dns.controller.zone_controller import (
    CHANGE_BUDGET,
    FULL_RESULTS,
    RESULT_MAX,
    ZoneController,
    ZoneOutcome,
)
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from tests.controller.test_zone_controller import make


def _result(i: int, zone: str = "a.test", creates: int = 1) -> RunResult:
    changes = Changes(create=[Endpoint(dns_name=f"h{i}-{k}.{zone}", record_type="A", targets=Targets(["10.0.0.1"]))
                              for k in range(creates)])
    return RunResult(changes=changes, applied=True, dry_run=False, current_count=i, desired_count=i + creates,
                     zone=zone, change_lines=[f"CREATE h{i}-{k}.{zone} A 10.0.0.1" for k in range(creates)])


def _record(zc: ZoneController, zone: str, result: RunResult | None) -> None:
    now = time.monotonic()
    zc.loop.settle(zc._ended(ZoneOutcome(zone, result is not None, now, now, result=result,
                                         error="" if result else "boom")))


def test_old_outcomes_release_their_changes_the_newest_keep_them() -> None:
    zc, _source, _provider = make(["a.test"], [])
    first = _result(0)
    _record(zc, "a.test", first)
    _record(zc, "a.test", None)  # no result: not counted
    for i in range(1, FULL_RESULTS):
        _record(zc, "a.test", _result(i))
    assert first.created == 1 and first.change_lines  # still among the newest FULL_RESULTS results
    _record(zc, "a.test", _result(FULL_RESULTS))
    outcomes = zc.outcomes("a.test")
    assert len(outcomes) == FULL_RESULTS + 2  # the history itself is unchanged
    old = outcomes[0].result
    assert old is first and not old.has_changes and old.change_lines == []
    assert (old.applied, old.current_count, old.desired_count, old.zone) == (True, 0, 1, "a.test")
    kept = [o.result for o in outcomes[2:]]
    assert all(r is not None and r.created == 1 and len(r.change_lines) == 1 for r in kept)
    newest = outcomes[-1].result
    assert newest is not None and newest.changes.create[0].dns_name == f"h{FULL_RESULTS}-0.a.test"


def test_a_big_first_sync_is_released_by_the_next_result_of_its_zone_not_by_other_zones() -> None:
    zc, _source, _provider = make(["a.test", "b.test"], [])
    big = _result(0, "a.test", creates=CHANGE_BUDGET + 1)
    _record(zc, "a.test", big)
    _record(zc, "b.test", _result(1, "b.test"))
    assert big.created == CHANGE_BUDGET + 1  # the newest of its zone: kept, whatever its size
    _record(zc, "a.test", _result(2, "a.test", creates=0))  # a no-op pass of the same zone
    assert big.created == 0 and big.change_lines == [] and big.desired_count == CHANGE_BUDGET + 1
    b_newest = zc.outcomes("b.test")[-1].result
    assert b_newest is not None and b_newest.created == 1


def test_a_result_over_the_maximum_keeps_no_changes_even_the_newest() -> None:
    zc, _source, _provider = make(["a.test"], [])
    huge = _result(0, "a.test", creates=RESULT_MAX + 1)
    _record(zc, "a.test", huge)
    assert huge.created == 0 and huge.change_lines == [] and huge.desired_count == RESULT_MAX + 1
    assert huge.applied and zc.outcomes("a.test")[-1].result is huge
