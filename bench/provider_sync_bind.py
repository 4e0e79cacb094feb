"""Full sync and no-op re-sync of N records into a real BIND9: ours (Controller -> TXT registry -> RFC2136
provider) side by side with octoDNS 1.22 (YamlProvider -> OwnershipProcessor -> octodns-bind Rfc2136Provider).

Both tools read the same generated YAML zone file (N A records, TTL 300) on every sync, write into their own
zone of the same `named` (started here on a free loopback port), and both write 2N records (each A plus an
ownership TXT). Times are in-process wall clock of one sync (octoDNS: `Manager(config).sync()`, run in its
own venv under .bench/ by a small driver; ours: building the pipeline and `Controller.run_once()`), so the
interpreter start and imports are excluded on both sides. After every sync the zone is read back by AXFR to
check that the records really are there. Goal: ours/octoDNS <= 0.5 for full syncs, <= 0.1 for no-ops.

Each figure is the median of `BENCH_BIND_REPEAT` (3) runs, every run into a zone of its own (so every full
sync starts from an empty zone). `.venv/bin/python -m bench provider_sync_bind`; `BENCH_BIND_SIZES=1000,5000`
picks other sizes.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from bench.octodns import ensure_octodns, write_octo_config
from external_dns.cmd.config import parse_config
from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.logging_setup import configure_logging
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source
from tests.servers.bind import BindServer, running_bind

OCTO_PACKAGES = ("octodns==1.22.*", "octodns-bind==1.1.*")
SIZES = tuple(int(s) for s in os.environ.get("BENCH_BIND_SIZES", "1000,5000,20000").split(",") if s.strip())
REPEAT = max(1, int(os.environ.get("BENCH_BIND_REPEAT", "3")))  # median of this many runs, each into a new zone
TTL = 300
OCTO_BATCH = 1000  # octodns-bind's default update_batch_size

_Loader: Any = getattr(yaml, "CBaseLoader", yaml.BaseLoader)

OCTO_DRIVER = """
import json, sys, time
t0 = time.perf_counter()
from octodns.manager import Manager
t1 = time.perf_counter()
Manager(sys.argv[1]).sync(eligible_zones=[sys.argv[2]], dry_run=False)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "sync": t2 - t1}))
"""


def write_zone_yaml(path: Path, n: int) -> None:
    """octoDNS YamlProvider format: `host-00042: {type: A, ttl: 300, value: 10.x.y.z}`, sorted."""
    lines = []
    for i in range(n):
        lines.append(f"host-{i:05d}:\n  ttl: {TTL}\n  type: A\n  value: 10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}\n")
    lines.append(f"ns1:\n  ttl: {TTL}\n  type: A\n  value: 127.0.0.1\n")
    path.write_text("---\n" + "".join(lines))


def load_yaml_strings(path: Path) -> Any:
    """The YAML document as plain dicts, lists and strings, built straight from libyaml's parser events
    (PyYAML's node composition and constructors cost several times the parsing itself)."""
    stack: list[Any] = []
    keys: list[Any] = []
    root: Any = None

    def put(value: Any) -> None:
        nonlocal root
        if not stack:
            root = value
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        elif keys[-1] is None:
            keys[-1] = value
        else:
            stack[-1][keys[-1]] = value
            keys[-1] = None

    with path.open("rb") as fh:
        for event in yaml.parse(fh, Loader=_Loader):
            if isinstance(event, yaml.ScalarEvent):
                put(event.value)
            elif isinstance(event, yaml.MappingStartEvent):
                container: Any = {}
                put(container)
                stack.append(container)
                keys.append(None)
            elif isinstance(event, yaml.SequenceStartEvent):
                seq: list[Any] = []
                put(seq)
                stack.append(seq)
                keys.append(None)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
                keys.pop()
            elif isinstance(event, yaml.AliasEvent):
                raise ValueError(f"{path}: YAML aliases are not supported here")
    return root


class YamlZoneSource(Source):
    """Desired endpoints from the same YAML file octoDNS reads. Parsed once when the source is built (inside
    the timed full sync), then held in memory like the informer caches of the Kubernetes sources."""

    def __init__(self, path: Path, zone: str) -> None:
        data = load_yaml_strings(path) or {}
        self._endpoints: list[Endpoint] = []
        for key, rec in data.items():
            name = f"{key}.{zone}" if key else zone
            values = rec.get("values") or [rec["value"]]
            self._endpoints.append(Endpoint(name, rec["type"], Targets(str(v) for v in values),
                                            int(rec.get("ttl", 0)), labels={"resource": f"yaml/{zone}/{key}"}))

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self._endpoints]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def count_records(srv: BindServer, zone: str) -> tuple[int, int]:
    """(A records, TXT records) in the zone, by AXFR."""
    a = txt = 0
    for _name, rtype, _ttl, values in srv.axfr(zone):
        if rtype == "A":
            a += len(values)
        elif rtype == "TXT":
            txt += len(values)
    return a - 1, txt  # minus the name server's own address


