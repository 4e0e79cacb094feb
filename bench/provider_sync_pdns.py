"""Whole-process full sync and no-op re-sync of N records into a real PowerDNS: `external-dns --once
--provider=pdns` against `octodns-sync --doit` with octoDNS's PowerDNS provider (octodns-powerdns), in the
same run, on the same pdns_server.

- ours: `python -m external_dns --once --source=manifest --registry=txt --policy=sync --provider=pdns` over one
  file of N DNSEndpoint objects (one endpoint each: `host-NNNNN.<zone> A 10.x.y.z`, TTL 300), the API key from
  EXTERNAL_DNS_PDNS_API_KEY, `--domain-filter=<zone>`;
- octoDNS 1.22 + octodns-powerdns 1.2 (installed into .bench/ by bench/octodns.py): YamlProvider (the same N
  A records, plus `ns1`) -> OwnershipProcessor -> PowerDnsProvider.
Both write 2N records (each A plus an ownership TXT), each into a zone of its own, created empty before its
first run. "full" starts from the empty zone; "no-op" runs the same command again. Times are wall clock of
the whole process (interpreter start, imports, reading the input, reading the zone, planning, writing), as a
CI job pays them. Our tree is byte-compiled first, as an installed package is (octoDNS runs from its
pip-installed venv), as bench/cli_vs_octodns.py does. Every full sync is checked by reading the zone back
through the API.

octoDNS sends a whole zone's changes in one PATCH, over PowerDNS's default 2 MB body limit from about 8,000
records, so the server here accepts bodies up to 256 MB; ours stays under its 1.94 MiB request limit anyway.
Ours runs with the default flags: without `--apply-batch-size` the pdns provider takes a zone's whole plan per
call and packs it into as few PATCHes as fit (every PATCH costs PowerDNS ~0.1 s on a 40k-rrset zone, whatever
its size). `BENCH_PDNS_BASELINE` (a checkout of the code before a change, e.g. a `git worktree`) adds a
"before" row: the same command on that tree, in the same run.
Goals: ours/octoDNS <= 0.5 for full syncs, <= 0.35 for no-ops. `BENCH_PDNS_SIZES` (5000,20000),
`BENCH_PDNS_REPEAT` (best of 2). `.venv/bin/python -m bench provider_sync_pdns`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.cli_vs_octodns import compile_trees
from bench.octodns import ensure_octodns, write_octo_config
from bench.provider_sync_bind import TTL, write_zone_yaml
from tests.servers.pdns import PdnsServer, start_pdns

ROOT = Path(__file__).resolve().parents[1]
OCTO_PACKAGES = ("octodns==1.22.*", "octodns-powerdns==1.2.*")
SIZES = tuple(int(s) for s in os.environ.get("BENCH_PDNS_SIZES", "5000,20000").split(",") if s.strip())
REPEAT = max(1, int(os.environ.get("BENCH_PDNS_REPEAT", "2")))
GOALS = {"full sync": 0.5, "no-op": 0.35}
BASELINE = os.environ.get("BENCH_PDNS_BASELINE", "")
TIMEOUT = 1800


def write_manifests(directory: Path, zone: str, n: int) -> None:
    """N DNSEndpoint objects, one endpoint each, in one file."""
    directory.mkdir(parents=True, exist_ok=True)
    docs = [f"apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: rec-{i}\n"
            f"  namespace: default\nspec:\n  endpoints:\n  - dnsName: host-{i:05d}.{zone}\n    recordType: A\n"
            f"    recordTTL: {TTL}\n    targets: [\"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}\"]\n"
            for i in range(n)]
    (directory / "records.yaml").write_text("---\n".join(docs))


def run_timed(cmd: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall clock, CPU seconds of the process: user + system) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(list(cmd), env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... exited {out.returncode}: {out.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


Timing = tuple[float, float]  # (wall, CPU) seconds


def count(srv: PdnsServer, zone: str) -> tuple[int, int]:
    """(A records, TXT records) of the zone, through the API."""
    a = txt = 0
    for (_name, rtype), (_ttl, values) in srv.records(zone).items():
        a += len(values) if rtype == "A" else 0
        txt += len(values) if rtype == "TXT" else 0
    return a, txt


def ours(srv: PdnsServer, work: Path, zone: str, n: int, tree: Path = ROOT) -> tuple[Timing, Timing]:
    manifests = work / f"m-{zone}"
    write_manifests(manifests, zone, n)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}
    env["EXTERNAL_DNS_PDNS_API_KEY"] = srv.api_key
    env["PYTHONPATH"] = str(tree)
    cmd = [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
           "--registry=txt", "--txt-owner-id=bench", "--policy=sync", "--provider=pdns", *srv.pdns_flags(),
           f"--domain-filter={zone}", "--log-level=warning"]
    full = run_timed(cmd, env, work)
    if count(srv, zone) != (n, n):
        raise RuntimeError(f"ours: zone {zone} holds {count(srv, zone)} (A, TXT), expected {(n, n)}")
    mark = srv.mark()
    noop = run_timed(cmd, env, work)
    patches = [r for r in srv.requests_since(mark) if r[0] == "PATCH"]
    if patches:
        raise RuntimeError(f"ours: the no-op sent {len(patches)} PATCH request(s)")
    return full, noop


def octo(python: Path, srv: PdnsServer, work: Path, zone: str, n: int) -> tuple[Timing, Timing]:
    zone_yaml = work / f"octo-{n}.yaml"
    if not zone_yaml.exists():
        write_zone_yaml(zone_yaml, n)
    config = write_octo_config(work, zone, zone_yaml, TTL, "pdns", {
        "class": "octodns_powerdns.PowerDnsProvider", "host": srv.host, "port": srv.api_port,
        "api_key": "env/PDNS_API_KEY", "server_id": srv.server_id})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PDNS_API_KEY"] = srv.api_key
    cmd = [str(python.parent / "octodns-sync"), f"--config-file={config}", "--doit", "--force"]
    full = run_timed(cmd, env, work)
    a, txt = count(srv, zone)
    if a != n + 1 or txt < n:  # + octoDNS's ns1 record
        raise RuntimeError(f"octoDNS: zone {zone} holds {a} A / {txt} TXT, expected {n + 1} / {n}")
    noop = run_timed(cmd, env, work)
    return full, noop


def main() -> None:
    python, why = ensure_octodns(OCTO_PACKAGES, "octodns_powerdns")
    compile_trees([str(ROOT), *([BASELINE] if BASELINE else [])])
    results: dict[tuple[int, str, str], Timing] = {}
    with tempfile.TemporaryDirectory(prefix="bench-pdns-") as tmp, start_pdns(zones=(), max_body_mb=256) as srv:
        work = Path(tmp)
        for n in SIZES:
            for rep in range(REPEAT):
                tools = ([("before", None)] if BASELINE else []) + [("ours", None)] + (
                    [("octoDNS", python)] if python is not None else [])
                for i, (tool, octo_python) in enumerate(tools):
                    zone = f"t{i}-{n}-{rep}.test"
                    srv.create_zone(zone)
                    if octo_python is not None:
                        full, noop = octo(octo_python, srv, work, zone, n)
                    else:
                        full, noop = ours(srv, work, zone, n, Path(BASELINE) if tool == "before" else ROOT)
                    srv.delete_zone(zone)
                    for step, timing in (("full sync", full), ("no-op", noop)):
                        key = (n, tool, step)
                        best = results.get(key)
                        results[key] = (min(timing[0], best[0]), min(timing[1], best[1])) if best else timing
                    print(f"  N={n} run {rep + 1}: {tool} full {full[0]:.2f} s (CPU {full[1]:.2f} s), "
                          f"no-op {noop[0]:.2f} s (CPU {noop[1]:.2f} s)", flush=True)
    print_table(results, why)


def print_table(results: dict[tuple[int, str, str], Timing], why: str) -> None:
    print(f"\nWhole process, best of {REPEAT}, 2N records (A + ownership TXT), one pdns_server {_pdns_version()}; "
          "wall clock, and the tool's own CPU time (user + system, PowerDNS's excluded)")
    if why:
        print(f"octoDNS not run: {why}")
    print("| N | operation | tool | wall | octoDNS wall | ratio | CPU | octoDNS CPU | CPU ratio | goal |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in SIZES:
        for step, goal in GOALS.items():
            peer = results.get((n, "octoDNS", step))
            for tool in ("before", "ours") if BASELINE else ("ours",):
                mine = results.get((n, tool, step))
                cells = []
                for i in (0, 1):
                    a, b = (mine[i] if mine else None), (peer[i] if peer else None)
                    cells += [f"{a:.2f} s" if a is not None else "-", f"{b:.2f} s" if b is not None else "-",
                              f"{a / b:.2f}" if a is not None and b else "-"]
                print(f"| {n} | {step} | {tool} | {' | '.join(cells)} | <= {goal} |")


def _pdns_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "pdns-server"], capture_output=True, text=True,
                         check=False)
    return out.stdout.strip() or "(version unknown)"


if __name__ == "__main__":
    main()
