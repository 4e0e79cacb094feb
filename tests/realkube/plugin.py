"""pytest plugin: a real kube-apiserver + etcd, one per test session (enabled for the whole suite in
tests/conftest.py's `pytest_plugins`; another test tree loads it the same way: `pytest_plugins =
["tests.realkube.plugin"]`).

Fixtures:
- `realkube` (session): the started `ControlPlane` with the chart's CRDs (DNSEndpoint, DNSRecord) and Gateway
  API's (experimental channel: also TLS/TCP/UDPRoute v1alpha2) established.
- `realkube_namespace` (function): a fresh namespace for the test. Namespaces are never deleted (no
  controller manager runs to finalize them); each test sees only its own.
- `realkube_config` (function): `kubernetes.client.Configuration` of the admin (system:masters).
- `realkube_api_client` (function): a `kubernetes.client.ApiClient` on it, closed afterwards.
- `realkube_kubeconfig` (function): a kubeconfig file path (admin, context namespace = the test's
  namespace) for the project's own `--kubeconfig`, `external_dns.controller.kube.api_client`, or helm.

The binaries come from `make kube`. Without them a test using these fixtures skips with that advice, and
fails under CI=true: CI builds them first and never lets a real-server test skip.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes.client
import pytest
import yaml

from external_dns.controller.kube import new_api_client
from tests.realkube.build import CONTROL_PLANE, ETCD, GATEWAY_API, KUBE_APISERVER
from tests.realkube.control_plane import ControlPlane
from tests.realkube.crds import apply_crds
from tests.realkube.gobuild import ProxyError, binary_path, is_built, module_dir

ROOT = Path(__file__).resolve().parents[2]
CHART_CRDS = ROOT / "charts" / "external-dns-py" / "crds"
GATEWAY_KINDS = ("gatewayclasses", "gateways", "listenersets", "httproutes", "grpcroutes", "tlsroutes", "tcproutes", "udproutes",
                 "referencegrants")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "realkube: runs against the real kube-apiserver + etcd (make kube)")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"real API server unavailable in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def gateway_crds() -> list[dict[str, Any]]:
    """Gateway API's experimental-channel CRDs for the kinds external-dns reads, from its Go module."""
    try:
        base = module_dir(*GATEWAY_API) / "config" / "crd" / "experimental"
    except ProxyError as exc:
        _unavailable(str(exc))
    docs: list[dict[str, Any]] = []
    for kind in GATEWAY_KINDS:
        docs.extend(d for d in yaml.safe_load_all((base / f"gateway.networking.k8s.io_{kind}.yaml").read_text())
                    if d)
    return docs


def chart_crds() -> list[dict[str, Any]]:
    return [d for f in sorted(CHART_CRDS.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]


def start_control_plane(workdir: Path, *, crds: bool = True) -> ControlPlane:
    """A started control plane in `workdir` (with the chart's and Gateway API's CRDs unless `crds` is false);
    the caller stops it. Skips (fails under CI=true) when the binaries are not built."""
    missing = [m.name for m in CONTROL_PLANE if not is_built(m)]
    if missing:
        _unavailable(f"{', '.join(missing)} not built: run `make kube` (builds into {binary_path(ETCD).parents[1]})")
    plane = ControlPlane(binary_path(ETCD), binary_path(KUBE_APISERVER), workdir)
    try:
        plane.start()
        if crds:
            apply_crds(plane, [*chart_crds(), *gateway_crds()])
    except BaseException:
        plane.stop()
        raise
    return plane


@pytest.fixture(scope="session")
def realkube(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    plane = start_control_plane(tmp_path_factory.mktemp("realkube"))
    try:
        yield plane
    finally:
        plane.stop()


def _namespace_name(nodeid: str) -> str:
    """A DNS-1123 label unique to the test: a readable tail of its name and a hash of its whole id."""
    tail = re.sub(r"[^a-z0-9]+", "-", nodeid.rsplit("::", 1)[-1].lower()).strip("-")[:40].strip("-")
    return f"{tail}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}"


@pytest.fixture
def realkube_namespace(realkube: ControlPlane, request: pytest.FixtureRequest) -> str:
    name = _namespace_name(request.node.nodeid)
    if realkube.request("GET", f"/api/v1/namespaces/{name}").status == 200:  # a rerun in the same session
        name = f"{name[:50]}-{os.urandom(3).hex()}"
    realkube.create_namespace(name)
    return name


@pytest.fixture
def realkube_config(realkube: ControlPlane) -> kubernetes.client.Configuration:
    return realkube.configuration()


@pytest.fixture
def realkube_api_client(realkube_config: kubernetes.client.Configuration) -> Iterator[kubernetes.client.ApiClient]:
    client = new_api_client(realkube_config)  # as the project builds its clients (its User-Agent)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def realkube_kubeconfig(realkube: ControlPlane, realkube_namespace: str, tmp_path: Path) -> str:
    return realkube.write_kubeconfig(tmp_path / "kubeconfig", namespace=realkube_namespace)