def run_ours(srv: BindServer, zone: str, zone_yaml: Path, n: int, batch: int) -> tuple[float, float]:
    """Full sync = build the pipeline (reading the YAML) + the first run; no-op = the next run of the same
    long-running controller, as the real controller does every --interval."""

    def start() -> tuple[Controller, Any]:
        provider = RFC2136Provider(RFC2136Config(hosts=(srv.host,), port=srv.port, zones=(zone,),
                                                 tsig_keyname=srv.key_name, tsig_secret=srv.key_secret,
                                                 tsig_secret_alg=srv.key_algorithm, axfr=True,
                                                 batch_change_size=batch))
        registry = TXTRegistry(provider, owner_id="bench")
        controller = Controller(YamlZoneSource(zone_yaml, zone), registry, "sync")
        return controller, controller.run_once()

    full, (controller, result) = timed(start)
    if result.created != n:
        raise RuntimeError(f"ours: expected {n} creates, got {result.created}")
    if count_records(srv, zone) != (n, n):
        raise RuntimeError(f"ours: zone {zone} holds {count_records(srv, zone)} (A, TXT), expected {(n, n)}")
    noop, result = timed(controller.run_once)
    if result.changes.has_changes():
        raise RuntimeError(f"ours: the re-sync planned changes: {result.summary()}")
    return full, noop


def run_octo(python: Path, srv: BindServer, zone: str, zone_yaml: Path, workdir: Path, n: int) -> tuple[float, float]:
    config = write_octo_config(workdir, zone, zone_yaml, TTL, "bind", {
        "class": "octodns_bind.Rfc2136Provider", "host": srv.host, "port": srv.port, "key_name": srv.key_name,
        "key_secret": srv.key_secret, "key_algorithm": srv.key_algorithm})
    driver = workdir / "octo_driver.py"
    driver.write_text(OCTO_DRIVER)

    def sync() -> float:
        out = subprocess.run([str(python), str(driver), str(config), f"{zone}."], capture_output=True, text=True,
                             timeout=900, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"octoDNS sync failed: {out.stderr[-1500:]}")
        return float(json.loads(out.stdout.strip().splitlines()[-1])["sync"])

    full = sync()
    a, txt = count_records(srv, zone)
    if a != n or txt < n:
        raise RuntimeError(f"octoDNS: zone {zone} holds {a} A / {txt} TXT, expected {n} / {n}")
    noop = sync()
    return full, noop


def main() -> None:
    configure_logging("warning")  # octoDNS's driver logs nothing either; per-record info lines cost time
    python, why = ensure_octodns(OCTO_PACKAGES, "octodns_bind")
    default_batch = parse_config([], {}).rfc2136.batch_change_size
    sides = ("ours", "ours50", "octo")
    zones = [f"{side}-{n}-{r}.test" for n in SIZES for r in range(REPEAT) for side in sides]
    zones.append("warmup.test")
    rows: list[tuple[int, str, float, float, float | None]] = []
    with running_bind(zones, with_tls=False) as srv:
        work = srv.workdir / "bench"
        work.mkdir()
        # Our modules import lazily on first use: one small sync first, so that imports stay out of the
        # figures on our side too (octoDNS's are excluded by its driver).
        write_zone_yaml(work / "warmup.yaml", 10)
        run_ours(srv, "warmup.test", work / "warmup.yaml", 10, OCTO_BATCH)
        for n in SIZES:
            zone_yaml = work / f"zone-{n}.yaml"
            write_zone_yaml(zone_yaml, n)
            ours: list[tuple[float, float]] = []
            ours50: list[tuple[float, float]] = []
            octo: list[tuple[float, float]] = []
            for r in range(REPEAT):  # interleave the tools so that load from elsewhere hits both alike
                ours.append(run_ours(srv, f"ours-{n}-{r}.test", zone_yaml, n, OCTO_BATCH))
                if python is not None:
                    octo.append(run_octo(python, srv, f"octo-{n}-{r}.test", zone_yaml, work, n))
                ours50.append(run_ours(srv, f"ours50-{n}-{r}.test", zone_yaml, n, default_batch))
            for i, op in enumerate(("full sync", "no-op re-sync")):
                rows.append((n, op, statistics.median(t[i] for t in ours), statistics.median(t[i] for t in ours50),
                             statistics.median(t[i] for t in octo) if octo else None))
            print(f"  N={n}: done", file=sys.stderr, flush=True)
    print(f"| N | operation | ours (s) | octoDNS 1.22 (s) | ours / octoDNS | goal | ours, batch {default_batch} (s) "
          f"| ratio, batch {default_batch} |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n, op, ours_t, ours50_t, octo_t in rows:
        goal = "<= 0.5" if op == "full sync" else "<= 0.1"
        ratio = f"{ours_t / octo_t:.3f}" if octo_t else "n/a"
        ratio50 = f"{ours50_t / octo_t:.3f}" if octo_t else "n/a"
        octo_text = f"{octo_t:.3f}" if octo_t is not None else "n/a"
        print(f"| {n} | {op} | {ours_t:.3f} | {octo_text} | {ratio} | {goal} | {ours50_t:.3f} | {ratio50} |")
    print(f"\nMedian of {REPEAT} runs. Both tools write 2N records (A + ownership TXT) into zones of their own on "
          f"one named; times exclude interpreter start and imports. 'ours' sends {OCTO_BATCH} endpoints per "
          f"UPDATE (--rfc2136-batch-change-size={OCTO_BATCH}, octoDNS's default update_batch_size); the last "
          f"columns use our default ({default_batch}, as external-dns), where each extra UPDATE costs a named "
          f"journal commit.")
    if python is None:
        print(f"\noctoDNS could not be run: {why}")


if __name__ == "__main__":
    main()
