"""The Go ExternalDNS v0.22.0 against this project, in the same run, on the same API server and the same BIND9,
with the same flags (`--source=service --provider=rfc2136 --registry=txt --policy=sync`, TSIG, AXFR read-back).

The objects: N LoadBalancer Services as a cluster has them (labels, selector, two ports, the hostname
annotation, the load-balancer IP written through `/status`), one name each in zone `bench.test` (or spread over
10 zones). The API server: the real kube-apiserver + etcd when built (`make kube`, tests/realkube), else the
project's test server (tests/kubeapi, in this process: its CPU then competes with the poller, not with the
programs measured); the table says which. The Go ExternalDNS comes from `make go-peers` (tests/differential/peer.py).
On the real server the Services are stored in etcd beside one created through the API, as copies of it
(`BENCH_VSGO_FILL=api`: every one through the API; RealApi says why); the fill rate is printed.

1. `--once`, whole process (start-up, informers' list, AXFR, plan, UPDATEs), N = `BENCH_VSGO_ONCE_SIZES`
   (5000,20000): "create" into an empty zone (a fresh named), then "no-op" (the same run again: nothing to
   send), `BENCH_VSGO_ONCE_REPEAT` (3) times each, the programs taking turns: the medians of the wall seconds
   and CPU seconds (user + sys of the process). Each side's zone is checked afterwards (N A
   records, N ownership TXT).
2. Long-running, `--events --interval=<BENCH_VSGO_INTERVAL, 60s>`, for each size in `BENCH_VSGO_EVENT_SIZES`
   (1000,10000,100000 in one zone, and 10x10000: 10 zones of 10,000): start -> all published; event -> DNS (a
   Service's load-balancer IP patched on the API server, BIND polled every 2 ms until it serves the new IP)
   p50 and p99 over `BENCH_VSGO_EVENTS` (20) events, with `--min-event-sync-interval=0s` and with each program's
   default (5s for both); CPU per `--interval` pass, idle CPU (per minute, between passes), RSS after the first
   sync and after `BENCH_VSGO_PASSES` (10) passes (bench/event_scale.py's sampling: /proc every 0.25 s, a sample
   over 5 % of a core is part of a pass).

`python -m bench vs_go` runs everything (long: the 100k rows take about half an hour per program);
`python -m bench.vs_go once 5000` or `python -m bench.vs_go events 10000 [zones]` one part. `BENCH_VSGO_BASELINE`
(a checkout of the code before a change) adds it as a third program. Wall-clock figures move with the load of a
shared machine: compare the two programs within one run.
"""

from __future__ import annotations

import base64
import compileall
import http.client
import ipaddress
import itertools
import json
import os
import random
import resource
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from bench.event_scale import BindView, _quiet, _wait, measure_passes, pct, rss_mib
from tests.differential.peer import go_external_dns
from tests.kubeapi.server import KubeAPIServer
from tests.realkube.build import CONTROL_PLANE, ETCD, KUBE_APISERVER
from tests.realkube.control_plane import ControlPlane
from tests.realkube.gobuild import binary_path, is_built
from tests.servers.process import stop_process

ROOT = Path(__file__).resolve().parents[1]
BASE_ZONE = "bench.test"
NAMESPACE = "bench"
OWNER = "bench"
ONCE_REPEAT = int(os.environ.get("BENCH_VSGO_ONCE_REPEAT", "3"))  # each row: the median of this many runs
ONCE_SIZES = tuple(int(s) for s in os.environ.get("BENCH_VSGO_ONCE_SIZES", "5000,20000").split(",") if s)
EVENT_SIZES = tuple(s for s in os.environ.get("BENCH_VSGO_EVENT_SIZES", "1000,10000,100000,10x10000").split(",")
                    if s)
