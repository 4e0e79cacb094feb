"""`ControlPlane`: a real etcd + kube-apiserver on free loopback ports, run the way controller-runtime's
envtest runs them (no kubelet, no controller manager: nothing writes LoadBalancer status, EndpointSlices or
Nodes, and nothing garbage-collects; tests write what a controller would).

- etcd: throwaway data dir, `--unsafe-no-fsync` (a test cluster needs no durability).
- kube-apiserver: TLS with our own CA (pki.py), client-certificate admin in `system:masters`, the RBAC
  authorizer only, service-account tokens (issuer `https://127.0.0.1:<port>/`, our signing key),
  ServiceAccount admission off (no controller creates the `default` accounts it would demand).
- Both die with the process that started them (PR_SET_PDEATHSIG), so an interrupted or killed test session
  leaks no server; `stop()` ends them with SIGTERM, then SIGKILL after a grace period.

Helpers: `configuration()` / `write_kubeconfig()` for the `kubernetes` client, the project's own
`--kubeconfig` and helm (admin, or any bearer token); `request()` for raw HTTP; `create_namespace()`,
`service_account_token()` (TokenRequest); `compact()` (etcd compaction, for real 410s); `restart_apiserver()`.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kubernetes.client
import yaml

from tests.realkube.pki import CertificateAuthority, service_account_keys

# What the server saw, for tests that prove what a client sent (selectors, continue tokens, who asked):
# every request at Metadata level, but the server's own loopback traffic and health probes.
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:apiserver"]
- level: None
  nonResourceURLs: ["/readyz*", "/healthz*", "/livez*"]
- level: Metadata
"""
READY_TIMEOUT = 60.0  # envtest waits 20 s; a busy 2-core machine building Go beside us needs more
STOP_GRACE = 15.0
_PR_SET_PDEATHSIG = 1
_POLL = 0.05


class ControlPlaneError(RuntimeError):
    """The control plane could not start; the message carries the end of the failing process's log."""


@dataclass
class Response:
    status: int
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the thread that started us ends (pytest killed, interrupted)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Process:
    """One server process with its log file."""

    def __init__(self, name: str, argv: list[str], log: Path) -> None:
        self.name = name
        self.log = log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         preexec_fn=_die_with_parent, close_fds=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, lines: int = 25) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_GRACE)


