"""The built image run as the chart's pod runs it (runc; tests/image/runtime.py): uid 65532, read-only root
filesystem, no capabilities, a writable /tmp only. `--version`; the manifest -> zone file demo, byte for byte
what the host's CLI writes; `webhook-server` answering /healthz; the long-running mode with the chart's own
args and RBAC against the test API server, answering /readyz and /metrics and exiting 0 on SIGTERM; Route53
through boto3 in the image (moto); TLS: the system CA bundle found by Python's default context, and a
local HTTPS server verified with a CA given by SSL_CERT_FILE (refused without it)."""

from __future__ import annotations

import ast
import json
import ssl
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.charts.render import ROOT
from tests.helpers.cli import clean_env, zone_records
from tests.image.runtime import Pod, Running
from tests.servers.process import free_port

pytestmark = pytest.mark.integration

PodFactory = Callable[..., Pod]
PYTHON = ["/opt/external-dns/bin/python"]  # a pod's `command:` override
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
DEMO = ["--once", "--source=manifest", "--manifest-dir=/examples/manifests", "--provider=zonefile",
        "--zonefile-dir=/tmp/zones", "--zonefile-create-zone=example.org", "--policy=sync", "--txt-owner-id=demo"]


def _get(url: str, timeout: float = 5) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _wait(check: Callable[[], bool], running: Running, timeout: float) -> bool:
    """Polls another process's observable state (no event to wait on) until `check` or its exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and running.proc.poll() is None:
        try:
            if check():
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def _python(pod: Pod, code: str, env: dict[str, str] | None = None) -> Any:
    """Runs `code` with the image's Python in the pod; its stdout parsed as JSON."""
    pod.env.update(env or {})
    proc = pod.run(["-c", code], command=PYTHON)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_version(make_pod: PodFactory) -> None:
    proc = make_pod().run(["--version"])
    assert (proc.returncode, proc.stdout) == (0, f"{VERSION}\n"), proc.stderr


def _imports_of(package: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every absolute import in a package's code, module-level or inside functions (the
    providers import their SDKs lazily), except those only type checkers see."""
    found: set[tuple[str, tuple[str, ...]]] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            found.update((alias.name, ()) for alias in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            if node.level == 0 and node.module:
                found.add((node.module, tuple(a.name for a in node.names if a.name != "*")))

    for path in sorted(package.rglob("*.py")):
        Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return [(module, list(names)) for module, names in sorted(found)]


def test_every_import_of_the_code_resolves_in_the_image(make_pod: PodFactory) -> None:
    """Each import statement of external_dns/, the providers' lazy SDK imports included, works in the image:
    a dependency the code uses but pyproject does not declare fails here, not in a cluster."""
    pairs = _imports_of(ROOT / "external_dns")
    assert ("azure.mgmt.dns", ["DnsManagementClient"]) in pairs  # the lazy imports are seen
    code = """if True:
        import importlib, json, sys
        failed = []
        for module, names in json.loads(sys.argv[1]):
            try:
                mod = importlib.import_module(module)
                for name in names:
                    if not hasattr(mod, name):
                        importlib.import_module(f"{module}.{name}")
            except Exception as exc:
                failed.append(f"{module} {names}: {exc!r}")
        print(json.dumps(failed))
    """
    proc = make_pod().run(["-c", code, json.dumps(pairs)], command=PYTHON)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_the_pod_runs_unprivileged_on_a_read_only_root(make_pod: PodFactory) -> None:
    """What the chart's securityContext asks for holds inside the container, and the image has no shell."""
    code = """if True:
        import errno, json, os, shutil
        def write(path):
            try:
                with open(path, "w") as fh:
                    fh.write("x")
                return "ok"
            except OSError as exc:
                return errno.errorcode[exc.errno]
        status = dict(l.split(":\\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\\t" in l)
        print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
                          "cap_eff": status["CapEff"].strip(), "cap_bnd": status["CapBnd"].strip(),
                          "no_new_privs": status["NoNewPrivs"].strip(), "root": write("/probe"),
                          "venv": write("/opt/external-dns/probe"), "tmp": write("/tmp/probe"),
                          "shells": [s for s in ("sh", "bash", "dash", "busybox") if shutil.which(s)],
                          "home": os.path.expanduser("~")}))
    """
    got = _python(make_pod(), code)
    assert got == {"uid": 65532, "gid": 65532, "groups": [65532], "cap_eff": "0000000000000000",
                   "cap_bnd": "0000000000000000", "no_new_privs": "1", "root": "EROFS", "venv": "EROFS",
                   "tmp": "ok", "shells": [], "home": "/home/nonroot"}


