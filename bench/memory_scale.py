"""Memory of the long-running controller: N LoadBalancer Services in one zone on BIND (RFC2136), the code of
this tree and a baseline checkout side by side in the same run.

The scenario of bench/event_scale.py (its API-server and BIND helpers): the real CLI (`--source=service
--events --min-event-sync-interval=0s --interval=<interval>`) is started through bench/memory_probe.py, which
reports from inside the process. Measured: VmRSS at start-up (wired, nothing listed yet), when all N
records are published (and the process is quiet), after `EVENTS` Service updates, and after each periodic
pass (a pass = a burst of CPU, as in event_scale); "flat" compares pass 10 with pass 2 (goal: within 5 %).
Also glibc's view (heap in use / free inside the arenas, `mallinfo2`) after the last pass, and the RSS
after `gc.collect()` + `malloc_trim(0)` (how much of the RSS is free heap glibc kept). Goal:
RSS <= 120 MiB + 6 KiB per record (a Service counts as one record).

`python -m bench.memory_scale --n 10000 --baseline /tmp/base --interval 10 --passes 10`;
`--trace 1` also takes tracemalloc snapshots after publishing, after pass 2 and after the last pass and
prints the top allocation sites and what grew (tracemalloc slows the process and adds its own memory: use
it to find where the bytes are, not for the table). Environment: `BENCH_MEM_SIZES` (default 10000),
`BENCH_MEM_BASELINE`. Figures are from a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from bench.event_scale import BindView, _service, host_of, ip_of, set_ip
from tests.kubeapi.server import KubeAPIServer

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "bench" / "memory_probe.py"
ZONE = "bench.test"
TICK = 0.25
BUSY = 0.05
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _wait(predicate: Callable[[], bool], timeout: float, period: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(period)  # polling an outside process and server: nothing to wait on
    return predicate()


def _quiet(pid: int, timeout: float) -> None:
    """Wait until the process used under BUSY of a core for 2 s in a row."""
    deadline = time.monotonic() + timeout
    last, calm = cpu_seconds(pid), 0.0
    while time.monotonic() < deadline and calm < 2.0:
        time.sleep(TICK)
        now = cpu_seconds(pid)
        calm = calm + TICK if now - last < BUSY * TICK else 0.0
        last = now


@dataclass
class Run:
    label: str
    n: int
    points: dict[str, dict[str, Any]] = field(default_factory=dict)
    passes: list[dict[str, Any]] = field(default_factory=list)
    published_s: float | None = None
    error: str = ""


class Probe:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def ask(self, label: str, suffix: str = "req", timeout: float = 300.0) -> dict[str, Any]:
        (self.dir / f"{label}.{suffix}").touch()
        out = self.dir / f"{label}.json"
        if not _wait(out.exists, timeout, 0.1):
            raise TimeoutError(f"the probe did not answer {label}")
        data: dict[str, Any] = json.loads(out.read_text())
        return data


def _passes(pid: int, probe: Probe, run: Run, passes: int, interval: float, snap_at: set[int]) -> None:
    """Wait for `passes` periodic passes (bursts of CPU); ask the probe after each (its own CPU not counted)."""
    deadline = time.monotonic() + interval * (passes + 3)
    last_t, last_c = time.monotonic(), cpu_seconds(pid)
    in_pass, busy = False, 0.0
    while time.monotonic() < deadline and len(run.passes) < passes:
        time.sleep(TICK)
        t, c = time.monotonic(), cpu_seconds(pid)
        dt, dc = t - last_t, c - last_c
        last_t, last_c = t, c
        if dc > BUSY * dt:
            in_pass, busy = True, busy + dc
        elif in_pass:
            k = len(run.passes) + 1
            data = probe.ask(f"pass{k}", "snapreq" if k in snap_at else "req")
            data["cpu"] = busy
            run.passes.append(data)
            in_pass, busy = False, 0.0
            last_t, last_c = time.monotonic(), cpu_seconds(pid)


def run_one(code: Path, label: str, n: int, events: int, passes: int, interval: float, trace: int,
            out_dir: Path | None, holders: bool = False) -> Run:
    run = Run(label, n)
    tmp = Path(tempfile.mkdtemp(prefix="edns-mem-"))
    probe_dir = out_dir / f"{label}-{n}" if out_dir else tmp / "probe"
    shutil.rmtree(probe_dir, ignore_errors=True)
    probe_dir.mkdir(parents=True)
    probe = Probe(probe_dir)
    server = KubeAPIServer(history_size=max(1000, 4 * events + 100)).start()
    view: BindView | None = None
    proc: subprocess.Popen[bytes] | None = None
    log_path = tmp / "controller.log"
    try:
        server.ensure_namespace("default")
        for i in range(n):
            server.create(_service(i, host_of(i, [ZONE])))
            set_ip(server, i, ip_of(i))
        view = BindView([ZONE])
        kubeconfig = server.write_kubeconfig(tmp / "kubeconfig")
        argv = [sys.executable, str(PROBE), "--source=service", "--policy=sync", "--registry=txt",
                "--txt-owner-id=bench", "--events", "--min-event-sync-interval=0s", f"--interval={interval:g}s",
                "--metrics-address=127.0.0.1:0", f"--kubeconfig={kubeconfig}",
                f"--log-level={os.environ.get('BENCH_MEM_LOG', 'warning')}", *view.flags()]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EXTERNAL_DNS_", "MEM_PROBE_"))}
        env.update(view.env(), PYTHONPATH=str(code), MEM_PROBE_DIR=str(probe_dir))
        if trace:
            env["MEM_PROBE_TRACE"] = str(trace)
        log_path = probe_dir / "controller.log" if out_dir else tmp / "controller.log"
        log = open(log_path, "wb")  # noqa: SIM115 - handed to the child
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        log.close()
        p, v = proc, view
        if not _wait(lambda: (probe_dir / "startup.json").exists() or p.poll() is not None, 120, 0.1):
            raise TimeoutError("no start-up report")
        run.points["start-up"] = json.loads((probe_dir / "startup.json").read_text())
        if not _wait(lambda: p.poll() is not None or v.count_a() >= n, 900, 0.5) or proc.poll() is not None:
            raise TimeoutError(f"not all published (exit {proc.poll()})")
        run.published_s = time.perf_counter() - started
        _quiet(proc.pid, 120)
        run.points["published"] = probe.ask("published", "snapreq")
        rng = random.Random(n)
        for k in range(events):
            i = rng.randrange(n)
            ip = f"172.{16 + k // 65536 % 16}.{k // 256 % 256}.{k % 256}"
            host = host_of(i, [ZONE])
            set_ip(server, i, ip)
            _wait(lambda h=host, a=ip: v.serves(h, a), 60, 0.01)  # type: ignore[misc]
        _quiet(proc.pid, 120)
        run.points["events"] = probe.ask("events")
        _passes(proc.pid, probe, run, passes, interval, {2, passes})
        if holders:
            run.points["holders"] = probe.ask("holders", "holders", timeout=900)
        run.points["trimonly"] = probe.ask("trimonly", "trimonly")
        run.points["garbage"] = probe.ask("garbage", "garbage")
        run.points["trimmed"] = probe.ask("trimmed", "trim")
        return run
    except Exception as exc:  # one failed scenario must not hide the others' figures
        run.error = f"{type(exc).__name__}: {exc}"
        return run
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if proc is not None and run.error:
            run.error += " | log tail: " + log_path.read_text(errors="replace")[-400:]
        if view is not None:
            view.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


HEADER = ("| code | records | start-up | all published (peak) | after events | pass 2 | pass 10 | flat | heap used / free "
          "after last pass | after malloc_trim / + gc.collect | goal |\n|---|---|---|---|---|---|---|---|---|---|---|")


def row(r: Run) -> str:
    if r.error:
        return f"| {r.label} | {r.n:,} | {r.error} |"

    def rss(d: dict[str, Any] | None) -> str:
        return f"{d['VmRSS']:.0f}" if d else "-"

    p2 = r.passes[1] if len(r.passes) > 1 else None
    last = r.passes[-1] if r.passes else None
    flat = f"{100 * (last['VmRSS'] / p2['VmRSS'] - 1):+.1f} %" if p2 and last else "-"
    heap = f"{last.get('malloc_used_mib', 0):.0f} / {last.get('malloc_free_mib', 0):.0f}" if last else "-"
    pub = r.points["published"]
    goal = 120 + 6 * r.n / 1024
    return (f"| {r.label} | {r.n:,} | {rss(r.points.get('start-up'))} | {rss(pub)} ({pub['VmHWM']:.0f}) "
            f"| {rss(r.points.get('events'))} | {rss(p2)} | {rss(last)} ({len(r.passes)}) | {flat} | {heap} "
            f"| {rss(r.points.get('trimonly'))} / {rss(r.points.get('trimmed'))} | {goal:.0f} |")


def analyse(directory: Path, top: int = 25) -> None:
    """Top allocation sites after publishing and what grew from pass 2 to the last pass (tracemalloc)."""
    snaps = {p.stem: p for p in directory.glob("*.snap")}
    passes = sorted((k for k in snaps if k.startswith("pass")), key=lambda k: int(k[4:]))
    if "published" in snaps:
        snap = tracemalloc.Snapshot.load(str(snaps["published"]))
        stats = snap.statistics("lineno")
        print(f"\n{directory.name}: after publishing, traced {sum(s.size for s in stats) / 2**20:.1f} MiB")
        for s in stats[:top]:
            print(f"  {s.size / 2**20:8.2f} MiB {s.count:9,d}  {s.traceback}")
    if len(passes) >= 2:
        a = tracemalloc.Snapshot.load(str(snaps[passes[0]]))
        b = tracemalloc.Snapshot.load(str(snaps[passes[-1]]))
        diff = b.compare_to(a, "lineno")
        total = sum(d.size_diff for d in diff)
        print(f"\n{directory.name}: {passes[0]} -> {passes[-1]}: {total / 2**20:+.2f} MiB traced")
        for d in diff[:top]:
            print(f"  {d.size_diff / 2**10:+9.0f} KiB {d.count_diff:+8,d}  {d.traceback}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench.memory_scale")
    p.add_argument("--n", default=os.environ.get("BENCH_MEM_SIZES", "10000"), help="records, comma list")
    p.add_argument("--code", default="", help="only this checkout (default: this tree, plus the baseline)")
    p.add_argument("--baseline", default=os.environ.get("BENCH_MEM_BASELINE", ""))
    p.add_argument("--after", default="", help="the code measured as 'after' (default: this tree)")
    p.add_argument("--events", type=int, default=20)
    p.add_argument("--passes", type=int, default=10)
    p.add_argument("--interval", type=float, default=10.0, help="--interval of the controller, seconds")
    p.add_argument("--trace", type=int, default=0, help="tracemalloc frames (0: off)")
    p.add_argument("--holders", action="store_true", help="after the last pass: what holds the Endpoints")
    p.add_argument("--keep", default="", help="keep the probe's reports (and snapshots) in this directory")
    p.add_argument("--analyse", default="", help="only print the analysis of a kept probe directory")
    args = p.parse_args(argv)
    if args.analyse:
        analyse(Path(args.analyse))
        return
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    codes = [(Path(args.code).name or "code", Path(args.code))] if args.code else \
        ([("before", Path(args.baseline))] if args.baseline else []) + [("after", Path(args.after or ROOT))]
    out_dir = Path(args.keep) if args.keep else (Path(tempfile.mkdtemp(prefix="edns-memkeep-")) if args.trace else None)
    print(f"N LoadBalancer Services in one zone on BIND, --events --interval={args.interval:g}s, {args.events} events, "
          f"{args.passes} passes; RSS in MiB (shared machine)\n")
    print(HEADER, flush=True)
    for n in [int(s) for s in args.n.split(",") if s.strip()]:
        for label, code in codes:
            r = run_one(code, label, n, args.events, args.passes, args.interval, args.trace, out_dir, args.holders)
            print(row(r), flush=True)
            if args.trace and out_dir is not None and not r.error:
                analyse(out_dir / f"{label}-{n}")


if __name__ == "__main__":
    main()
