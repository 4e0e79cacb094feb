"""Whole-process `external-dns --once` against `octodns-sync --doit`: start-up, imports, reading the input,
reading the zone, planning and writing, as a CI job pays it.

Both tools run as fresh processes on the same records, in the same run, on this machine:
- ours: `python -m external_dns --once --source=manifest --registry=txt --policy=sync` over DNSEndpoint
  manifests (`BENCH_CLI_PER_OBJECT` endpoints per object, default 100; 1 = one object per record), into BIND
  (`--provider=rfc2136`, TSIG, AXFR read-back, default batch size) or a zone file (`--provider=zonefile`,
  `--zonefile-create-zone`);
- "before": the same command on the code of another checkout (`BENCH_CLI_BASELINE`, a directory holding the
  `external_dns` package, e.g. a `git worktree add /tmp/p-baseline <commit>`), so the figures of the code
  before a change come from the same run; skipped when unset;
- octoDNS 1.22 (`octodns-sync --doit`, installed into .bench/ by bench/octodns.py): YamlProvider (the same
  N A records) -> OwnershipProcessor -> octodns-bind's Rfc2136Provider (its default batch of 1000) or
  ZoneFileProvider. Both tools write 2N records (each A plus an ownership TXT).

Steps: "create" starts from an empty zone (a fresh BIND zone, an empty zone-file directory), "no-op" runs the
same command again (nothing to change; octoDNS's ZoneFileProvider rewrites its file on every run: it never
reads its target). Every run's zone is checked afterwards (record counts by AXFR / zone-file parse).
Each figure is the best of `BENCH_CLI_REPEAT` (2) runs, each into a zone of its own; 100k records run once.
`BENCH_CLI_SIZES` (1000,5000,20000,100000), `BENCH_CLI_OCTO_MAX` (largest N octoDNS and the "before" code run
for, default 100000), `BENCH_CLI_BEFORE_MAX` (largest N for "before", default 20000), `BENCH_CLI_BACKENDS`
(bind,zonefile), `BENCH_CLI_CLOCK` (wall; cpu: each process's user + sys CPU seconds, steadier on a shared
machine), `BENCH_CLI_PROFILE` (1: profile our side with
cProfile at the largest N up to 20000 and print the top costs).

Our trees are byte-compiled first (`compileall`), as an installed package is; octoDNS runs from its pip-installed
venv. Also measured (median of 5 processes): `external-dns --help`, `--version`, and start-up to the first provider
call: the time from spawning `--once --provider=rfc2136` until its first TCP connection reaches a listening
socket standing in for the DNS server.
"""

from __future__ import annotations

import os
import pstats
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.octodns import ensure_octodns, write_octo_config
from bench.provider_sync_bind import OCTO_PACKAGES, TTL, write_zone_yaml
from tests.servers.bind import BindServer, running_bind

ROOT = Path(__file__).resolve().parents[1]
SIZES = tuple(int(s) for s in os.environ.get("BENCH_CLI_SIZES", "1000,5000,20000,100000").split(",") if s.strip())
REPEAT = max(1, int(os.environ.get("BENCH_CLI_REPEAT", "2")))
OCTO_MAX = int(os.environ.get("BENCH_CLI_OCTO_MAX", "100000"))
BACKENDS = tuple(b for b in os.environ.get("BENCH_CLI_BACKENDS", "bind,zonefile").split(",") if b)
PER_OBJECT = max(1, int(os.environ.get("BENCH_CLI_PER_OBJECT", "100")))
BASELINE = os.environ.get("BENCH_CLI_BASELINE", "")
PROFILE = os.environ.get("BENCH_CLI_PROFILE", "1") == "1"
OURS = os.environ.get("BENCH_CLI_OURS", "1") == "1"  # 0: only "before" and octoDNS (a BEFORE table)
# The checkout "ours" runs from (default: this one); e.g. a `git worktree` of a commit, so that edits made in
# this tree while the benchmark runs do not leak into it.
OURS_TREE = os.environ.get("BENCH_CLI_OURS_TREE", str(ROOT))
# The code before the zone-file rewrite re-parses the whole zone for every batch of 1000 changes: its
# zone-file create of 100k records would take hours, so "before" runs up to this size only.
BEFORE_MAX = int(os.environ.get("BENCH_CLI_BEFORE_MAX", "20000"))
# Our code once more on BIND with this --rfc2136-batch-change-size (octoDNS's default is 1000; ours stays 50
# as external-dns's): what a larger batch buys. 0 = not run.
BIG_BATCH = int(os.environ.get("BENCH_CLI_BIG_BATCH", "1000"))
OWNER = "bench"
TIMEOUT = 1800
# "cpu": each figure is the process's CPU seconds (user + sys, from getrusage of the reaped child) instead of
# wall-clock seconds: on a machine shared with other work, wall figures swing with the load, CPU much less.
CLOCK = os.environ.get("BENCH_CLI_CLOCK", "wall")