EVENTS = int(os.environ.get("BENCH_VSGO_EVENTS", "20"))
PASSES = int(os.environ.get("BENCH_VSGO_PASSES", "10"))
INTERVAL = float(os.environ.get("BENCH_VSGO_INTERVAL", "60"))
BASELINE = os.environ.get("BENCH_VSGO_BASELINE", "")
LOGDIR = os.environ.get("BENCH_VSGO_LOGDIR", "")  # keep each --once run's output there
LOG_LEVEL = os.environ.get("BENCH_VSGO_LOG", "warning")
ONCE_TIMEOUT = 1800.0
PUBLISH_TIMEOUT = 1800.0
EVENT_TIMEOUT = 60.0
FILL_THREADS = int(os.environ.get("BENCH_VSGO_FILL_THREADS", "8"))
FILL = os.environ.get("BENCH_VSGO_FILL", "etcd")  # "api": every Service through the API server (RealApi)
_TXN_OPS = 128  # etcd's default --max-txn-ops
_COPY_IP_BASE = int(ipaddress.IPv4Address("10.104.0.0"))  # copies' cluster IPs: 10.104/14 of the /12 (the
# allocator picks at random from all of it and skips an address whose IPAddress object exists)


# -- the programs --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    name: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    default_min_event_sync: str = "5s"


def programs() -> list[Program]:
    binary, problem = go_external_dns()
    if binary is None:
        raise SystemExit(f"bench.vs_go: {problem}")
    base = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k != "PYTHONPATH"}
    out = [Program("Go ExternalDNS v0.22.0", (str(binary),), base)]
    if BASELINE:
        out.append(Program("before", (sys.executable, "-m", "external_dns"), {**base, "PYTHONPATH": BASELINE}))
    out.append(Program("external-dns-py", (sys.executable, "-m", "external_dns"), {**base, "PYTHONPATH": str(ROOT)}))
    only = os.environ.get("BENCH_VSGO_ONLY", "")  # e.g. "py" or "Go": the programs whose name contains it
    return [p for p in out if only.lower() in p.name.lower()]


def compile_sources() -> None:
    """Byte-compile the Python programs' packages, as `pip install` does: a checkout run with
    PYTHONDONTWRITEBYTECODE (or read-only) would compile every module on every start (+0.3 s a run)."""
    for tree in (ROOT, *([Path(BASELINE)] if BASELINE else [])):
        compileall.compile_dir(str(tree / "external_dns"), quiet=1)


def zone_names(zones: int) -> list[str]:
    return [BASE_ZONE] if zones == 1 else [f"z{j}.{BASE_ZONE}" for j in range(zones)]


def host_of(i: int, zones: Sequence[str]) -> str:
    return f"svc-{i:06d}.{zones[i % len(zones)]}"


def ip_of(i: int) -> str:
    return f"10.{64 + i // 65536 % 64}.{i // 256 % 256}.{i % 256}"


def service(i: int, zones: Sequence[str], namespace: str) -> dict[str, Any]:
    """A LoadBalancer Service as clusters have them: labels, selector, two named ports, annotations."""
    name = f"svc-{i:06d}"
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "bench",
                                    "team": f"team-{i % 17}"},
                         "annotations": {"external-dns.kubernetes.io/hostname": host_of(i, zones),
                                         "service.beta.kubernetes.io/load-balancer-type": "external",
                                         "meta.helm.sh/release-name": f"release-{i % 101}"}},
            "spec": {"type": "LoadBalancer", "allocateLoadBalancerNodePorts": False,
                     "selector": {"app.kubernetes.io/name": name},
                     "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                               {"name": "https", "port": 443, "targetPort": 8443, "protocol": "TCP"}]}}


def lb_status(ip: str) -> dict[str, Any]:
    return {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}}


