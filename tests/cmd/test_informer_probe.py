"""Integration: the CLI probe `external-dns informer-probe` (python -m external_dns.cmd.informer_probe) as a subprocess against the test server."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.informers.helpers import service
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RULES = [{"apiGroups": [""], "resources": ["services"], "verbs": ["list", "watch"]}]


class Probe:
    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "external_dns.cmd.informer_probe", *args], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "0"})
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.raw: list[str] = []
        self._reader = threading.Thread(target=self._read, name="probe-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(json.loads(line))

    def next(self, timeout: float = 10.0) -> dict[str, Any]:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from the probe in {timeout}s; stdout so far: {self.raw}") from None

    def take(self, n: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        return [self.next(timeout) for _ in range(n)]

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            _out, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _out, err = self.proc.communicate(timeout=5)
            raise AssertionError(f"probe did not stop on signal {sig}: {err}") from None
        self._reader.join(5)
        return self.proc.returncode, err


@pytest.fixture
def probe_factory(kubeapi: KubeAPIServer, tmp_path: Path) -> Iterator[Any]:
    probes: list[Probe] = []

    def start(*extra: str, token: str | None = "probe-token") -> Probe:
        if token:
            kubeapi.add_token(token, RULES)
        kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig", token=token)
        probe = Probe(["--kubeconfig", kubeconfig, "--resource", "services", *extra])
        probes.append(probe)
        return probe

    yield start
    for probe in probes:
        if probe.proc.poll() is None:
            probe.proc.kill()
            probe.proc.communicate(timeout=5)


def keyed(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((e["event"], e["key"]) for e in events)


def test_probe_prints_events_relists_and_stops_on_sigterm(kubeapi: KubeAPIServer, probe_factory: Any) -> None:
    created = [kubeapi.create(service(f"s{i}")) for i in range(3)]
    probe = probe_factory()
    initial = probe.take(3)
    assert keyed(initial) == [("add", "default/s0"), ("add", "default/s1"), ("add", "default/s2")]
    rvs = {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in created}
    assert {e["key"]: e["resourceVersion"] for e in initial} == {f"default/{k}": v for k, v in rvs.items()}
    assert probe.next() == {"event": "synced", "count": 3}
    new = kubeapi.create(service("s3"))
    assert probe.next() == {"event": "add", "key": "default/s3", "resourceVersion": new["metadata"]["resourceVersion"]}
    changed = kubeapi.patch("v1", "Service", "default", "s0", {"metadata": {"labels": {"x": "y"}}})
    assert probe.next() == {"event": "update", "key": "default/s0",
                            "resourceVersion": changed["metadata"]["resourceVersion"]}
    gone = kubeapi.delete("v1", "Service", "default", "s1")
    assert probe.next() == {"event": "delete", "key": "default/s1", "resourceVersion": gone["metadata"]["resourceVersion"]}
    # relist after 410: delete for vanished, update for changed, add for new, nothing for unchanged keys
    kubeapi.silence_watches(30)
    kubeapi.delete_silently("v1", "Service", "default", "s2")
    kubeapi.patch("v1", "Service", "default", "s3", {"metadata": {"labels": {"v": "2"}}})
    kubeapi.create(service("s4"))
    kubeapi.compact()
    assert kubeapi.cut_watches() == 1
    after = probe.take(3, timeout=30)
    assert keyed(after) == [("add", "default/s4"), ("delete", "default/s2"), ("update", "default/s3")]
    code, err = probe.stop(signal.SIGTERM)
    assert code == 0, err
    assert probe.lines.empty()


def test_probe_namespace_selector_and_sigint(kubeapi: KubeAPIServer, probe_factory: Any) -> None:
    kubeapi.ensure_namespace("team")
    kubeapi.create(service("match", "team", labels={"dns": "on"}))
    kubeapi.create(service("other", "team", labels={"dns": "off"}))
    kubeapi.create(service("match", "default", labels={"dns": "on"}))
    probe = probe_factory("--namespace", "team", "--label-selector", "dns=on")
    assert [e["key"] for e in probe.take(1)] == ["team/match"]
    assert probe.next() == {"event": "synced", "count": 1}
    code, err = probe.stop(signal.SIGINT)
    assert code == 0, err
    assert all(p == "/api/v1/namespaces/team/services" for (_m, p, _q, _s) in kubeapi.requests)


def test_probe_empty_cluster_reports_synced_zero(probe_factory: Any) -> None:
    probe = probe_factory(token=None)
    assert probe.next() == {"event": "synced", "count": 0}
    assert probe.stop()[0] == 0


def test_probe_bad_kubeconfig_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    proc = subprocess.run([sys.executable, "-m", "external_dns.cmd.informer_probe", "--kubeconfig", str(missing),
                           "--resource", "services"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "cannot load kubeconfig" in proc.stderr and str(missing) in proc.stderr
    assert proc.stdout == ""


def test_probe_bad_label_selector_is_a_usage_error(kubeconfig_file: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "external_dns.cmd.informer_probe", "--kubeconfig", kubeconfig_file,
                           "--resource", "services", "--label-selector", "app in (web"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "--label-selector" in proc.stderr and "app in (web" in proc.stderr
    assert proc.stdout == ""


def test_probe_wrong_token_backs_off_without_output(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    kubeapi.add_token("right", RULES)
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kc", token="wrong")
    probe = Probe(["--kubeconfig", kubeconfig, "--resource", "services"])
    try:
        # refused at least once: the probe is past its start-up (a SIGTERM before its handlers are installed
        # ends it with the default action, -15, as happened on a loaded machine where imports took > 2 s)
        deadline = time.monotonic() + 60
        while kubeapi.request_count("GET", "/services", status=401) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(AssertionError, match="no line"):
            probe.next(timeout=2)
    finally:
        code, err = probe.stop()
    assert code == 0
    assert "401" in err


def _self_signed(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A self-signed certificate for 127.0.0.1 (IP SAN): (cert file, key file, cert PEM)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeapi-test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    cert_file, key_file = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert_file.write_bytes(pem)
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file, pem


def test_probe_https_with_bearer_token(tmp_path: Path) -> None:
    import base64
    import ssl

    import yaml

    cert_file, key_file, pem = _self_signed(tmp_path)
    server = KubeAPIServer().start()
    try:
        httpd = server._httpd  # the test server speaks plain HTTP: put TLS on its listening socket
        assert httpd is not None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        server.ensure_namespace("default")
        server.add_token("tls-token", RULES)
        server.create(service("secure"))
        kubeconfig = tmp_path / "kubeconfig-https"
        kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "tls",
            "clusters": [{"name": "tls", "cluster": {
                "server": f"https://127.0.0.1:{server.port}",
                "certificate-authority-data": base64.b64encode(pem).decode()}}],
            "users": [{"name": "tls", "user": {"token": "tls-token"}}],
            "contexts": [{"name": "tls", "context": {"cluster": "tls", "user": "tls"}}]}))
        probe = Probe(["--kubeconfig", str(kubeconfig), "--resource", "services"])
        try:
            assert probe.next(timeout=15)["key"] == "default/secure"
            assert probe.next() == {"event": "synced", "count": 1}
            server.delete("v1", "Service", "default", "secure")
            assert probe.next()["event"] == "delete"
        finally:
            code, err = probe.stop()
        assert code == 0, err
        assert all(status == 200 for (_m, _p, _q, status) in server.requests)
    finally:
        server.stop()
