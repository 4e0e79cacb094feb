"""The DNSRecord controller (`--source=dnsrecord`) at N records: prints tables.

1. N DNSRecords (one A record each, one zone-file zone) are created on the test Kubernetes API server while the
   controller runs (shared informer -> workqueue -> 4 workers, `--min-requeue-time=1s`, so the validation pass
   comes 0.5-1.5 s after the write): seconds until every record is Ready (create -> AwaitingValidation ->
   Ready, two provider passes each), provider reads/writes, reconciles (incl. the premature passes triggered by
   our own status writes); then all are deleted: seconds until every object is gone (delete, validate,
   finalizer removed).
2. One reconcile of one record with N records in the zone, mean of 200 calls: a premature pass (no provider
   call) and a full validation pass (provider read + plan, nothing to write).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from typing import Any

import kubernetes.client
import structlog

from external_dns.controller.dnsrecord.controller import build_dnsrecord_controller
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.informers import SharedInformerFactory
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import CountingProvider
from tests.kubeapi.server import KubeAPIServer

# `BENCH_DNSRECORD_SIZES=500,1000,5000` picks other sizes.
SIZES = tuple(int(s) for s in os.environ.get("BENCH_DNSRECORD_SIZES", "500,1000,5000").split(",") if s.strip())
TIMEOUT = 600.0


def _record(i: int) -> dict[str, Any]:
    host = f"r{i:05d}.bench.example.com"
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": f"r{i:05d}", "namespace": "default"},
            "spec": {"rootHost": host, "endpoints": [{"dnsName": host, "recordType": "A",
                                                       "targets": [f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"]}]}}


def _ready(kubeapi: KubeAPIServer) -> int:
    count = 0
    for obj in kubeapi.list(API_VERSION, KIND, "default"):
        for cond in (obj.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "Ready" and cond.get("reason") == "ProviderSuccess":
                count += 1
    return count


def lifecycle(n: int) -> dict[str, Any]:
    with KubeAPIServer() as kubeapi, tempfile.TemporaryDirectory() as tmp:
        kubeapi.ensure_namespace("default")
        api = kubernetes.client.ApiClient(kubeapi.configuration())
        provider = CountingProvider(ZoneFileProvider(tmp, create_zones=["example.com"]))
        factory = SharedInformerFactory(api)
        options = Options(min_requeue_time=1.0, requeue_time=900.0, valid_for=840.0, write_counter_limit=20)
        ctl = build_dnsrecord_controller(options, factory, provider, api, workers=4, rng=random.Random(1))
        factory.start()
        factory.wait_for_cache_sync(10.0)
        ctl.start()
        try:
            start = time.perf_counter()
            for i in range(n):
                kubeapi.create(_record(i))
            ok = ctl.wait_until(lambda: sum(o.result.action == "ready" for o in ctl.outcomes()) >= n, TIMEOUT)
            ready_s = time.perf_counter() - start
            assert ok and _ready(kubeapi) == n, "not every record became Ready"
            reconciles = len(ctl.outcomes())
            reads, writes = provider.reads, provider.writes
            start = time.perf_counter()
            for i in range(n):
                kubeapi.delete(API_VERSION, KIND, "default", f"r{i:05d}")
            ok = ctl.wait_until(
                lambda: sum(o.result.action == "finalizer-removed" for o in ctl.outcomes()) >= n, TIMEOUT)
            deleted_s = time.perf_counter() - start
            assert ok and kubeapi.list(API_VERSION, KIND, "default") == [], "not every record was removed"
            return {"n": n, "ready_s": ready_s, "reads": reads, "writes": writes, "reconciles": reconciles,
                    "deleted_s": deleted_s}
        finally:
            ctl.close(10.0)
            factory.shutdown(10.0)
            api.close()


def pass_cost(n: int) -> tuple[float, float]:
    with KubeAPIServer() as kubeapi, tempfile.TemporaryDirectory() as tmp:
        kubeapi.ensure_namespace("default")
        api = kubernetes.client.ApiClient(kubeapi.configuration())
        provider = ZoneFileProvider(tmp, create_zones=["example.com"])
        clock = FakeClock(start=1_800_000_000.0)

        def cached(key: str) -> dict[str, Any] | None:
            ns, _, name = key.partition("/")
            return kubeapi.get(API_VERSION, KIND, ns, name)

        rec = Reconciler(provider, RecordAPI(api), cached, Options(), clock=clock, rng=random.Random(1))
        for i in range(n):
            kubeapi.create(_record(i))
            rec.reconcile(f"default/r{i:05d}")
        clock.step(10)
        key = "default/r00000"
        assert rec.reconcile(key).action == "ready"
        premature: list[float] = []
        for _ in range(200):
            t = time.perf_counter()
            assert rec.reconcile(key).action == "premature"
            premature.append(time.perf_counter() - t)
        full: list[float] = []
        for _ in range(200):
            clock.step(900)
            t = time.perf_counter()
            assert rec.reconcile(key).action == "ready"
            full.append(time.perf_counter() - t)
        api.close()
        return statistics.mean(premature), statistics.mean(full)


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    print("| records | create -> all Ready (s) | provider reads | provider writes | reconciles | delete -> all gone (s) |")
    print("|---|---|---|---|---|---|")
    for n in SIZES:
        r = lifecycle(n)
        print(f"| {r['n']} | {r['ready_s']:.2f} | {r['reads']} | {r['writes']} | {r['reconciles']} | "
              f"{r['deleted_s']:.2f} |", flush=True)
    print()
    print("| records in zone | premature pass (ms) | full validation pass, no changes (ms) |")
    print("|---|---|---|")
    for n in [n for n in SIZES if n <= 1000]:  # filling the zone one write at a time is quadratic
        premature, full = pass_cost(n)
        print(f"| {n} | {premature * 1000:.2f} | {full * 1000:.2f} |", flush=True)


if __name__ == "__main__":
    main()
