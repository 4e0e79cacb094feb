"""The chart through real Helm (helm-python-sdk's Go library) against a real kube-apiserver: `helm install`
creates the CRDs from crds/ and every object passes the server's validation and admission, `helm upgrade`
moves a release between realistic value files. A control plane of its own with no CRDs yet (the session's
already has them, and Helm only creates CRDs that are missing); no kubelet runs, so nothing is waited for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest

from tests.charts.render import CHART_DIR, load_values
from tests.realkube.control_plane import ControlPlane
from tests.realkube.plugin import start_control_plane

pytestmark = [pytest.mark.integration, pytest.mark.realkube]

NS = "dns"
CRDS = ("dnsendpoints.externaldns.k8s.io", "dnsrecords.kuadrant.io")


@pytest.fixture(scope="module")
def bare_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    plane = start_control_plane(tmp_path_factory.mktemp("bare-realkube"), crds=False)
    try:
        plane.create_namespace(NS)
        yield plane
    finally:
        plane.stop()


def _objects(manifest: str) -> list[tuple[str, str]]:
    import yaml

    return sorted((d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(manifest) if d)


def _stored(plane: ControlPlane, kind_name: tuple[str, str], api_version: str) -> dict[str, Any] | None:
    kind, name = kind_name
    return plane.get({"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": NS}})


API_VERSIONS = {"ServiceAccount": "v1", "Secret": "v1", "Service": "v1", "Deployment": "apps/v1",
                "ClusterRole": "rbac.authorization.k8s.io/v1", "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
                "Role": "rbac.authorization.k8s.io/v1", "RoleBinding": "rbac.authorization.k8s.io/v1",
                "PodDisruptionBudget": "policy/v1"}


def test_helm_install_then_upgrade(bare_plane: ControlPlane, tmp_path: Path) -> None:
    kubeconfig = bare_plane.write_kubeconfig(tmp_path / "kubeconfig")
    cfg = helm.Config(kubeconfig_path=kubeconfig, namespace=NS)
    try:
        # the Prometheus Operator's kinds need its CRDs, which this cluster (like many) does not have
        first = {**load_values("route53-service-ingress.yaml"), "serviceMonitor": {"enabled": False},
                 "prometheusRule": {"enabled": False}}
        release = cfg.install(str(CHART_DIR), "edns", first, namespace=NS, timeout=120)
        assert release["status"] == "deployed" and release["revision"] == 1, release["status"]
        for name in CRDS:  # from the chart's crds/, created by Helm, established by the server
            crd = bare_plane.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
            assert crd.status == 200, name
            assert any(c["type"] == "Established" and c["status"] == "True"
                       for c in crd.json["status"]["conditions"])
        installed = _objects(release["manifest"])
        assert ("Deployment", "edns-external-dns-py") in installed
        for kind_name in installed:
            assert _stored(bare_plane, kind_name, API_VERSIONS[kind_name[0]]) is not None, kind_name
        second = load_values("rfc2136-crd-tsig.yaml")
        upgraded = cfg.upgrade(str(CHART_DIR), "edns", second, namespace=NS, timeout=120)
        assert upgraded["status"] == "deployed" and upgraded["revision"] == 2
        after = _objects(upgraded["manifest"])
        for kind_name in after:
            assert _stored(bare_plane, kind_name, API_VERSIONS[kind_name[0]]) is not None, kind_name
        for kind_name in set(installed) - set(after):  # what the new values no longer render is gone
            assert _stored(bare_plane, kind_name, API_VERSIONS[kind_name[0]]) is None, kind_name
        deployment = _stored(bare_plane, ("Deployment", "edns-external-dns-py"), "apps/v1")
        assert deployment is not None
        args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
        assert "--provider=rfc2136" in args and "--source=crd" in args
    finally:
        cfg.close()
