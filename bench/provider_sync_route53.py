"""Full sync and no-op re-sync of N records into Route53 served by moto: ours (Controller -> TXT registry ->
AWS provider) side by side with octoDNS 1.22 (YamlProvider -> OwnershipProcessor -> octodns-route53
Route53Provider), both against the same `moto.server` child process.

Both read the same generated YAML zone (N A records, TTL 300), write into their own hosted zone of the same
server, and both write 2N record sets (each A plus an ownership TXT). Times are in-process wall clock of one
sync (octoDNS: `Manager(config).sync()` in its own venv under .bench/, run by a small driver; ours: building
the pipeline and `Controller.run_once()`), so interpreter start and imports are excluded on both sides.
Every sync is checked by listing the zone. Ours runs with `--aws-batch-change-interval=0` (the 1 s default
is a rate-limit courtesy to real Route53; moto has no rate limit) and default batch limits; octoDNS with
`max_changes: 500` (octodns-route53 1.3.1 counts an UPSERT once, so 1000 fails on updates).

Two shims make octoDNS run against moto 5.2.5, both in the driver only: `AWS_ENDPOINT_URL` points boto3 at
the server (Route53Provider has no endpoint parameter), and moto's ListHealthChecks answer, which lacks
`IsTruncated`, gets `IsTruncated: false` added (octodns-route53 raises KeyError otherwise).

`.venv/bin/python -m bench provider_sync_route53`; `BENCH_ROUTE53_SIZES=1000,5000` picks other sizes.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import yaml

from bench.octodns import ensure_octodns, write_octo_config
from external_dns.controller.controller import Controller
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.logging_setup import configure_logging
from external_dns.providers.aws import AWSConfig, AWSProvider
from external_dns.providers.provider import CachedProvider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source
from tests.servers.moto import start_moto_process

OCTO_PACKAGES = ("octodns==1.22.*", "octodns-route53==1.3.*")
SIZES = tuple(int(s) for s in os.environ.get("BENCH_ROUTE53_SIZES", "1000,5000,20000").split(",") if s.strip())
TTL = 300
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

OCTO_DRIVER = """
import json, sys, time
t0 = time.perf_counter()
import botocore.client
from octodns.manager import Manager

_call = botocore.client.BaseClient._make_api_call

def _make_api_call(self, operation, params):
    response = _call(self, operation, params)
    if operation == "ListHealthChecks":  # moto 5.2.5 omits IsTruncated
        response.setdefault("IsTruncated", False)
    return response

botocore.client.BaseClient._make_api_call = _make_api_call
t1 = time.perf_counter()
c1 = time.process_time()
Manager(sys.argv[1]).sync(eligible_zones=[sys.argv[2]], dry_run=False)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "sync": t2 - t1, "cpu": time.process_time() - c1}))
"""


def write_zone_yaml(path: Path, n: int) -> None:
    """octoDNS YamlProvider format: `host-00042: {type: A, ttl: 300, value: 10.x.y.z}`, sorted."""
    lines = [f"host-{i:05d}:\n  ttl: {TTL}\n  type: A\n  value: 10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}\n"
             for i in range(n)]
    path.write_text("---\n" + "".join(lines))


class YamlZoneSource(Source):
    """Desired endpoints from the same YAML file octoDNS reads, parsed when built (inside the timed full sync)
    and then held in memory like the informer caches of the Kubernetes sources."""

    def __init__(self, path: Path, zone: str) -> None:
        with path.open("rb") as fh:
            data = yaml.load(fh, Loader=_Loader) or {}
        self._endpoints = [
            Endpoint(f"{key}.{zone}", rec["type"], Targets([str(v) for v in (rec.get("values") or [rec["value"]])]),
                     int(rec.get("ttl", 0)), labels={"resource": f"yaml/{zone}/{key}"})
            for key, rec in data.items()
        ]

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self._endpoints]


class Timing:
    """Wall clock and this process's CPU time of one sync (moto runs in another process, so the CPU time is
    the client's own work: building, planning, serialising requests, parsing answers)."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall = wall
        self.cpu = cpu


