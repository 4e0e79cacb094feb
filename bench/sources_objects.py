"""Benchmark: the object -> endpoints logic and the manifest source.

Prints a table for N = 1k and 10k LoadBalancer Services (two host names each, one IPv4 + one IPv6 status
address, TTL annotation, every 10th sharing a host name with another so the cross-service merge has work):
`service_endpoints` over all of them plus `merge_service_endpoints` (best of 3), and the ManifestSource
reading the same Services from YAML files of 100 documents each: the first read (YAML parsing included) and
later reads of unchanged files (parsed documents remembered; best of 3).
"""

from __future__ import annotations

import gc
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import structlog
import yaml

from external_dns.sources.manifest import ManifestSource
from external_dns.sources.objects.service import merge_service_endpoints, service_endpoints
from external_dns.sources.options import SourceOptions

SIZES = (1_000, 10_000)
REPEATS = 3
PREFIX = "external-dns.kubernetes.io/"


def services(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        shared = f"shared-{i // 10}.example.org" if i % 10 == 0 else f"alt-{i}.example.org"
        out.append({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": f"svc-{i}", "namespace": f"ns-{i % 50}",
                         "annotations": {PREFIX + "hostname": f"app-{i}.example.org,{shared}", PREFIX + "ttl": "5m"}},
            "spec": {"type": "LoadBalancer", "clusterIP": f"10.96.{(i >> 8) & 255}.{i & 255}"},
            "status": {"loadBalancer": {"ingress": [{"ip": f"192.0.{(i >> 8) & 255}.{i & 255}"},
                                                    {"ip": f"2001:db8::{i:x}"}]}},
        })
    return out


def time_objects(objs: list[dict[str, Any]], opts: SourceOptions) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        eps = []
        for svc in objs:
            eps.extend(service_endpoints(svc, opts).endpoints)
        merged = merge_service_endpoints(eps)
        best = min(best, time.perf_counter() - start)
        count = len(merged)
    return best, count


def time_manifest(objs: list[dict[str, Any]], opts: SourceOptions) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, len(objs), 100):
            Path(tmp, f"svc-{start:06d}.yaml").write_text(yaml.safe_dump_all(objs[start:start + 100]))
        src = ManifestSource(tmp, opts)
        gc.collect()
        start_t = time.perf_counter()
        src.endpoints()
        cold = time.perf_counter() - start_t
        warm = float("inf")
        for _ in range(REPEATS):
            gc.collect()
            start_t = time.perf_counter()
            src.endpoints()
            warm = min(warm, time.perf_counter() - start_t)
    return cold, warm


def main() -> None:
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    try:
        opts = SourceOptions()
        print(f"| {'services':>9} | {'endpoints':>9} | {'objects -> endpoints':>21} | {'per service':>11} "
              f"| {'manifest, first read':>21} | {'manifest, unchanged':>20} |")
        print(f"|{'-' * 11}|{'-' * 11}|{'-' * 23}|{'-' * 13}|{'-' * 23}|{'-' * 22}|")
        for n in SIZES:
            objs = services(n)
            seconds, count = time_objects(objs, opts)
            cold, warm = time_manifest(objs, opts)
            print(f"| {n:>9,} | {count:>9,} | {seconds * 1000:>18.1f} ms | {seconds / n * 1e6:>8.1f} µs "
                  f"| {cold * 1000:>18.1f} ms | {warm * 1000:>17.1f} ms |")
    finally:
        structlog.configure(**saved)


if __name__ == "__main__":
    main()