# -- the API server ------------------------------------------------------------------------------------------
class Api:
    """The API server both programs read: `fill` puts N Services into a namespace of their own (the programs
    run with `--namespace`; nothing is deleted: a namespace is never finalized without a controller manager),
    `set_ip` changes one's load-balancer IP."""

    label = ""
    namespace = NAMESPACE

    @staticmethod
    def namespace_for(n: int, zones: Sequence[str]) -> str:
        return f"{NAMESPACE}-{n}-{len(zones)}"

    def fill(self, n: int, zones: Sequence[str]) -> None:
        raise NotImplementedError

    def set_ip(self, i: int, ip: str) -> None:
        raise NotImplementedError

    def kubeconfig(self, path: Path) -> str:
        raise NotImplementedError

    def quiet_marker(self) -> KubeAPIServer | None:
        return None

    def rates(self) -> list[str]:
        """How fast each `fill` went."""
        return []

    def stop(self) -> None:
        pass


class TestApi(Api):
    label = "tests/kubeapi (in-process)"

    def __init__(self) -> None:
        self.server = KubeAPIServer(history_size=4 * EVENTS + 1000).start()

    def fill(self, n: int, zones: Sequence[str]) -> None:
        self.server.stop()  # one set at a time: the in-process server's memory is this process's
        self.server = KubeAPIServer(history_size=4 * EVENTS + 1000).start()
        self.namespace = self.namespace_for(n, zones)
        self.server.ensure_namespace(self.namespace)
        for i in range(n):
            self.server.create(service(i, zones, self.namespace))
            self.set_ip(i, ip_of(i))

    def set_ip(self, i: int, ip: str) -> None:
        self.server.patch("v1", "Service", self.namespace, f"svc-{i:06d}", lb_status(ip), subresource="status")

    def kubeconfig(self, path: Path) -> str:
        out: str = self.server.write_kubeconfig(path)
        return out

    def quiet_marker(self) -> KubeAPIServer | None:
        return self.server

    def stop(self) -> None:
        self.server.stop()