class ControlPlane:
    """etcd + kube-apiserver in `workdir` (see the module docstring). Not started until `start()`."""

    def __init__(self, etcd: Path, apiserver: Path, workdir: Path, service_cidr: str = "10.0.0.0/24",
                 audit: bool = True) -> None:
        self.etcd_bin, self.apiserver_bin, self.workdir = etcd, apiserver, workdir
        # a benchmark of 100k Services needs more than envtest's /24, and no audit log (a blocking write of a
        # JSON line per request)
        self.service_cidr, self.audit_enabled = service_cidr, audit
        self.ca = CertificateAuthority()
        self.ca_file = workdir / "ca.crt"
        self.ca_file.write_bytes(self.ca.cert_pem)
        self.admin_cert, self.admin_key = self.ca.client_cert("admin", ("system:masters",)).write(workdir, "admin")
        self.serving_cert, self.serving_key = self.ca.serving_cert().write(workdir, "serving")
        sa_key, sa_pub = service_account_keys()
        self.sa_key, self.sa_pub = workdir / "sa.key", workdir / "sa.pub"
        self.sa_key.write_bytes(sa_key)
        self.sa_pub.write_bytes(sa_pub)
        self.etcd_port = self.port = 0
        self._etcd: _Process | None = None
        self._apiserver: _Process | None = None
        self._ssl = self.ssl_context()
        self._resources: dict[tuple[str, str], tuple[str, bool]] = {}
        self._owner = threading.current_thread()
        self._audit_policy = workdir / "audit-policy.yaml"
        self._audit_policy.write_text(AUDIT_POLICY)
        self.audit_log = workdir / "audit.log"
        self.started_seconds = 0.0

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def etcd_url(self) -> str:
        return f"http://127.0.0.1:{self.etcd_port}"

    def start(self, attempts: int = 3) -> ControlPlane:
        """Start both servers and wait until /readyz answers ok; retried on fresh ports if one was taken."""
        began = time.monotonic()
        for attempt in range(attempts):
            try:
                self._start_etcd()
                self._start_apiserver()
                break
            except ControlPlaneError as exc:
                self.stop()
                if "address already in use" not in str(exc) or attempt == attempts - 1:
                    raise
        self.started_seconds = time.monotonic() - began
        return self

    def _start_etcd(self) -> None:
        self.etcd_port, peer = free_port(), free_port()
        data = self.workdir / "etcd-data"
        peer_url = f"http://127.0.0.1:{peer}"
        self._etcd = _Process("etcd", [
            str(self.etcd_bin), "--name=test", f"--data-dir={data}",
            f"--listen-client-urls={self.etcd_url}", f"--advertise-client-urls={self.etcd_url}",
            f"--listen-peer-urls={peer_url}", f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster=test={peer_url}", "--unsafe-no-fsync=true", "--log-level=warn",
            "--quota-backend-bytes=2147483648",
        ], self.workdir / "etcd.log")
        self._wait(self._etcd, lambda: self._etcd_healthy())

    def _start_apiserver(self, port: int = 0) -> None:
        # PR_SET_PDEATHSIG fires when the *thread* that started a server ends: only the owner thread starts them
        if threading.current_thread() is not self._owner:
            raise RuntimeError("start the control plane's servers from the thread that created it (a server "
                               "started from another thread dies with that thread)")
        self.port = port or free_port()
        self._apiserver = _Process("kube-apiserver", [
            str(self.apiserver_bin), f"--etcd-servers={self.etcd_url}",
            f"--cert-dir={self.workdir / 'certs'}", f"--secure-port={self.port}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
            f"--tls-cert-file={self.serving_cert}", f"--tls-private-key-file={self.serving_key}",
            f"--client-ca-file={self.ca_file}", "--authorization-mode=RBAC",
            f"--service-cluster-ip-range={self.service_cidr}", "--allow-privileged=true",
            "--disable-admission-plugins=ServiceAccount",
            f"--service-account-issuer=https://127.0.0.1:{self.port}/",
            f"--service-account-key-file={self.sa_pub}", f"--service-account-signing-key-file={self.sa_key}",
            *self._audit_flags(), "--v=0",
        ], self.workdir / "kube-apiserver.log")
        self._wait(self._apiserver, self._apiserver_ready)

    def _audit_flags(self) -> list[str]:
        if not self.audit_enabled:
            return []
        return [f"--audit-policy-file={self._audit_policy}", f"--audit-log-path={self.audit_log}",
                "--audit-log-format=json", "--audit-log-mode=blocking"]

    def _wait(self, proc: _Process, ready: Any) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        pause = threading.Event()  # never set: a bounded pause between readiness probes of another process
        while time.monotonic() < deadline:
            if not proc.alive():
                raise ControlPlaneError(f"{proc.name} exited with {proc.proc.returncode}:\n{proc.log_tail()}")
            if ready():
                return
            pause.wait(_POLL)
        raise ControlPlaneError(f"{proc.name} not ready after {READY_TIMEOUT:.0f} s:\n{proc.log_tail()}")

    def _etcd_healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.etcd_url}/health", timeout=2) as resp:
                return bool(json.loads(resp.read()).get("health") == "true")
        except (OSError, ValueError):
            return False

    def _apiserver_ready(self) -> bool:
        try:
            return self.request("GET", "/readyz", timeout=2).status == 200
        except OSError:
            return False

    def stop(self) -> None:
        for proc in (self._apiserver, self._etcd):
            if proc is not None:
                proc.stop()
        self._apiserver = self._etcd = None

    def restart_apiserver(self) -> None:
        """Stop kube-apiserver and start it again on the same port against the same etcd (watch caches begin
        anew: a watch from an older resourceVersion then gets 410 Gone)."""
        assert self._apiserver is not None
        self._apiserver.stop()
        self._apiserver = None
        self._start_apiserver(self.port)

    def processes(self) -> list[subprocess.Popen[bytes]]:
        return [p.proc for p in (self._etcd, self._apiserver) if p is not None]

    def audit_mark(self) -> int:
        """A position in the audit log: `audit(since=mark)` returns only what came after it."""
        return self.audit_log.stat().st_size if self.audit_log.exists() else 0

    def audit(self, since: int = 0) -> list[dict[str, Any]]:
        """The audit events (requestURI, verb, user, responseStatus, ...) logged after position `since`."""
        if not self.audit_log.exists():
            return []
        with open(self.audit_log, "rb") as fh:
            fh.seek(since)
            data = fh.read()
        return [json.loads(line) for line in data.split(b"\n")[:-1] if line.strip()]  # whole lines only

    # ------------------------------------------------------------------ clients
    def ssl_context(self, cert: Path | None = None, key: Path | None = None) -> ssl.SSLContext:
        """TLS trusting our CA, presenting `cert`/`key` (the admin's by default; pass `cert=None, key=None`
        through `anonymous_ssl_context` for none)."""
        ctx = ssl.create_default_context(cafile=str(self.ca_file))
        ctx.load_cert_chain(str(cert or self.admin_cert), str(key or self.admin_key))
        return ctx

    def anonymous_ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_file))

    def request(self, method: str, path: str, body: Any = None, *, token: str | None = None,
                content_type: str = "application/json", timeout: float = 30.0) -> Response:
        """One HTTP request as the admin (or as `token`'s bearer); any status is returned, not raised."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        ctx = self._ssl
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
            ctx = self.anonymous_ssl_context()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=ctx) as resp:
                return Response(resp.status, resp.read())
        except urllib.error.HTTPError as err:
            return Response(err.code, err.read())

    def configuration(self, token: str | None = None) -> kubernetes.client.Configuration:
        """A `kubernetes` client configuration: the admin's client certificate, or `token` as a bearer."""
        cfg = kubernetes.client.Configuration()
        cfg.host = self.url
        cfg.ssl_ca_cert = str(self.ca_file)
        if token is None:
            cfg.cert_file, cfg.key_file = str(self.admin_cert), str(self.admin_key)
        else:
            cfg.api_key = {"authorization": f"Bearer {token}"}
        return cfg

    def kubeconfig(self, token: str | None = None, namespace: str | None = None,
                   server: str | None = None) -> dict[str, Any]:
        """A kubeconfig for the admin (or `token`), optionally with a context namespace and another server URL
        (a `Partition` in front of this server)."""
        def b64(path: Path) -> str:
            return base64.b64encode(path.read_bytes()).decode()

        user: dict[str, str] = {"token": token} if token is not None else {
            "client-certificate-data": b64(self.admin_cert), "client-key-data": b64(self.admin_key)}
        context: dict[str, str] = {"cluster": "realkube", "user": "user"}
        if namespace:
            context["namespace"] = namespace
        return {"apiVersion": "v1", "kind": "Config", "current-context": "realkube",
                "clusters": [{"name": "realkube", "cluster": {"server": server or self.url,
                                                              "certificate-authority-data": b64(self.ca_file)}}],
                "users": [{"name": "user", "user": user}],
                "contexts": [{"name": "realkube", "context": context}]}

    def write_kubeconfig(self, path: Path, token: str | None = None, namespace: str | None = None,
                         server: str | None = None) -> str:
        path.write_text(yaml.safe_dump(self.kubeconfig(token, namespace, server)))
        path.chmod(0o600)
        return str(path)

    # ------------------------------------------------------------------ objects
    def resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        """(plural, namespaced) of `kind` in `api_version`, from the server's discovery (re-read on a miss:
        CRDs come and go)."""
        key = (api_version, kind)
        if key not in self._resources:
            base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            r = self.request("GET", base)
            if r.status != 200:
                raise ControlPlaneError(f"discovery of {api_version}: {r.status} {r.body[:200]!r}")
            for res in r.json["resources"]:
                if "/" not in res["name"]:
                    self._resources[(api_version, res["kind"])] = (res["name"], res["namespaced"])
        if key not in self._resources:
            raise ControlPlaneError(f"the server does not serve {kind} in {api_version}")
        return self._resources[key]

    def path(self, obj: dict[str, Any], *, name: bool = True) -> str:
        """The URL path of `obj` (its collection with name=False)."""
        api_version, meta = obj["apiVersion"], obj.get("metadata", {})
        plural, namespaced = self.resource(api_version, obj["kind"])
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        if namespaced:
            base += f"/namespaces/{meta['namespace']}"
        return f"{base}/{plural}/{meta['name']}" if name else f"{base}/{plural}"

    def _checked(self, r: Response, what: str, *ok: int) -> dict[str, Any]:
        if r.status not in ok:
            raise ControlPlaneError(f"{what}: {r.status} {r.body[:500]!r}")
        out: dict[str, Any] = r.json
        return out

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self._checked(self.request("POST", self.path(obj, name=False), obj), f"create {obj['kind']}", 201)

    def apply(self, obj: dict[str, Any], manager: str = "realkube-tests") -> dict[str, Any]:
        """Server-side apply of `obj` (created when missing), conflicts forced, as `kubectl apply
        --server-side --force-conflicts`."""
        r = self.request("PATCH", f"{self.path(obj)}?fieldManager={manager}&force=true", obj,
                         content_type="application/apply-patch+yaml")
        return self._checked(r, f"apply {obj['kind']} {obj['metadata']['name']}", 200, 201)

    def get(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        r = self.request("GET", self.path(obj))
        return None if r.status == 404 else self._checked(r, f"get {obj['kind']}", 200)

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        """PUT obj to its /status subresource (what a controller manager or ingress controller writes)."""
        return self._checked(self.request("PUT", f"{self.path(obj)}/status", obj), f"status of {obj['kind']}", 200)

    def delete(self, obj: dict[str, Any]) -> None:
        self._checked(self.request("DELETE", self.path(obj)), f"delete {obj['kind']}", 200, 202, 404)

    def create_namespace(self, name: str, labels: dict[str, str] | None = None) -> None:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}
        r = self.request("POST", "/api/v1/namespaces", body)
        if r.status != 201:
            raise ControlPlaneError(f"creating namespace {name}: {r.status} {r.body[:300]!r}")

    def service_account_token(self, namespace: str, name: str, seconds: int = 3600) -> str:
        """A token for ServiceAccount namespace/name from the TokenRequest API (the account must exist)."""
        r = self.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
                         {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                          "spec": {"expirationSeconds": seconds}})
        if r.status != 201:
            raise ControlPlaneError(f"TokenRequest for {namespace}/{name}: {r.status} {r.body[:300]!r}")
        return str(r.json["status"]["token"])

    def compact(self, revision: int | None = None) -> int:
        """Compact etcd at `revision` (default: its current one) and return it: every resourceVersion before
        it is gone from etcd (LIST at it, continue tokens made before it and watches from before it: 410)."""
        if revision is None:
            revision = self.etcd_revision()
        self._etcd_call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
        return revision

    def etcd_revision(self) -> int:
        """etcd's current revision: the newest resourceVersion of any object the server wrote."""
        return int(self._etcd_call("/v3/kv/range", {"key": base64.b64encode(b"\0").decode()})["header"]["revision"])

    def _etcd_call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(self.etcd_url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            out: dict[str, Any] = json.loads(resp.read())
            return out