@dataclass
class Side:
    """One tool: how to start it (the command before the tool's own arguments, its PYTHONPATH)."""

    name: str
    tree: str = ""  # a checkout holding external_dns/ (ours and "before")
    extra: tuple[str, ...] = ()  # more flags (BIND only)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}
        env.pop("PYTHONPATH", None)
        if self.tree:
            env["PYTHONPATH"] = self.tree  # run from another directory: the tree wins over the installed one
        return env


def repeats(n: int) -> int:
    return 1 if n >= 100_000 else REPEAT


def write_manifests(directory: Path, zone: str, n: int) -> None:
    """N DNSEndpoint endpoints `host-NNNNN.<zone> A 10.x.y.z` (TTL 300), PER_OBJECT per object, one file."""
    directory.mkdir(parents=True, exist_ok=True)
    parts: list[str] = []
    for first in range(0, n, PER_OBJECT):
        eps = "".join(
            f"  - dnsName: host-{i:05d}.{zone}\n    recordType: A\n    recordTTL: {TTL}\n"
            f"    targets: [\"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}\"]\n"
            for i in range(first, min(n, first + PER_OBJECT)))
        parts.append(f"apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: rec-{first}\n"
                     f"  namespace: default\nspec:\n  endpoints:\n{eps}")
    (directory / "records.yaml").write_text("---\n".join(parts))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(cmd: Sequence[str], env: dict[str, str], cwd: Path) -> float:
    t, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run(list(cmd), env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    elapsed = time.perf_counter() - t if CLOCK != "cpu" else _children_cpu() - cpu
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[:4]}... exited {out.returncode}: {out.stderr[-2000:]}")
    return elapsed


def ours_cmd(side: Side, manifests: Path, provider_args: Sequence[str], profile: Path | None = None) -> list[str]:
    prof = ["-m", "cProfile", "-o", str(profile)] if profile is not None else []
    return [sys.executable, *prof, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
            "--registry=txt", f"--txt-owner-id={OWNER}", "--policy=sync", *provider_args]


def bind_args(srv: BindServer, zone: str) -> list[str]:
    return ["--provider=rfc2136", f"--rfc2136-host={srv.host}", f"--rfc2136-port={srv.port}",
            f"--rfc2136-zone={zone}", f"--rfc2136-tsig-keyname={srv.key_name}",
            f"--rfc2136-tsig-secret-alg={srv.key_algorithm}", f"--rfc2136-tsig-secret={srv.key_secret}",
            "--rfc2136-axfr"]


def zonefile_args(directory: Path, zone: str) -> list[str]:
    return ["--provider=zonefile", f"--zonefile-dir={directory}", f"--zonefile-create-zone={zone}"]


def count_bind(srv: BindServer, zone: str) -> tuple[int, int]:
    a = txt = 0
    for _name, rtype, _ttl, values in srv.axfr(zone):
        a += len(values) if rtype == "A" else 0
        txt += len(values) if rtype == "TXT" else 0
    return a, txt


def count_zonefile(path: Path) -> tuple[int, int]:
    """(A, TXT) records of a zone file, by dnspython's parser (independent of ours)."""
    import dns.rdatatype
    import dns.zone

    z = dns.zone.from_file(str(path), origin=None, relativize=False, check_origin=False)
    a = txt = 0
    for _name, _ttl, rd in z.iterate_rdatas():
        a += rd.rdtype == dns.rdatatype.A
        txt += rd.rdtype == dns.rdatatype.TXT
    return a, txt


