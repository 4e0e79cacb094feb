"""Fixtures of the differential tests: the Go ExternalDNS binary (built once per machine; in CI, `.ci/run`
builds it first, and a missing peer fails the run instead of skipping), a BIND9 server per program with the
same zones, and the API server both programs read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.differential.cluster import Cluster, TestServerCluster
from tests.differential.peer import go_external_dns
from tests.differential.programs import Program, go_program, py_program
from tests.differential.scenarios import ZONES
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
def diff_cluster() -> Iterator[Cluster]:
    with KubeAPIServer() as server:
        yield TestServerCluster(server)


@pytest.fixture
def go_side(go_binary: Path, go_bind: BindServer) -> Program:
    return go_program(go_binary, go_bind)


@pytest.fixture
def py_side(py_bind: BindServer) -> Program:
    return py_program(py_bind)