def test_demo_manifests_to_zone_file(make_pod: PodFactory, tmp_path: Path) -> None:
    """The README's demo in the image writes the same zone file as the host's CLI; a second run writes nothing."""
    pod = make_pod(mounts={"/examples/manifests": ROOT / "examples" / "manifests"})
    first = pod.run(DEMO)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Plan: " in first.stderr and "to create" in first.stderr, first.stderr
    in_image = (pod.tmp / "zones" / "example.org.zone").read_text()
    host_zones = tmp_path / "host-zones"
    host = subprocess.run([sys.executable, "-m", "external_dns", *[
        a.replace("/examples/manifests", str(ROOT / "examples" / "manifests")).replace("/tmp/zones", str(host_zones))
        for a in DEMO]], capture_output=True, text=True, env=clean_env(), cwd=ROOT, timeout=120, check=False)
    assert host.returncode == 0, host.stderr
    assert in_image == (host_zones / "example.org.zone").read_text()
    assert zone_records(pod.tmp / "zones" / "example.org.zone")[("www.example.org", "A")] == ["192.0.2.10"]
    second = pod.run(DEMO)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "All records are already up to date" in second.stderr
    assert (pod.tmp / "zones" / "example.org.zone").read_text() == in_image


def test_webhook_server_answers_healthz(make_pod: PodFactory) -> None:
    api, health = free_port(), free_port()
    pod = make_pod()
    args = ["webhook-server", "--provider=inmemory", "--inmemory-zone=example.org",
            f"--webhook-server-address=127.0.0.1:{api}", f"--webhook-server-health-address=127.0.0.1:{health}"]
    with pod.start(args) as running:
        assert _wait(lambda: _get(f"http://127.0.0.1:{health}/healthz")[0] == 200, running, 60), running.output()
        request = urllib.request.Request(f"http://127.0.0.1:{api}/",
                                         headers={"Accept": "application/external.dns.webhook+json;version=1"})
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert resp.status == 200 and "example.org" in resp.read().decode()
        status = running.init_status()
        assert status["Uid"].split()[0] == "65532" and status["CapEff"] == "0000000000000000"
        assert running.stop() == 0, running.output()


@pytest.fixture
def chart_pod(make_pod: PodFactory, kubeapi: Any, tmp_path: Path) -> Iterator[tuple[Pod, int]]:
    """The chart's pod (sources: service, zone file in /tmp, sync) against the test API server, with a token
    bound to the chart's own ClusterRole; its metrics port on the host's loopback."""
    from tests.charts.render import find, render_chart
    from tests.kubeapi.authz import bind_cluster_role

    port = free_port()
    values = {"sources": ["service"], "provider": {"name": "inmemory"}, "txtOwnerId": "image-test",
              "policy": "sync",
              "extraArgs": ["--provider=zonefile", "--zonefile-dir=/tmp/zones", "--zonefile-create-zone=example.org",
                            f"--metrics-address=127.0.0.1:{port}", "--kubeconfig=/var/run/kube/config"]}
    token = "image-test-token"
    bind_cluster_role(kubeapi, token, find(render_chart(values), "ClusterRole"),
                      user="system:serviceaccount:dns:edns-external-dns-py")
    kube = tmp_path / "kube"
    kube.mkdir()
    kubeapi.write_kubeconfig(kube / "config", token=token)
    (kube / "config").chmod(0o644)
    yield make_pod(values, mounts={"/var/run/kube": kube}), port