class Runner:
    def __init__(self, work: Path, octo_python: Path | None) -> None:
        self.work = work
        self.octo = octo_python
        self.sides = [Side("ours", OURS_TREE)] if OURS else []
        if BASELINE:
            self.sides.insert(0, Side("before", BASELINE))
        self.results: dict[tuple[str, int, str, str], float] = {}  # (backend, n, tool, step) -> best seconds

    def record(self, backend: str, n: int, tool: str, step: str, seconds: float) -> None:
        print(f"  {backend} N={n} {tool} {step}: {seconds:.3f} s", file=sys.stderr, flush=True)
        key = (backend, n, tool, step)
        self.results[key] = min(seconds, self.results.get(key, float("inf")))

    def octo_sync(self, config: Path) -> float:
        assert self.octo is not None
        exe = self.octo.parent / "octodns-sync"
        return run_timed([str(exe), f"--config-file={config}", "--doit", "--force"],
                         {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, self.work)

    # -- BIND ------------------------------------------------------------------------------------------------
    def bind_round(self, srv: BindServer, n: int, rep: int) -> None:
        sides = [*self.sides, Side(f"ours-b{BIG_BATCH}", OURS_TREE, (f"--rfc2136-batch-change-size={BIG_BATCH}",))]
        for side in sides if OURS and BIG_BATCH else self.sides:
            if side.name == "before" and n > min(OCTO_MAX, BEFORE_MAX):
                continue
            zone = f"{side.name}-{n}-{rep}.test"
            manifests = self.work / f"m-{zone}"
            write_manifests(manifests, zone, n)
            cmd = ours_cmd(side, manifests, [*bind_args(srv, zone), *side.extra])
            self.record("bind", n, side.name, "create", run_timed(cmd, side.env(), self.work))
            if count_bind(srv, zone) != (n + 1, n):  # + the name server's own address
                raise RuntimeError(f"{side.name}: zone {zone} holds {count_bind(srv, zone)} (A, TXT)")
            self.record("bind", n, side.name, "no-op", run_timed(cmd, side.env(), self.work))
            shutil.rmtree(manifests)
        if self.octo is not None and n <= OCTO_MAX:
            zone = f"octo-{n}-{rep}.test"
            zone_yaml = self.work / f"octo-{n}.yaml"
            if not zone_yaml.exists():
                write_zone_yaml(zone_yaml, n)
            config = write_octo_config(self.work, zone, zone_yaml, TTL, "bind", {
                "class": "octodns_bind.Rfc2136Provider", "host": srv.host, "port": srv.port,
                "key_name": srv.key_name, "key_secret": srv.key_secret, "key_algorithm": srv.key_algorithm})
            self.record("bind", n, "octoDNS", "create", self.octo_sync(config))
            a, txt = count_bind(srv, zone)
            if a != n + 1 or txt < n:
                raise RuntimeError(f"octoDNS: zone {zone} holds {a} A / {txt} TXT")
            self.record("bind", n, "octoDNS", "no-op", self.octo_sync(config))

    # -- zone files ------------------------------------------------------------------------------------------
    def zonefile_round(self, n: int, rep: int) -> None:
        for side in self.sides:
            if side.name == "before" and n > min(OCTO_MAX, BEFORE_MAX):
                continue
            zone = f"{side.name}-{n}-{rep}.test"
            manifests = self.work / f"m-{zone}"
            write_manifests(manifests, zone, n)
            directory = self.work / f"zones-{zone}"
            cmd = ours_cmd(side, manifests, zonefile_args(directory, zone))
            self.record("zonefile", n, side.name, "create", run_timed(cmd, side.env(), self.work))
            if count_zonefile(directory / f"{zone}.zone") != (n, n):
                raise RuntimeError(f"{side.name}: zone {zone} holds {count_zonefile(directory / f'{zone}.zone')}")
            self.record("zonefile", n, side.name, "no-op", run_timed(cmd, side.env(), self.work))
            shutil.rmtree(manifests)
            shutil.rmtree(directory)
        if self.octo is not None and n <= OCTO_MAX:
            zone = f"octo-{n}-{rep}.test"
            zone_yaml = self.work / f"octo-{n}.yaml"
            if not zone_yaml.exists():
                write_zone_yaml(zone_yaml, n)
            directory = self.work / f"zones-{zone}"
            directory.mkdir()
            config = write_octo_config(self.work, zone, zone_yaml, TTL, "zonefile", {
                "class": "octodns_bind.ZoneFileProvider", "directory": str(directory), "file_extension": ".zone"})
            self.record("zonefile", n, "octoDNS", "create", self.octo_sync(config))
            a, txt = count_zonefile(directory / f"{zone}.zone")
            if a != n + 1 or txt < n:
                raise RuntimeError(f"octoDNS: zone file {zone} holds {a} A / {txt} TXT")
            self.record("zonefile", n, "octoDNS", "no-op", self.octo_sync(config))
            shutil.rmtree(directory)

    # -- profile -----------------------------------------------------------------------------------------------
    def profile(self, srv: BindServer | None, n: int) -> list[str]:
        out: list[str] = []
        side = self.sides[-1]
        for backend in BACKENDS:
            zone = f"profile-{n}.test" if backend == "bind" else f"profile-zf-{n}.test"
            manifests = self.work / f"m-{zone}"
            write_manifests(manifests, zone, n)
            if backend == "bind":
                assert srv is not None
                args = bind_args(srv, zone)
            else:
                args = zonefile_args(self.work / f"zones-{zone}", zone)
            for step in ("create", "no-op"):
                prof = self.work / f"{zone}-{step}.prof"
                run_timed(ours_cmd(side, manifests, args, profile=prof), side.env(), self.work)
                out.append(f"\n### ours, {backend}, N={n}, {step}: top 12 by own time (cProfile)\n")
                out.append(top_costs(prof))
        return out


def top_costs(path: Path, limit: int = 12) -> str:
    stats = pstats.Stats(str(path))
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:limit]  # type: ignore[attr-defined]
    lines = [f"total {total:.3f} s under the profiler", "", "| own s | cum s | calls | function |", "|---:|---:|---:|---|"]
    for (file, line, func), (_cc, nc, tt, ct, _callers) in rows:
        where = file.replace(OURS_TREE + "/", "").replace(str(ROOT) + "/", "").replace(sys.prefix, "<venv>")
        lines.append(f"| {tt:.3f} | {ct:.3f} | {nc} | {func} ({where}:{line}) |")
    return "\n".join(lines)