def timed(fn: Callable[[], Any]) -> tuple[Timing, Any]:
    gc.collect()  # garbage of the previous phase is not this phase's cost
    t, c = time.perf_counter(), time.process_time()
    result = fn()
    return Timing(time.perf_counter() - t, time.process_time() - c), result


def zone_id(r53: Any, zone: str) -> str | None:
    for page in r53.get_paginator("list_hosted_zones").paginate():
        for z in page["HostedZones"]:
            if z["Name"] == zone + ".":
                return str(z["Id"]).rsplit("/", 1)[-1]
    return None


def count_records(r53: Any, zone: str) -> tuple[int, int]:
    """(A, TXT) record sets in the zone."""
    zid = zone_id(r53, zone)
    if zid is None:
        return (0, 0)
    a = txt = 0
    kwargs: dict[str, Any] = {"HostedZoneId": zid, "MaxItems": "300"}
    for _ in range(100_000):
        page = r53.list_resource_record_sets(**kwargs)
        for rrset in page["ResourceRecordSets"]:
            a += rrset["Type"] == "A"
            txt += rrset["Type"] == "TXT"
        if not page["IsTruncated"]:
            break
        kwargs["StartRecordName"], kwargs["StartRecordType"] = page["NextRecordName"], page["NextRecordType"]
    return a, txt


def run_ours(url: str, r53: Any, zone: str, zone_yaml: Path, n: int) -> tuple[Timing, Timing, Timing, int]:
    """Full sync = build the pipeline (reading the YAML) + the first run; no-op = the next run of the same
    long-running controller (re-reading every record set, no provider cache)."""
    r53.create_hosted_zone(Name=zone, CallerReference=f"bench-{zone}-{time.time_ns()}")
    batches: list[int] = []
    only_zone = DomainFilter(include=[zone])  # --domain-filter=<zone>: the other sizes' zones are not ours

    def start() -> tuple[Controller, Any]:
        provider = AWSProvider(AWSConfig(endpoint_url=url, batch_change_interval=0.0, domain_filter=only_zone))
        provider.clients[""].meta.events.register(
            "provide-client-params.route53.ChangeResourceRecordSets",
            lambda params, **_: batches.append(len(params["ChangeBatch"]["Changes"])))
        controller = Controller(YamlZoneSource(zone_yaml, zone), TXTRegistry(provider, owner_id="bench"), "sync")
        return controller, controller.run_once()

    full, (controller, result) = timed(start)
    if result.created != n:
        raise RuntimeError(f"ours: expected {n} creates, got {result.created}")
    if count_records(r53, zone) != (n, n):
        raise RuntimeError(f"ours: zone {zone} holds {count_records(r53, zone)} (A, TXT), expected {(n, n)}")
    noop, result = timed(controller.run_once)
    if result.changes.has_changes():
        raise RuntimeError(f"ours: the re-sync planned changes: {result.summary()}")
    # The same re-sync with --provider-cache-time and --aws-zones-cache-duration: the listing of the previous
    # run is reused, as it is between syncs with no write in between.
    cached_provider = CachedProvider(AWSProvider(AWSConfig(endpoint_url=url, batch_change_interval=0.0,
                                                           zones_cache_duration=3600.0, domain_filter=only_zone)),
                                     3600.0)
    cached = Controller(controller.source, TXTRegistry(cached_provider, owner_id="bench"), "sync")
    cached.run_once()
    noop_cached, result = timed(cached.run_once)
    if result.changes.has_changes():
        raise RuntimeError(f"ours: the cached re-sync planned changes: {result.summary()}")
    return full, noop, noop_cached, len(batches)