def test_long_running_mode_serves_probes_and_stops_on_sigterm(chart_pod: tuple[Pod, int], kubeapi: Any) -> None:
    from tests.kubeapi.authz import forbidden_requests

    pod, port = chart_pod
    web = kubeapi.create({"apiVersion": "v1", "kind": "Service",
                          "metadata": {"name": "web", "namespace": "default",
                                       "annotations": {"external-dns.kubernetes.io/hostname": "web.example.org"}},
                          "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}})
    web["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}
    kubeapi.update_status(web)
    zone = pod.tmp / "zones" / "example.org.zone"
    with pod.start() as running:
        assert _wait(lambda: zone_records(zone).get(("web.example.org", "A")) == ["192.0.2.10"], running, 90), \
            running.output()
        assert _wait(lambda: _get(f"http://127.0.0.1:{port}/readyz")[0] == 200, running, 30), running.output()
        assert _get(f"http://127.0.0.1:{port}/healthz")[0] == 200
        status, metrics = _get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and "external_dns_controller_last_sync_timestamp_seconds" in metrics, metrics[:2000]
        assert running.init_status()["Uid"].split()[0] == "65532"
        code = running.stop()
        output = running.output()
    assert code == 0, output
    assert forbidden_requests(kubeapi) == [], output


def test_route53_through_boto3_in_the_image(make_pod: PodFactory, moto_server: str, tmp_path: Path) -> None:
    """The AWS provider's SDK (boto3, botocore's data, the TXT registry) works from the image's venv."""
    import boto3

    r53 = boto3.client("route53", endpoint_url=moto_server, region_name="us-east-1")
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="image-test")["HostedZone"]["Id"]
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "records.yaml").write_text(
        "apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata: {name: r, namespace: default}\n"
        "spec:\n  endpoints:\n  - {dnsName: app.example.com, recordType: A, targets: [192.0.2.7], recordTTL: 60}\n")
    pod = make_pod(mounts={"/manifests": manifests},
                   env={"AWS_ENDPOINT_URL": moto_server, "AWS_ACCESS_KEY_ID": "AKIDTEST",
                        "AWS_SECRET_ACCESS_KEY": "secret", "AWS_DEFAULT_REGION": "us-east-1"})
    proc = pod.run(["--once", "--source=manifest", "--manifest-dir=/manifests", "--provider=aws", "--policy=sync",
                    "--aws-batch-change-interval=0s", "--txt-owner-id=image"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sets = {(s["Name"], s["Type"]): s for s in r53.list_resource_record_sets(HostedZoneId=zone_id)["ResourceRecordSets"]}
    assert sets[("app.example.com.", "A")]["ResourceRecords"] == [{"Value": "192.0.2.7"}]
    assert "external-dns/owner=image" in sets[("a-app.example.com.", "TXT")]["ResourceRecords"][0]["Value"]


def test_default_tls_context_finds_the_system_ca_bundle(make_pod: PodFactory) -> None:
    code = """if True:
        import json, ssl
        paths = ssl.get_default_verify_paths()
        ctx = ssl.create_default_context()
        bundle = open(paths.cafile).read()
        print(json.dumps({"cafile": paths.cafile, "capath": paths.capath, "loaded": ctx.cert_store_stats()["x509_ca"],
                          "in_bundle": bundle.count("BEGIN CERTIFICATE"),
                          "subjects": sorted(dict(x[0] for x in c["subject"]).get("commonName", "")
                                             for c in ctx.get_ca_certs())}))
    """
    got = _python(make_pod(), code)
    assert got["cafile"] == "/usr/lib/ssl/cert.pem" and got["capath"] == "/usr/lib/ssl/certs"
    assert got["loaded"] == got["in_bundle"] >= 100
    assert "ISRG Root X1" in got["subjects"] and "Amazon Root CA 1" in got["subjects"]


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello from the host"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """An HTTPS server on 127.0.0.1 with a certificate from a test CA; (port, the CA's directory)."""
    from tests.providers.pdns.test_tls_integration import make_pki

    pki_dir = tmp_path / "pki"
    pki_dir.mkdir()
    pki = make_pki(pki_dir)
    for path in pki_dir.iterdir():
        path.chmod(0o644)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki["server_cert"], pki["server_key"])
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, name="https-server", daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1]), pki_dir
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_ssl_cert_file_verifies_a_local_https_server(make_pod: PodFactory, https_server: tuple[int, Path]) -> None:
    port, pki_dir = https_server
    code = f"""if True:
        import json, ssl, urllib.request
        try:
            body = urllib.request.urlopen("https://127.0.0.1:{port}/", timeout=10).read().decode()
        except Exception as exc:
            body = type(exc.reason if hasattr(exc, "reason") else exc).__name__
        print(json.dumps(body))
    """
    assert _python(make_pod(mounts={"/certs": pki_dir}), code) == "SSLCertVerificationError"
    trusted = _python(make_pod(mounts={"/certs": pki_dir}), code, env={"SSL_CERT_FILE": "/certs/ca.pem"})
    assert trusted == "hello from the host"
