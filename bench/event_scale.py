"""The long-running controller at zone scale: N LoadBalancer Services in one zone (or 10 zones), measured from
outside the process, on the code of this tree and on another checkout (the baseline) in the same run.

Each scenario starts the test Kubernetes API server (in this process) holding N Services with a
load-balancer IP, a provider (a zone-file directory, or BIND9 `named` on a free loopback port over RFC2136),
then the real CLI as a child process (`python -m external_dns --source=service --events
--min-event-sync-interval=0s --interval=1m`, PYTHONPATH = the code under test) and measures:

* start -> all published: from spawning the process until the zone holds all N A records (zone file: the
  file read and counted; BIND: `dig AXFR` counted), polled every 0.5 s;
* event -> DNS, once the process, named and the API server are quiet (see `_quiet`): one Service's
  load-balancer IP is patched on the API server, then the provider is polled
  (BIND: an A query every 2 ms; zone file: the file re-read when its mtime moved) until the new IP is served;
  `EVENTS` events one after the other, p50 / p99 / max;
* per `--interval` pass, with the controller otherwise idle: CPU seconds of the process (utime + stime from
  /proc, sampled every 0.25 s; a sample over 5 % of a core counts as busy, the busy samples of a pass are
  its CPU), all CPU of the window per interval (what a process never idle still shows), idle CPU (the other
  samples, as % of one core), and VmRSS after each pass (after pass 2 and after the last one: "flat" = within
  5 %).

`python -m bench event_scale` runs the default matrix; `python -m bench.event_scale --n 10000 --provider bind
--code /tmp/checkout --intervals 3` one scenario on one checkout (with `--baseline`, the baseline first). Environment: `BENCH_SCALE_SIZES` (default 1000,10000),
`BENCH_SCALE_PROVIDERS` (zonefile,bind), `BENCH_SCALE_BASELINE` (a checkout of the code before the change:
run side by side when set), `BENCH_SCALE_INTERVALS` (passes measured, default 3), `BENCH_SCALE_EVENTS` (20),
`BENCH_SCALE_SHOW` (print every event latency and pass CPU), `BENCH_SCALE_EVENT_GAP` (seconds between
events, default 0: with a short `--interval`, events that land after periodic passes), `BENCH_SCALE_WRAP` (arguments put before `-m
external_dns`, e.g. a profiler script that runs a module).
The figures are wall clock on a shared machine: other work moves them.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dns.message
import dns.query
import dns.rdatatype
import structlog

from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer, start_bind

ROOT = Path(__file__).resolve().parents[1]
BASE_ZONE = "bench.test"
TICK = 0.25  # CPU / RSS sampling period
BUSY = 0.05  # a sample using more than this share of a core is part of a pass
CLK_TCK = os.sysconf("SC_CLK_TCK")


def zone_names(zones: int) -> list[str]:
    return [BASE_ZONE] if zones == 1 else [f"z{j}.{BASE_ZONE}" for j in range(zones)]


def host_of(i: int, zones: list[str]) -> str:
    return f"h{i:06d}.{zones[i % len(zones)]}"


def ip_of(i: int, generation: int = 0) -> str:
    return f"10.{generation * 2 + i // 65536 % 2}.{i // 256 % 256}.{i % 256}"


def _service(i: int, host: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": f"s{i:06d}", "namespace": "default",
                         "annotations": {"external-dns.kubernetes.io/hostname": host}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}


def set_ip(server: KubeAPIServer, i: int, ip: str) -> None:
    server.patch("v1", "Service", "default", f"s{i:06d}", {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}},
                 subresource="status")


# -- the provider side, seen from outside ------------------------------------------------------------------
class ZoneView:
    """Counts the A records of the zones and answers whether a name serves an IP."""

    def count_a(self) -> int:
        raise NotImplementedError

    def serves(self, host: str, ip: str) -> bool:
        raise NotImplementedError

    def flags(self) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return {}

    def pids(self) -> list[int]:
        """Server processes that must be quiet before events are measured."""
        return []

    def close(self) -> None:
        pass


class ZoneFileView(ZoneView):
    def __init__(self, zones: list[str], directory: Path) -> None:
        self.zones = zones
        self.dir = directory
        self._seen: dict[str, tuple[int, str]] = {}

    def flags(self) -> list[str]:
        return ["--provider=zonefile", f"--zonefile-dir={self.dir}",
                *(f"--zonefile-create-zone={z}" for z in self.zones)]

    def _text(self, zone: str) -> str:
        path = self.dir / f"{zone}.zone"
        try:
            mtime = path.stat().st_mtime_ns
        except FileNotFoundError:
            return ""
        cached = self._seen.get(zone)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        text = path.read_text()
        self._seen[zone] = (mtime, text)
        return text

    def count_a(self) -> int:
        return sum(len(re.findall(r"\sA\s+\d", self._text(z))) for z in self.zones)

    def serves(self, host: str, ip: str) -> bool:
        zone = next(z for z in self.zones if host.endswith("." + z))
        text = self._text(zone)
        # the writer puts the relative owner at the start of every line: find the label's lines with str.find
        # and match only those (a multi-line regex over a 15 MB zone took 45 ms a look, counted as latency)
        needle, start = "\n" + host[: -len(zone) - 1] + " ", 0
        tail = re.compile(rf"\sA\s+{re.escape(ip)}\s*$")
        while (at := text.find(needle, start)) >= 0:
            end = text.find("\n", at + 1)
            if tail.search(text, at + 1, end if end >= 0 else len(text)):
                return True
            start = at + 1
        return False


class BindView(ZoneView):
    def __init__(self, zones: list[str]) -> None:
        self.zones = zones
        self.srv: BindServer = start_bind(zones, with_tls=False)

    def flags(self) -> list[str]:
        return [f for f in self.srv.rfc2136_flags() if not f.startswith("--rfc2136-tsig-secret=")] + [
            "--provider=rfc2136"]

    def env(self) -> dict[str, str]:
        return {"EXTERNAL_DNS_RFC2136_TSIG_SECRET": self.srv.key_secret}

    def pids(self) -> list[int]:
        return [self.srv.process.pid] if self.srv.process is not None else []

    def count_a(self) -> int:
        total = 0
        for zone in self.zones:
            out = subprocess.run(["dig", "+nocmd", "+nostats", "+nocomments", "-p", str(self.srv.port),
                                  "-y", f"{self.srv.key_algorithm}:{self.srv.key_name}:{self.srv.key_secret}",
                                  "@" + self.srv.host, zone, "AXFR"], capture_output=True, text=True, timeout=120,
                                 check=False).stdout
            total += len(re.findall(r"\sIN\s+A\s", out))
        return total

    def serves(self, host: str, ip: str) -> bool:
        q = dns.message.make_query(host, dns.rdatatype.A)
        try:
            r = dns.query.udp(q, self.srv.host, port=self.srv.port, timeout=1.0)
        except Exception:
            return False
        return any(rd.to_text() == ip for rrset in r.answer for rd in rrset)

    def close(self) -> None:
        self.srv.stop()
        shutil.rmtree(self.srv.workdir, ignore_errors=True)


# -- the process, seen from outside ------------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Result:
    label: str
    provider: str
    n: int
    zones: int
    published_s: float | None = None
    latencies: list[float] = field(default_factory=list)
    missed: int = 0
    pass_cpu: list[float] = field(default_factory=list)
    cpu_per_interval: float | None = None  # all CPU of the sampling window / intervals it spanned
    idle_pct: float | None = None
    rss: list[float] = field(default_factory=list)
    error: str = ""


def _wait(predicate: Callable[[], bool], timeout: float, period: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(period)  # polling an outside process and server: nothing to wait on
    return predicate()


def _quiet(pids: Sequence[int], timeout: float, server: KubeAPIServer | None = None) -> None:
    """Wait until each process used under BUSY of a core and (with `server`) the API server took no write for
    2 s in a row: after a publish the controller still sends its Kubernetes Events (RecordReady, to an API
    server living in this process, beside the poller) and named writes its journal."""
    deadline = time.monotonic() + timeout
    last = [cpu_seconds(p) for p in pids]
    version = server.resource_version if server is not None else 0
    calm = 0.0
    while time.monotonic() < deadline and calm < 2.0:
        time.sleep(TICK)
        now = [cpu_seconds(p) for p in pids]
        moved = server.resource_version if server is not None else 0
        still = all(b - a < BUSY * TICK for a, b in zip(last, now, strict=True)) and moved == version
        calm = calm + TICK if still else 0.0
        last, version = now, moved


def run_scenario(code: Path, label: str, provider: str, n: int, zones: int, events: int, intervals: int,
                 interval: float, publish_timeout: float, event_timeout: float) -> Result:
    names = zone_names(zones)
    res = Result(label, provider, n, zones)
    tmp = Path(tempfile.mkdtemp(prefix="edns-scale-"))
    server = KubeAPIServer(history_size=max(1000, 4 * events + 100)).start()
    view: ZoneView | None = None
    proc: subprocess.Popen[bytes] | None = None
    try:
        server.ensure_namespace("default")
        for i in range(n):
            server.create(_service(i, host_of(i, names)))
            set_ip(server, i, ip_of(i))
        if provider == "bind":
            view = BindView(names)
        else:
            (tmp / "zones").mkdir()
            view = ZoneFileView(names, tmp / "zones")
        kubeconfig = server.write_kubeconfig(tmp / "kubeconfig")
        wrap = os.environ.get("BENCH_SCALE_WRAP", "").split()  # e.g. a sampling profiler taking `-m module`
        argv = [sys.executable, *wrap, "-m", "external_dns", "--source=service", "--policy=sync", "--registry=txt",
                "--txt-owner-id=bench", "--events", "--min-event-sync-interval=0s", f"--interval={interval:g}s",
                "--metrics-address=127.0.0.1:0", f"--kubeconfig={kubeconfig}", f"--log-level={os.environ.get('BENCH_SCALE_LOG', 'warning')}",
                *view.flags()]
        env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}
        env.update(view.env(), PYTHONPATH=str(code))
        log = open(tmp / "controller.log", "wb")  # noqa: SIM115 - handed to the child
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        log.close()
        v = view
        if not _wait(lambda: proc.poll() is not None or v.count_a() >= n, publish_timeout, 0.5) \
                or proc.poll() is not None:
            res.error = f"not all published within {publish_timeout:.0f} s (exit {proc.poll()})"
            return res
        res.published_s = time.perf_counter() - started
        _quiet([proc.pid, *v.pids()], 300, server)
        rng = random.Random(n)
        gap = float(os.environ.get("BENCH_SCALE_EVENT_GAP", "0"))  # seconds between events (to span passes)
        for k in range(events):
            if k and gap:
                time.sleep(gap)
            i = rng.randrange(n)
            ip = f"172.{16 + k // 65536 % 16}.{k // 256 % 256}.{k % 256}"
            host = host_of(i, names)
            t0 = time.perf_counter()
            set_ip(server, i, ip)
            if _wait(lambda h=host, a=ip: v.serves(h, a), event_timeout, 0.002):  # type: ignore[misc]
                res.latencies.append(time.perf_counter() - t0)
            else:
                res.missed += 1
                if res.missed >= 3:
                    break
        _quiet([proc.pid], 120)
        measure_passes(proc.pid, res, intervals, interval)
        return res
    except Exception as exc:  # a scenario failing must not hide the others' figures
        res.error = f"{type(exc).__name__}: {exc}"
        return res
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if proc is not None and res.error:
            res.error += " | log tail: " + (tmp / "controller.log").read_text(errors="replace")[-400:]
        if view is not None:
            view.close()
        server.stop()
        (shutil.rmtree(tmp, ignore_errors=True) if not os.environ.get("BENCH_SCALE_KEEP") else None)


def measure_passes(pid: int, res: Result, intervals: int, interval: float) -> None:
    """Sample the quiet process over `intervals` interval passes (see the module docstring)."""
    deadline = time.monotonic() + interval * intervals + interval / 2
    first_t, first_c = time.monotonic(), cpu_seconds(pid)
    last_t, last_c = first_t, first_c
    busy_cpu, idle_cpu, idle_time, in_pass = 0.0, 0.0, 0.0, False
    while time.monotonic() < deadline and len(res.pass_cpu) < intervals:
        time.sleep(TICK)
        t, c = time.monotonic(), cpu_seconds(pid)
        dt, dc = t - last_t, c - last_c
        last_t, last_c = t, c
        if dc > BUSY * dt:
            busy_cpu += dc
            in_pass = True
        else:
            idle_cpu += dc
            idle_time += dt
            if in_pass:
                res.pass_cpu.append(busy_cpu)
                res.rss.append(rss_mib(pid))
                busy_cpu, in_pass = 0.0, False
    res.idle_pct = 100 * idle_cpu / idle_time if idle_time else None
    # a process never idle (passes back to back) ends no pass: this column still tells its cost
    res.cpu_per_interval = (last_c - first_c) / ((last_t - first_t) / interval)


# -- output --------------------------------------------------------------------------------------------------
def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


HEADER = ("| code | provider | records | zones | start -> all published | event -> DNS p50 | p99 | max | "
          "CPU per interval pass | CPU per interval (all) | idle CPU | RSS after pass 2 -> last (passes) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def row(r: Result) -> str:
    if r.published_s is None:
        return f"| {r.label} | {r.provider} | {r.n:,} | {r.zones} | {r.error} ||||||||"
    ms = [x * 1000 for x in r.latencies]
    lat = (f"{pct(ms, 50):.0f} ms | {pct(ms, 99):.0f} ms | {max(ms):.0f} ms" if ms else "- | - | -")
    if r.missed:
        lat += f" ({r.missed} missed)"
    cpu = f"{statistics.median(r.pass_cpu):.2f} s" if r.pass_cpu else "-"
    idle = f"{r.idle_pct:.2f} %" if r.idle_pct is not None else "-"
    every = f"{r.cpu_per_interval:.2f} s" if r.cpu_per_interval is not None else "-"
    rss = "-"
    if r.rss:
        second = r.rss[1] if len(r.rss) > 1 else r.rss[0]
        rss = f"{second:.0f} -> {r.rss[-1]:.0f} MiB ({len(r.rss)})"
    return (f"| {r.label} | {r.provider} | {r.n:,} | {r.zones} | {r.published_s:.1f} s | {lat} | {cpu} | {every} | {idle} "
            f"| {rss} |")


def _ints(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench.event_scale")
    p.add_argument("--n", default=os.environ.get("BENCH_SCALE_SIZES", "1000,10000"), help="records, comma list")
    p.add_argument("--zones", type=int, default=1)
    p.add_argument("--provider", default=os.environ.get("BENCH_SCALE_PROVIDERS", "zonefile,bind"))
    p.add_argument("--code", default="", help="the checkout measured (default: this tree), after the baseline")
    p.add_argument("--baseline", default=os.environ.get("BENCH_SCALE_BASELINE", ""))
    p.add_argument("--events", type=int, default=int(os.environ.get("BENCH_SCALE_EVENTS", "20")))
    p.add_argument("--intervals", type=int, default=int(os.environ.get("BENCH_SCALE_INTERVALS", "3")))
    p.add_argument("--interval", type=float, default=60.0, help="--interval of the controller, seconds")
    p.add_argument("--publish-timeout", type=float, default=900.0)
    p.add_argument("--event-timeout", type=float, default=120.0)
    args = p.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # the test servers: errors only
    codes: list[tuple[str, Path]] = []
    if args.baseline:
        codes.append(("before", Path(args.baseline)))
    codes.append(("after", Path(args.code)) if args.code else ("after", ROOT))
    print(f"N Services in {args.zones} zone(s), --events --min-event-sync-interval=0s --interval={args.interval:g}s, "
          f"{args.events} events, {args.intervals} interval passes sampled\n")
    print(HEADER, flush=True)
    for n in _ints(args.n):
        for provider in [s.strip() for s in args.provider.split(",") if s.strip()]:
            for label, code in codes:
                r = run_scenario(code, label, provider, n, args.zones, args.events, args.intervals, args.interval,
                                 args.publish_timeout, args.event_timeout)
                print(row(r), flush=True)
                if os.environ.get("BENCH_SCALE_SHOW"):
                    print("  events (ms):", " ".join(f"{x * 1000:.0f}" for x in r.latencies), "| passes (s CPU):",
                          " ".join(f"{x:.2f}" for x in r.pass_cpu), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
