"""The Go ExternalDNS v0.22.0 and this project, side by side: the same objects on the API server, the same zones
on BIND9 (a server per program, same named and configuration), both `--once` with the same flags; the two zones
must hold the same records, ownership TXT included, after the first run, after a second run (which must send
nothing) and after a change and a run. Scenarios: tests/differential/scenarios.py. Differences kept on purpose
are not in this list: each has its own test in test_kept_differences.py asserting the difference
(docs/migrating.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential.cluster import Cluster
from tests.differential.harness import Sides, run_scenario
from tests.differential.programs import Program
from tests.differential.scenarios import SAME, Scenario
from tests.differential.zones import comparable

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("scenario", SAME, ids=[s.id for s in SAME])
def test_same_records(scenario: Scenario, go_side: Program, py_side: Program, diff_cluster: Cluster,
                      tmp_path: Path) -> None:
    namespace = f"diff-{scenario.id}"[:63].rstrip("-")
    kubeconfig = diff_cluster.write_kubeconfig(tmp_path / "kubeconfig", namespace)
    outcome = run_scenario(Sides(go_side, py_side, diff_cluster, namespace, kubeconfig), scenario)
    problems = [f"{step.name}:\n{step.difference()}" for step in outcome.steps if step.difference()]
    problems += [f"{program} sent an UPDATE on the second run (zones {zones})"
                 for program, zones in outcome.noop_writes.items()]
    assert not problems, "\n\n".join(problems)
    # the scenario exercised something: a run wrote records, or the change moved them
    first, changed = outcome.step("first run").py, outcome.step("after the change").py
    assert first != comparable(scenario.seed, scenario.aes_key) or changed != first, "nothing was written"