def run_octo(python: Path, url: str, r53: Any, zone: str, zone_yaml: Path, workdir: Path,
             n: int) -> tuple[Timing, Timing]:
    config = write_octo_config(workdir, zone, zone_yaml, TTL, "route53", {
        "class": "octodns_route53.Route53Provider", "access_key_id": "bench", "secret_access_key": "bench",
        "max_changes": 500})
    driver = workdir / "octo_route53_driver.py"
    driver.write_text(OCTO_DRIVER)
    env = {**os.environ, **CREDENTIALS, "AWS_ENDPOINT_URL": url}

    def sync() -> Timing:
        out = subprocess.run([str(python), str(driver), str(config), f"{zone}."], capture_output=True, text=True,
                             timeout=3600, check=False, env=env)
        if out.returncode != 0:
            raise RuntimeError(f"octoDNS sync failed: {out.stderr[-1500:]}")
        data = json.loads(out.stdout.strip().splitlines()[-1])
        return Timing(float(data["sync"]), float(data["cpu"]))

    full = sync()
    a, txt = count_records(r53, zone)
    if a != n or txt < n:
        raise RuntimeError(f"octoDNS: zone {zone} holds {a} A / {txt} TXT, expected {n} / {n}")
    noop = sync()
    return full, noop


def main() -> None:
    import tempfile

    configure_logging("warning")
    for key, value in CREDENTIALS.items():
        os.environ.setdefault(key, value)
    python, why = ensure_octodns(OCTO_PACKAGES, "octodns_route53")
    rows: list[tuple[int, str, Timing, Timing | None, str]] = []
    batch_counts: dict[int, int] = {}
    octo_error = ""
    with start_moto_process() as url, tempfile.TemporaryDirectory(prefix="bench-route53-") as tmp:
        work = Path(tmp)
        r53 = boto3.client("route53", endpoint_url=url)
        for n in SIZES:
            zone_yaml = work / f"zone-{n}.yaml"
            write_zone_yaml(zone_yaml, n)
            ours_full, ours_noop, ours_cached, batch_counts[n] = run_ours(url, r53, f"ours-{n}.test", zone_yaml, n)
            octo_full = octo_noop = None
            if python is not None and not octo_error:
                try:
                    octo_full, octo_noop = run_octo(python, url, r53, f"octo-{n}.test", zone_yaml, work, n)
                except RuntimeError as exc:
                    octo_error = str(exc)
            for m in SIZES[:SIZES.index(n)]:  # earlier zones are left alone
                if count_records(r53, f"ours-{m}.test") != (m, m):
                    raise RuntimeError(f"ours-{m}.test changed while syncing ours-{n}.test")
            rows.append((n, "full sync", ours_full, octo_full, "<= 0.5"))
            rows.append((n, "no-op re-sync", ours_noop, octo_noop, "<= 0.1"))
            rows.append((n, "no-op re-sync, --provider-cache-time", ours_cached, octo_noop, "<= 0.1"))
            print(f"  N={n}: done", file=sys.stderr, flush=True)
    print("| N | operation | ours (s) | octoDNS 1.22 (s) | ours / octoDNS | goal | ours CPU (s) | octoDNS CPU (s) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n, op, ours, octo, goal in rows:
        ratio = f"{ours.wall / octo.wall:.3f}" if octo else "n/a"
        octo_text = f"{octo.wall:.3f}" if octo is not None else "n/a"
        octo_cpu = f"{octo.cpu:.3f}" if octo is not None else "n/a"
        print(f"| {n} | {op} | {ours.wall:.3f} | {octo_text} | {ratio} | {goal} | {ours.cpu:.3f} | {octo_cpu} |")
    print("\nBoth write 2N record sets (A + ownership TXT) into their own zone of one moto server (child process); "
          "times exclude interpreter start and imports; CPU is the client process's own CPU time (the rest of the "
          "wall time is moto answering). Our change batches per full sync: "
          + ", ".join(f"N={n}: {c}" for n, c in batch_counts.items()) + ".")
    if python is None:
        print(f"\noctoDNS could not be run: {why}")
    elif octo_error:
        print(f"\noctoDNS failed: {octo_error}")


if __name__ == "__main__":
    main()
