"""Start-up in the image (`make image`, as root: runc and umoci) against the same command on the host.

`python -m bench.image_startup` (not part of `make bench`: it needs root and a built image in dist/). Rows,
each the median and 90th percentile of `BENCH_IMAGE_RUNS` (default 20) fresh processes, all in one run:
- `external-dns --version` and the manifest -> zone file demo (`--once`), as processes started inside one
  running container of the image (the chart's pod settings: uid 65532, read-only root, no capabilities): the
  image's Debian python3.11 and its byte-compiled venv;
- the same commands on the host: the project's .venv (the host's Python, modules byte-compiled on first use);
- `runc run` of `external-dns --version`: a whole container, created, run and deleted (what a pod's start
  adds, image pull aside).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tests.charts.render import ROOT
from tests.image.runtime import Pod, built, chart_container, unpack

RUNS = int(os.environ.get("BENCH_IMAGE_RUNS", "20"))
DEMO = ["--once", "--source=manifest", "--manifest-dir={manifests}", "--provider=zonefile",
        "--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync", "--txt-owner-id=demo"]
# Run inside the container: times RUNS fresh processes of each command; JSON {name: [seconds...]}.
_DRIVER = """if True:
    import json, shutil, subprocess, sys, time
    runs, commands = json.loads(sys.argv[1])
    out = {}
    for name, argv in commands.items():
        times = []
        for _ in range(runs):
            shutil.rmtree("/tmp/zones", ignore_errors=True)
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        out[name] = times
    print(json.dumps(out))
"""


def _commands(exe: str, manifests: str, zones: str) -> dict[str, list[str]]:
    return {"--version": [exe, "--version"],
            "demo --once": [exe, *(a.format(manifests=manifests, zones=zones) for a in DEMO)]}


def _stats(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"{statistics.median(ordered) * 1000:7.0f} ms | {p90 * 1000:7.0f} ms"


def _time(run: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    image = built()
    with tempfile.TemporaryDirectory(prefix="bench-image-") as tmp:
        work = Path(tmp)
        bundle = unpack(image, work / "bundle")
        container, pod_spec = chart_container()
        pod = Pod(bundle, container, pod_spec, work, {"/examples/manifests": ROOT / "examples" / "manifests"})
        driver = pod.run(["-c", _DRIVER, json.dumps([RUNS, _commands("external-dns", "/examples/manifests",
                                                                     "/tmp/zones")])],
                         command=["/opt/external-dns/bin/python"], timeout=600)
        if driver.returncode != 0:
            raise SystemExit(driver.stderr)
        in_image: dict[str, list[float]] = json.loads(driver.stdout)
        host_exe = str(Path(sys.executable).parent / "external-dns")
        host: dict[str, list[float]] = {}
        zones = work / "zones"
        for name, argv in _commands(host_exe, str(ROOT / "examples" / "manifests"), str(zones)).items():
            host[name] = _time(partial(_fresh_run, argv, zones))
        runc = _time(lambda: _check(pod.run(["--version"])))
    print(f"image {image.summary['reference']} {image.summary['digest'][:19]}, {RUNS} runs each\n")
    print("| command | where | median | p90 |")
    print("|---|---|---|---|")
    for name in in_image:
        print(f"| `{name}` | in the image (process in a running container) | {_stats(in_image[name])} |")
        print(f"| `{name}` | host .venv | {_stats(host[name])} |")
    print(f"| `--version` | `runc run`: container created, run, deleted | {_stats(runc)} |")


def _fresh_run(argv: list[str], zones: Path) -> None:
    """One host run from an empty zone directory, as each run in the image."""
    shutil.rmtree(zones, ignore_errors=True)
    subprocess.run(argv, check=True, capture_output=True)


def _check(proc: subprocess.CompletedProcess[str]) -> None:
    if proc.returncode != 0:
        raise SystemExit(proc.stdout + proc.stderr)


if __name__ == "__main__":
    main()
