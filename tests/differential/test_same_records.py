"""The Go ExternalDNS v0.22.0 and this project, side by side: the same objects on the API server, the same zones
on BIND9 (a server per program, same named and configuration), both `--once` with the same flags; the two zones
must hold the same records, ownership TXT included, after the first run, after a second run (which must send
nothing) and after a change and a run. Scenarios: tests/differential/scenarios.py. Differences kept on purpose
are not in this list: each has its own test in test_kept_differences.py asserting the difference
(docs/migrating.md).
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from tests.differential.harness import Outcome
from tests.differential.scenarios import SAME, Scenario
from tests.differential.zones import comparable

pytestmark = pytest.mark.integration
OUTCOME_TIMEOUT = 240.0  # one scenario: a few runs of each program; the lanes run ahead of the tests


@pytest.mark.parametrize("scenario", SAME, ids=[s.id for s in SAME])
def test_same_records(scenario: Scenario, same_outcomes: dict[str, Future[Outcome]]) -> None:
    outcome = same_outcomes[scenario.id].result(timeout=OUTCOME_TIMEOUT)
    problems = [f"{step.name}:\n{step.difference()}" for step in outcome.steps if step.difference()]
    problems += [f"{program} sent an UPDATE on the second run (zones {zones})"
                 for program, zones in outcome.noop_writes.items()]
    assert not problems, "\n\n".join(problems)
    # the scenario exercised something: a run wrote records, or the change moved them
    first, changed = outcome.step("first run").py, outcome.step("after the change").py
    assert first != comparable(scenario.seed, scenario.aes_key) or changed != first, "nothing was written"