# -- start-up figures ------------------------------------------------------------------------------------------
def startup_figures(work: Path, sides: Sequence[Side]) -> list[tuple[str, dict[str, float]]]:
    """Median of 5 processes each: --help, --version, start-up to the first provider call."""
    manifests = work / "m-startup"
    write_manifests(manifests, "startup.test", 10)
    rows: list[tuple[str, dict[str, float]]] = [("external-dns --help", {}), ("external-dns --version", {}),
                                                ("start-up to the first provider call (manifest -> rfc2136)", {})]
    for side in sides:
        base = [sys.executable, "-m", "external_dns"]
        for (_label, cells), args in zip(rows, (["--help"], ["--version"]), strict=False):
            times = []
            for _ in range(5):
                t = time.perf_counter()
                subprocess.run([*base, *args], env=side.env(), cwd=work, capture_output=True, timeout=60, check=False)
                times.append(time.perf_counter() - t)
            cells[side.name] = statistics.median(times)
        rows[2][1][side.name] = statistics.median(first_provider_call(side, manifests) for _ in range(5))
    return rows


def first_provider_call(side: Side, manifests: Path) -> float:
    """Seconds from spawning `--once --provider=rfc2136` to its first connection to the DNS server (a
    listening socket here)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        listener.settimeout(30)
        args = ["--provider=rfc2136", "--rfc2136-host=127.0.0.1", f"--rfc2136-port={port}",
                "--rfc2136-zone=startup.test", "--rfc2136-insecure", "--rfc2136-axfr"]
        t = time.perf_counter()
        proc = subprocess.Popen(ours_cmd(side, manifests, args), env=side.env(), cwd=manifests.parent,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            conn, _ = listener.accept()
            elapsed = time.perf_counter() - t
            conn.close()
        finally:
            proc.kill()
            proc.wait(timeout=30)
    return elapsed


def print_table(runner: Runner) -> None:
    big = [f"ours-b{BIG_BATCH}"] if OURS and BIG_BATCH else []
    tools = [s.name for s in runner.sides] + big + (["octoDNS"] if runner.octo is not None else [])
    head = " | ".join(f"{t} (s)" for t in tools)
    ratios = ["ours / octoDNS"] + [f"{b} / octoDNS" for b in big] if runner.octo is not None else []
    if BASELINE and runner.octo is not None:
        ratios.insert(0, "before / octoDNS")
    if not OURS:
        ratios = ratios[:1]
    print(f"| backend | N | step | {head} | {' | '.join(ratios)} | goal |")
    print("|---|---:|---|" + "---:|" * (len(tools) + len(ratios)) + "---|")
    for backend in BACKENDS:
        for n in SIZES:
            for step in ("create", "no-op"):
                vals = [runner.results.get((backend, n, t, step)) for t in tools]
                cells = [f"{v:.2f}" if v is not None else "n/a" for v in vals]
                octo = runner.results.get((backend, n, "octoDNS", step))
                rat = []
                for t in (["before"] if BASELINE else []) + (["ours"] if OURS else []) + big:
                    if runner.octo is None:
                        continue
                    v = runner.results.get((backend, n, t, step))
                    rat.append(f"{v / octo:.2f}" if v is not None and octo else "n/a")
                goal = ""
                if n in (5000, 20000):
                    goal = "<= 0.5" if step == "create" else "<= 0.35"
                if backend == "zonefile" and n == 100_000 and step == "no-op":
                    goal = "ours <= 3 s"
                print(f"| {backend} | {n} | {step} | {' | '.join(cells)} | {' | '.join(rat)} | {goal} |")


def compile_trees(trees: Sequence[str]) -> None:
    """Byte-compile our trees first, as an installed package is (octoDNS runs from its pip-installed venv):
    with PYTHONDONTWRITEBYTECODE set, every process would otherwise compile ~300 modules from source."""
    for tree in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tree) / "external_dns")], check=True,
                       capture_output=True, timeout=600)


def main() -> None:
    python, why = ensure_octodns(OCTO_PACKAGES, "octodns_bind")
    work = Path(tempfile.mkdtemp(prefix="cli-bench-"))
    runner = Runner(work, python)
    compile_trees([side.tree for side in runner.sides if side.tree])
    profile_lines: list[str] = []
    try:
        startup = startup_figures(work, runner.sides)
        zones = [f"{s}-{n}-{r}.test" for n in SIZES for r in range(repeats(n))
                 for s in ("before", "ours", f"ours-b{BIG_BATCH}", "octo")]
        prof_n = max((n for n in SIZES if n <= 20000), default=0)
        if prof_n:
            zones.append(f"profile-{prof_n}.test")
        if "bind" in BACKENDS:
            with running_bind(zones, with_tls=False) as srv:
                for n in SIZES:
                    for rep in range(repeats(n)):
                        runner.bind_round(srv, n, rep)
                    print(f"  bind N={n}: done", file=sys.stderr, flush=True)
                if PROFILE and prof_n:
                    profile_lines += runner.profile(srv, prof_n)
        if "zonefile" in BACKENDS:
            for n in SIZES:
                for rep in range(repeats(n)):
                    runner.zonefile_round(n, rep)
                print(f"  zonefile N={n}: done", file=sys.stderr, flush=True)
            if PROFILE and prof_n and "bind" not in BACKENDS:
                profile_lines += runner.profile(None, prof_n)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    names = [side.name for side in runner.sides]
    print(f"| whole process, median of 5 | {' | '.join(names)} | goal |\n|---|" + "---:|" * len(names) + "---|")
    for (label, cells), goal in zip(startup, ("< 150 ms", "< 150 ms", "< 200 ms"), strict=True):
        print(f"| {label} | {' | '.join(f'{cells[n] * 1000:.0f} ms' for n in names)} | {goal} |")
    print()
    print_table(runner)
    print(f"\nWhole processes, best of {REPEAT} (100k: one run); 2N records written (A + ownership TXT); "
          f"{PER_OBJECT} endpoint(s) per DNSEndpoint object; 2 shared cores"
          + ("; figures are CPU seconds (user + sys) of each process, not wall time." if CLOCK == "cpu" else "."))
    if python is None:
        print(f"\noctoDNS could not be run: {why}")
    print("\n".join(profile_lines))


if __name__ == "__main__":
    main()