class RealApi(Api):
    """The real kube-apiserver + etcd (tests/realkube). `BENCH_VSGO_FILL=api`: every Service created and its
    address written through the API, over keep-alive HTTPS connections by a few threads. `etcd` (the default):
    the first Service so, read back, and the others stored beside it in etcd as copies of what the API server
    wrote (managed fields, defaults and status included; own name, uid, labels, host name, cluster IP and
    address), in transactions of 128: kube-apiserver 1.36 allocates a ClusterIP by listing every IPAddress
    twice (ipallocator.Allocator.Used() for its metrics), so each Service created costs it 3.5 ms more CPU
    per 1,000 Services present (measured: 6.7 ms at 0-1k, 23 ms at 4-6k; 20,000 through the API would take
    the server ~800 s of CPU). Its repair controller then gives the copies' cluster IPs their IPAddress
    objects. The programs read Services as they would from any cluster (list and watch through the API)."""

    label = "kube-apiserver v1.36 + etcd (real)"

    def __init__(self, plane: Any, workdir: Path) -> None:
        self.plane = plane
        self.workdir = workdir
        self._local = threading.local()
        self.filled: set[str] = set()
        self._cluster_ips = itertools.count(_COPY_IP_BASE)
        self.fill_rates: list[str] = []

    def _conn(self) -> http.client.HTTPSConnection:
        conn: http.client.HTTPSConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            ctx: ssl.SSLContext = self.plane.ssl_context()
            conn = http.client.HTTPSConnection("127.0.0.1", self.plane.port, context=ctx, timeout=60)
            self._local.conn = conn
        return conn

    def _call(self, method: str, path: str, body: dict[str, Any], content_type: str = "application/json") -> None:
        for attempt in range(3):
            conn = self._conn()
            try:
                conn.request(method, path, json.dumps(body), {"Content-Type": content_type,
                                                              "Accept": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
                continue
            if resp.status >= 300 and not (resp.status == 409 and method == "POST"):
                raise RuntimeError(f"{method} {path}: {resp.status} {data[:300]!r}")
            return

    def _put_one(self, i: int, zones: Sequence[str]) -> None:
        base = f"/api/v1/namespaces/{self.namespace}/services"
        self._call("POST", base, service(i, zones, self.namespace))
        self._call("PATCH", f"{base}/svc-{i:06d}/status", lb_status(ip_of(i)), "application/merge-patch+json")

    def fill(self, n: int, zones: Sequence[str]) -> None:
        self.namespace = self.namespace_for(n, zones)
        if self.namespace in self.filled:
            return
        self.plane.create_namespace(self.namespace)
        self.filled.add(self.namespace)
        started = time.perf_counter()
        through_api = n if FILL == "api" else 1
        with ThreadPoolExecutor(max_workers=FILL_THREADS, thread_name_prefix="fill") as pool:
            list(pool.map(lambda i: self._put_one(i, zones), range(through_api)))
            if through_api < n:  # the others as copies of the first (see the class docstring)
                template = self._get(f"/api/v1/namespaces/{self.namespace}/services/svc-000000")
                chunks = [range(a, min(a + _TXN_OPS, n)) for a in range(through_api, n, _TXN_OPS)]
                list(pool.map(lambda c: self._store(template, c, zones), chunks))
        self._wait_listed(n)
        took = time.perf_counter() - started
        rate = f"{n:,} Services in {took:.1f} s ({n / took:,.0f}/s, {FILL})"
        self.fill_rates.append(rate)
        print(f"  filled {rate}", file=sys.stderr, flush=True)

    def rates(self) -> list[str]:
        return self.fill_rates

    def _get(self, path: str) -> dict[str, Any]:
        for attempt in range(2):  # a keep-alive connection idle through a row's runs may have been closed
            conn = self._conn()
            try:
                conn.request("GET", path, headers={"Accept": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
        if resp.status != 200:
            raise RuntimeError(f"GET {path}: {resp.status} {data[:300]!r}")
        out: dict[str, Any] = json.loads(data)
        return out

    def _copy(self, template: dict[str, Any], i: int, zones: Sequence[str]) -> dict[str, Any]:
        """Service i as the API server would have stored it: the template's shape, i's own fields."""
        want = service(i, zones, self.namespace)
        obj: dict[str, Any] = json.loads(json.dumps(template))
        meta = obj["metadata"]
        meta.pop("resourceVersion", None)
        meta["name"], meta["uid"] = want["metadata"]["name"], str(uuid.uuid4())
        meta["labels"], meta["annotations"] = want["metadata"]["labels"], want["metadata"]["annotations"]
        ip = str(ipaddress.IPv4Address(next(self._cluster_ips)))
        obj["spec"]["selector"] = want["spec"]["selector"]
        obj["spec"]["clusterIP"], obj["spec"]["clusterIPs"] = ip, [ip]
        obj["status"]["loadBalancer"]["ingress"][0]["ip"] = ip_of(i)
        return obj

    def _store(self, template: dict[str, Any], indices: range, zones: Sequence[str]) -> None:
        """One etcd transaction putting Services `indices` (etcd's JSON gateway; the API server reads JSON
        values as it reads its own protobuf ones)."""
        ops = []
        for i in indices:
            key = f"/registry/services/specs/{self.namespace}/svc-{i:06d}".encode()
            value = json.dumps(self._copy(template, i, zones), separators=(",", ":")).encode()
            ops.append({"requestPut": {"key": base64.b64encode(key).decode(), "value": base64.b64encode(value).decode()}})
        req = urllib.request.Request(f"{self.plane.etcd_url}/v3/kv/txn", json.dumps({"success": ops}).encode(),
                                     {"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = json.loads(resp.read())
        if not body.get("succeeded"):
            raise RuntimeError(f"etcd txn failed: {str(body)[:300]}")

    def _wait_listed(self, n: int) -> None:
        """Until the API server's cache (what a list from resourceVersion 0 reads) holds the N Services."""
        base = f"/api/v1/namespaces/{self.namespace}/services"

        if not _wait(lambda: self._count(base) >= n, 600, 0.5) or not _wait(
                lambda: len(self._get(f"{base}?resourceVersion=0").get("items") or []) >= n, 600, 1.0):
            raise RuntimeError(f"the API server does not list {n} Services in {self.namespace}")
        # then until the API server is quiet: its repair controller gives the copies' cluster IPs IPAddress
        # objects (most of them; it logs each) for a few seconds, and must not run during the measurements
        _quiet([p.pid for p in self.plane.processes()], 300)

    def _count(self, path: str) -> int:
        page = self._get(f"{path}?limit=1")
        return len(page.get("items") or []) + int((page.get("metadata") or {}).get("remainingItemCount") or 0)

    def set_ip(self, i: int, ip: str) -> None:
        self._call("PATCH", f"/api/v1/namespaces/{self.namespace}/services/svc-{i:06d}/status", lb_status(ip),
                   "application/merge-patch+json")

    def kubeconfig(self, path: Path) -> str:
        out: str = self.plane.write_kubeconfig(path)
        return out


def open_api(workdir: Path) -> tuple[Api, Callable[[], None]]:
    """The real API server when it is built (`make kube`), else the test server; and how to stop it."""
    if not all(is_built(m) for m in CONTROL_PLANE) or os.environ.get("BENCH_VSGO_API") == "kubeapi":
        api: Api = TestApi()
        return api, api.stop
    (workdir / "realkube").mkdir()
    # a /12 of cluster IPs (envtest's /24 holds 254 Services); LoadBalancer Services without node ports
    plane = ControlPlane(binary_path(ETCD), binary_path(KUBE_APISERVER), workdir / "realkube",
                         service_cidr="10.96.0.0/12", audit=False).start()
    return RealApi(plane, workdir), plane.stop


# -- 1. --once ---------------------------------------------------------------------------------------------
def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(program: Program, flags: Sequence[str], env_extra: dict[str, str], cwd: Path,
             label: str = "") -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole `--once` process; its output kept in BENCH_VSGO_LOGDIR when set."""
    cpu, t = _children_cpu(), time.perf_counter()
    out = subprocess.run([*program.command, *flags], env={**program.env, **env_extra}, cwd=cwd, capture_output=True,
                         text=True, timeout=ONCE_TIMEOUT, check=False)
    wall, used = time.perf_counter() - t, _children_cpu() - cpu
    if LOGDIR and label:
        Path(LOGDIR).mkdir(parents=True, exist_ok=True)
        (Path(LOGDIR) / f"{label}.log").write_text(out.stdout + out.stderr)
    if out.returncode != 0:
        raise RuntimeError(f"{program.name} exited {out.returncode}: {(out.stderr or out.stdout)[-1500:]}")
    return wall, used


def common_flags(kubeconfig: str, namespace: str, view: BindView) -> list[str]:
    return ["--source=service", "--registry=txt", f"--txt-owner-id={OWNER}", "--policy=sync", f"--log-level={LOG_LEVEL}",
            f"--kubeconfig={kubeconfig}", f"--namespace={namespace}", "--metrics-address=127.0.0.1:0",
            *view.flags()]


def once_rows(api: Api, progs: Sequence[Program], n: int, work: Path) -> list[str]:
    zones = zone_names(1)
    api.fill(n, zones)
    kubeconfig = api.kubeconfig(work / "kubeconfig")
    runs: dict[str, list[tuple[float, float, float, float]]] = {p.name: [] for p in progs}
    wrong: dict[str, str] = {}
    for round_ in range(ONCE_REPEAT):  # the programs take turns, so a change of the machine's load hits each
        for program in progs:
            view = BindView(zones)
            try:
                flags = ["--once", *common_flags(kubeconfig, api.namespace, view)]
                tag = f"once-{n}-{program.name.split()[0].lower()}-{round_}"
                create = run_once(program, flags, view.env(), work, f"{tag}-create")
                published = view.count_a() - len(zones)  # each zone has its name server's A record
                noop = run_once(program, flags, view.env(), work, f"{tag}-noop")
                if published != n:
                    wrong[program.name] = f" (zone holds {published} A of {n})"
                runs[program.name].append((*create, *noop))
                print(f"  once N={n} {program.name}: create {create[0]:.2f} s, no-op {noop[0]:.2f} s",
                      file=sys.stderr, flush=True)
            finally:
                view.close()
    rows = []
    for program in progs:
        med = [statistics.median(r[k] for r in runs[program.name]) for k in range(4)]
        rows.append(f"| {program.name} | {n:,} | {med[0]:.2f} s | {med[1]:.2f} s | {med[2]:.2f} s | {med[3]:.2f} s |"
                    f"{wrong.get(program.name, '')}")
    return rows


ONCE_HEADER = ("| program | Services | create wall | create CPU | no-op wall | no-op CPU |\n"
               "|---|---:|---:|---:|---:|---:|")


# -- 2. long-running ---------------------------------------------------------------------------------------
@dataclass
class LongResult:
    program: str
    size: str
    published_s: float | None = None
    events_0s: list[float] = field(default_factory=list)
    events_default: list[float] = field(default_factory=list)
    missed: int = 0
    rss_first: float | None = None
    pass_cpu: list[float] = field(default_factory=list)
    idle_pct: float | None = None
    rss: list[float] = field(default_factory=list)
    error: str = ""


_ROUNDS = itertools.count()  # every round of events moves Services to addresses no earlier round used


def _events(api: Api, view: BindView, n: int, zones: Sequence[str], res: LongResult, into: list[float],
            seed: int) -> None:
    rng = random.Random(seed)
    round_ = next(_ROUNDS)
    for k in range(EVENTS):
        i = rng.randrange(n)
        ip = f"172.{16 + round_ % 16}.{k // 256 % 256}.{k % 256}"
        host = host_of(i, zones)
        t0 = time.perf_counter()
        api.set_ip(i, ip)
        if _wait(lambda h=host, a=ip: view.serves(h, a), EVENT_TIMEOUT, 0.002):  # type: ignore[misc]
            into.append(time.perf_counter() - t0)
        else:
            res.missed += 1
            if res.missed >= 3:
                return


def _start(program: Program, flags: Sequence[str], env_extra: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen([*program.command, *flags], env={**program.env, **env_extra}, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=log.parent)


def _published(proc: subprocess.Popen[bytes], view: BindView, n: int) -> bool:
    """Wait until the zones hold the N A records (and each zone its name server's)."""
    return _wait(lambda: proc.poll() is not None or view.count_a() >= n + len(view.zones), PUBLISH_TIMEOUT, 0.5)


def long_running(api: Api, program: Program, n: int, zones: Sequence[str], work: Path, size: str) -> LongResult:
    res = LongResult(program.name, size)
    kubeconfig = api.kubeconfig(work / "kubeconfig")
    for mode in ("0s", "default"):
        view = BindView(list(zones))
        proc = None
        try:
            flags = ["--events", f"--interval={INTERVAL:g}s", *common_flags(kubeconfig, api.namespace, view)]
            if mode == "0s":
                flags.append("--min-event-sync-interval=0s")
            started = time.perf_counter()
            proc = _start(program, flags, view.env(), work / f"{program.name[:2]}-{mode}.log")
            if not _published(proc, view, n) or proc.poll() is not None:
                res.error = f"not all published within {PUBLISH_TIMEOUT:.0f} s (exit {proc.poll()})"
                return res
            if mode == "0s":
                res.published_s = time.perf_counter() - started
            _quiet([proc.pid, *view.pids()], 300, api.quiet_marker())
            if mode == "0s":
                res.rss_first = rss_mib(proc.pid)
            _events(api, view, n, zones, res, res.events_0s if mode == "0s" else res.events_default,
                    seed=hash((size, mode)) % 1000)
            if mode == "0s":
                _quiet([proc.pid], 120)
                sampled = _Sampled(res)
                measure_passes(proc.pid, sampled, PASSES, INTERVAL)  # type: ignore[arg-type]
                res.pass_cpu, res.idle_pct, res.rss = sampled.pass_cpu, sampled.idle_pct, sampled.rss
        except Exception as exc:  # one failing row must not hide the others
            res.error = f"{type(exc).__name__}: {exc}"
            return res
        finally:
            if proc is not None:
                stop_process(proc, 30)
            view.close()
    return res


@dataclass
class _Sampled:
    """What bench.event_scale.measure_passes fills."""

    owner: LongResult
    pass_cpu: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)
    idle_pct: float | None = None
    cpu_per_interval: float | None = None


LONG_HEADER = ("| program | Services (zones) | start -> all published | event -> DNS p50 / p99, min-event-sync 0s | "
               "p50 / p99, default 5s | CPU per pass | idle CPU per minute | RSS first sync -> after passes |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|")


def _lat(values: Sequence[float]) -> str:
    if not values:
        return "-"
    ms = [v * 1000 for v in values]
    return f"{pct(ms, 50):.0f} / {pct(ms, 99):.0f} ms"


def long_row(r: LongResult) -> str:
    if r.error and r.published_s is None:
        return f"| {r.program} | {r.size} | {r.error} ||||||"
    cpu = f"{sorted(r.pass_cpu)[len(r.pass_cpu) // 2]:.2f} s" if r.pass_cpu else "-"
    idle = f"{r.idle_pct * 0.6:.2f} s" if r.idle_pct is not None else "-"
    rss = (f"{r.rss_first:.0f} -> {r.rss[-1]:.0f} MiB ({len(r.rss)})" if r.rss and r.rss_first is not None
           else "-")
    missed = f" ({r.missed} missed)" if r.missed else ""
    err = f" ({r.error})" if r.error else ""
    return (f"| {r.program} | {r.size} | {r.published_s:.1f} s | {_lat(r.events_0s)}{missed} | "
            f"{_lat(r.events_default)} | {cpu} | {idle} | {rss}{err} |")


def parse_size(text: str) -> tuple[int, int]:
    """'100000' -> (100000, 1); '10x10000' -> (100000, 10)."""
    if "x" in text:
        zones, per = text.split("x")
        return int(zones) * int(per), int(zones)
    return int(text), 1


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # test servers: errors only
    part = args[0] if args and args[0] in ("once", "events") else "all"
    sizes = args[1:] if part != "all" else []
    progs = programs()
    compile_sources()
    work = Path(tempfile.mkdtemp(prefix="bench-vs-go-"))
    api, stop = open_api(work)
    try:
        print(f"API server: {api.label}; BIND9 {subprocess.run(['named', '-v'], capture_output=True, text=True, check=False).stdout.strip()}")
        if part in ("all", "once"):
            print(f"\n### --once, whole process (N Services -> N A + N TXT in one zone), medians of {ONCE_REPEAT} runs\n")
            print(ONCE_HEADER, flush=True)
            for n in [int(s) for s in sizes] or ONCE_SIZES:
                for line in once_rows(api, progs, n, work):
                    print(line, flush=True)
        if part in ("all", "events"):
            print(f"\n### long-running, --events --interval={INTERVAL:g}s, {EVENTS} events per mode, {PASSES} passes\n")
            print(LONG_HEADER, flush=True)
            for size in sizes or EVENT_SIZES:
                n, nzones = parse_size(size)
                zones = zone_names(nzones)
                api.fill(n, zones)
                for program in progs:
                    print(long_row(long_running(api, program, n, zones, work, size)), flush=True)
        for rate in api.rates():
            print(f"\nfilled: {rate}")
    finally:
        stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
