"""Fixtures of the differential tests: the Go ExternalDNS binary (built once per machine; in CI, `.ci/run`
builds it first, and a missing peer fails the run instead of skipping), a BIND9 server per program with the
same zones, and the API server both programs read.

`same_outcomes` runs the selected scenarios of test_same_records.py two at a time, each pair of programs on a
pair of named of its own (a "lane"), as soon as the first of those tests asks: one process of this project
takes a core for 2-3 s per run while the Go ExternalDNS needs a tenth of that, so two lanes use both cores. Each
test then waits for its own scenario's outcome."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.differential.cluster import Cluster, RealCluster, TestServerCluster
from tests.differential.harness import Outcome, Sides, run_scenario
from tests.differential.peer import go_external_dns
from tests.differential.programs import Program, go_program, py_program
from tests.differential.scenarios import SAME, ZONES, Scenario
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer, running_bind


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Go ExternalDNS is unavailable in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def go_binary() -> Path:
    path, problem = go_external_dns()
    if path is None:
        _unavailable(problem)
    assert path is not None
    return path


@pytest.fixture(scope="session")
def go_bind() -> Iterator[BindServer]:
    with running_bind(ZONES, with_tls=False) as srv:
        yield srv


@pytest.fixture(scope="session")
def py_bind() -> Iterator[BindServer]:
    with running_bind(ZONES, with_tls=False) as srv:
        yield srv


@pytest.fixture(scope="session")
def diff_cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """The real kube-apiserver + etcd (tests/realkube); `DIFFERENTIAL_API=kubeapi` runs the same scenarios on
    the project's test server instead (faster to start; its agreement with the real one is the point of
    running both)."""
    if os.environ.get("DIFFERENTIAL_API") == "kubeapi":
        with KubeAPIServer() as server:
            yield TestServerCluster(server)
        return
    yield RealCluster(request.getfixturevalue("realkube"))


@pytest.fixture
def go_side(go_binary: Path, go_bind: BindServer) -> Program:
    return go_program(go_binary, go_bind)


@pytest.fixture
def py_side(py_bind: BindServer) -> Program:
    return py_program(py_bind)


LANES = 2


def namespace_of(scenario: Scenario, prefix: str = "diff") -> str:
    return f"{prefix}-{scenario.id}"[:63].rstrip("-")


def uses_nodes(scenario: Scenario, ns: str) -> bool:
    change = scenario.change(ns)
    return any(o["kind"] == "Node" for o in [*scenario.objects(ns), *change.put, *change.delete])


def _selected(session: pytest.Session) -> list[Scenario]:
    ids = {item.callspec.params["scenario"].id for item in session.items
           if getattr(item, "originalname", "") == "test_same_records" and hasattr(item, "callspec")}
    return [s for s in SAME if s.id in ids]


@pytest.fixture(scope="session")
def same_outcomes(request: pytest.FixtureRequest, go_binary: Path, diff_cluster: Cluster,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[Outcome]]]:
    with ExitStack() as stack:
        lanes: queue.Queue[tuple[Program, Program]] = queue.Queue()
        for _ in range(LANES):
            go_bind = stack.enter_context(running_bind(ZONES, with_tls=False))
            py_bind = stack.enter_context(running_bind(ZONES, with_tls=False))
            lanes.put((go_program(go_binary, go_bind), py_program(py_bind)))
        directory = tmp_path_factory.mktemp("same-outcomes")
        cluster_scoped = threading.Lock()  # Nodes are seen by every scenario: one lane at a time uses them

        def run(scenario: Scenario) -> Outcome:
            go, py = lanes.get(timeout=600)
            ns = namespace_of(scenario)
            guard = cluster_scoped if uses_nodes(scenario, ns) else contextlib.nullcontext()
            try:
                with guard:
                    kubeconfig = diff_cluster.write_kubeconfig(directory / f"{ns}.kubeconfig", ns)
                    return run_scenario(Sides(go, py, diff_cluster, ns, kubeconfig), scenario)
            finally:
                lanes.put((go, py))

        pool = stack.enter_context(ThreadPoolExecutor(LANES, thread_name_prefix="differential-lane"))
        futures = {s.id: pool.submit(run, s) for s in _selected(request.session)}
        try:
            yield futures
        finally:
            for f in futures.values():
                f.cancel()
