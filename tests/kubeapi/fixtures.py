"""pytest plugin for the test Kubernetes API server (enabled in tests/conftest.py via `pytest_plugins`).

Fixtures: `kubeapi_server` (session: started once), `kubeapi` (function: the same server after `reset()`, with
namespace "default" created), `kube_config` (kubernetes.client.Configuration), `kube_api_client`
(kubernetes.client.ApiClient, closed afterwards), `kubeconfig_file` (a kubeconfig path in tmp_path).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import kubernetes.client
import pytest

from tests.kubeapi.server import KubeAPIServer


@pytest.fixture(scope="session")
def kubeapi_server() -> Iterator[KubeAPIServer]:
    server = KubeAPIServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def kubeapi(kubeapi_server: KubeAPIServer) -> Iterator[KubeAPIServer]:
    if not kubeapi_server.running:  # a test may have stopped it (restart faults gone wrong)
        kubeapi_server.start()
    kubeapi_server.reset()
    kubeapi_server.ensure_namespace("default")
    kubeapi_server.clear_requests()
    yield kubeapi_server
    kubeapi_server.reset()


@pytest.fixture
def kube_config(kubeapi: KubeAPIServer) -> kubernetes.client.Configuration:
    return kubeapi.configuration()


@pytest.fixture
def kube_api_client(kube_config: kubernetes.client.Configuration) -> Iterator[kubernetes.client.ApiClient]:
    client = kubernetes.client.ApiClient(kube_config)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def kubeconfig_file(kubeapi: KubeAPIServer, tmp_path: Path) -> str:
    return kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
