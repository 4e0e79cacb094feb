"""The DNSRecord controller (`--source=dnsrecord`) at N records: prints tables, on the code of this tree and
on another checkout (the baseline) in the same run.

1. Lifecycle, one child process per (provider, N, code): N DNSRecords (one A record each, one zone) are created
   on the test Kubernetes API server (in the child) while the controller runs (shared informer -> workqueue ->
   4 workers, `--min-requeue-time=1s`, so the validation pass comes 0.5-1.5 s after the write): seconds until
   every record is Ready (create -> AwaitingValidation -> Ready: a write, then a validation pass), provider
   writes (`apply_changes` calls); then all are deleted: seconds until every object is gone (delete, validate,
   finalizer removed). "Ready" and "gone" are seen from outside the controller: a handler on the DNSRecord
   informer counts the records whose Ready condition says ProviderSuccess, and the deletions. Providers: a
   zone-file directory (each write rewrites the zone file) and BIND9 over RFC2136 (a write is one UPDATE
   message, its cost per name).
2. One reconcile of one record with N records in the zone (this tree only), mean of 200 calls: a premature
   pass (no provider call) and a full validation pass (provider snapshot + plan, nothing to write).

Environment: `BENCH_DNSRECORD_SIZES` (default 500,1000,5000), `BENCH_DNSRECORD_PROVIDERS` (zonefile,bind),
`BENCH_DNSRECORD_BASELINE` (a checkout of the code before the change: its `external_dns` runs the same
scenario first; the bench and the test servers are this tree's), `BENCH_DNSRECORD_UNBATCHED=1` (also this
tree with batches of one record: the batching's share of the difference). `python -m bench.dnsrecord_lifecycle --one
--n 500 --provider bind` runs one lifecycle and prints it as JSON. Wall clock on a shared machine: other work
moves the figures; compare the two sides of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZES = tuple(int(s) for s in os.environ.get("BENCH_DNSRECORD_SIZES", "500,1000,5000").split(",") if s.strip())
PROVIDERS = tuple(p for p in os.environ.get("BENCH_DNSRECORD_PROVIDERS", "zonefile,bind").split(",") if p.strip())
BASELINE = os.environ.get("BENCH_DNSRECORD_BASELINE", "")
TIMEOUT = 900.0
ZONE = "example.com"


def _record(i: int) -> dict[str, Any]:
    from external_dns.controller.dnsrecord.types import API_VERSION, KIND

    host = f"r{i:05d}.bench.{ZONE}"
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": f"r{i:05d}", "namespace": "default"},
            "spec": {"rootHost": host, "endpoints": [{"dnsName": host, "recordType": "A",
                                                       "targets": [f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"]}]}}


@contextmanager
def _provider(kind: str) -> Iterator[Any]:
    if kind == "zonefile":
        from external_dns.providers.zonefile import ZoneFileProvider

        with tempfile.TemporaryDirectory() as tmp:
            yield ZoneFileProvider(tmp, create_zones=[ZONE])
    elif kind == "bind":
        from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
        from tests.servers.bind import running_bind

        with running_bind([ZONE], with_tls=False) as srv:
            yield RFC2136Provider(RFC2136Config(hosts=(srv.host,), port=srv.port, zones=srv.zones,
                                                tsig_keyname=srv.key_name, tsig_secret=srv.key_secret,
                                                tsig_secret_alg=srv.key_algorithm, axfr=True, timeout=10.0))
    else:
        raise SystemExit(f"unknown provider {kind!r} (zonefile, bind)")


class Watch:
    """Counts, from the DNSRecord informer, the records whose Ready condition is ProviderSuccess and the
    records deleted; `wait(attr, n)` blocks until the count reaches n."""

    def __init__(self) -> None:
        self.ready: set[str] = set()
        self.deleted = 0
        self.cond = threading.Condition()

    @staticmethod
    def _key(obj: dict[str, Any]) -> str:
        meta = obj.get("metadata") or {}
        return f"{meta.get('namespace')}/{meta.get('name')}"

    def on_update(self, _old: dict[str, Any], new: dict[str, Any]) -> None:
        for cond in (new.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "Ready" and cond.get("reason") == "ProviderSuccess":
                with self.cond:
                    self.ready.add(self._key(new))
                    self.cond.notify_all()

    def on_delete(self, _obj: Any) -> None:
        with self.cond:
            self.deleted += 1
            self.cond.notify_all()

    def wait(self, what: str, n: int, timeout: float) -> bool:
        def count() -> int:
            return len(self.ready) if what == "ready" else self.deleted

        with self.cond:
            return self.cond.wait_for(lambda: count() >= n, timeout)


def lifecycle(n: int, kind: str) -> dict[str, Any]:
    import kubernetes.client

    import external_dns
    from external_dns.controller.dnsrecord.controller import build_dnsrecord_controller
    from external_dns.controller.dnsrecord.reconcile import Options
    from external_dns.controller.dnsrecord.types import API_VERSION, KIND, RESOURCE
    from external_dns.informers import ResourceEventHandlerFuncs, SharedInformerFactory
    from tests.controller.dnsrecord.helpers import CountingProvider
    from tests.kubeapi.server import KubeAPIServer

    with KubeAPIServer() as kubeapi, _provider(kind) as inner:
        kubeapi.ensure_namespace("default")
        api = kubernetes.client.ApiClient(kubeapi.configuration())
        provider = CountingProvider(inner)
        factory = SharedInformerFactory(api)
        watch = Watch()
        factory.informer_for(RESOURCE, namespace=None).add_event_handler(
            ResourceEventHandlerFuncs(on_update=watch.on_update, on_delete=watch.on_delete))
        options = Options(min_requeue_time=1.0, requeue_time=900.0, valid_for=840.0, write_counter_limit=20)
        size = os.environ.get("BENCH_DNSRECORD_BATCH")
        batch: dict[str, Any] = {"batch_size": int(size)} if size else {}  # the baseline has no batch_size
        ctl = build_dnsrecord_controller(options, factory, provider, api, workers=4, rng=random.Random(1), **batch)
        factory.start()
        factory.wait_for_cache_sync(10.0)
        ctl.start()
        try:
            cpu0, start = time.process_time(), time.perf_counter()
            for i in range(n):
                kubeapi.create(_record(i))
            created_s = time.perf_counter() - start
            assert watch.wait("ready", n, TIMEOUT), f"{len(watch.ready)} of {n} records Ready"
            ready_s, ready_cpu = time.perf_counter() - start, time.process_time() - cpu0
            writes = provider.writes
            start = time.perf_counter()
            for i in range(n):
                kubeapi.delete(API_VERSION, KIND, "default", f"r{i:05d}")
            assert watch.wait("deleted", n, TIMEOUT), f"{watch.deleted} of {n} records gone"
            deleted_s = time.perf_counter() - start
            assert kubeapi.list(API_VERSION, KIND, "default") == [], "not every record was removed"
            return {"n": n, "provider": kind, "code": str(Path(external_dns.__file__).resolve().parents[1]),
                    "created_s": created_s, "ready_s": ready_s, "ready_cpu": ready_cpu,
                    "writes": writes, "delete_writes": provider.writes - writes, "deleted_s": deleted_s}
        finally:
            ctl.close(10.0)
            factory.shutdown(10.0)
            api.close()


def pass_cost(n: int) -> tuple[float, float]:
    """(premature, full validation) seconds of one reconcile with `n` records in the zone (filled in one write)."""
    import kubernetes.client

    from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
    from external_dns.controller.dnsrecord.registry import record_registry
    from external_dns.controller.dnsrecord.status import RecordAPI
    from external_dns.controller.dnsrecord.types import API_VERSION, KIND, owner_id_of, validate
    from external_dns.endpoint.endpoint import OWNER_LABEL_KEY
    from external_dns.plan.changes import Changes
    from external_dns.workqueue import FakeClock
    from tests.kubeapi.server import KubeAPIServer

    with KubeAPIServer() as kubeapi, _provider("zonefile") as provider:
        kubeapi.ensure_namespace("default")
        api = kubernetes.client.ApiClient(kubeapi.configuration())
        clock = FakeClock(start=1_800_000_000.0)
        filler = Changes()  # the rest of the zone: other owners' records with their TXT, in one write
        for i in range(1, n):
            obj = _record(i)
            obj["metadata"]["uid"] = f"uid-{i}"
            registry = record_registry(provider, owner_id_of(obj))
            for ep in validate(obj).endpoints:
                ep.labels[OWNER_LABEL_KEY] = owner_id_of(obj)
                filler.create.extend([ep, *registry.generate_txt_record(ep)])
        provider.apply_changes(filler)

        def cached(key: str) -> dict[str, Any] | None:
            ns, _, name = key.partition("/")
            return kubeapi.get(API_VERSION, KIND, ns, name)

        rec = Reconciler(provider, RecordAPI(api), cached, Options(), clock=clock, rng=random.Random(1))
        kubeapi.create(_record(0))
        key = "default/r00000"
        rec.reconcile(key)
        clock.step(10)
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


def _child(code: str, n: int, kind: str, batch: int = 0) -> dict[str, Any]:
    """One lifecycle in a child process running `code`'s external_dns (this tree's bench and test servers);
    `batch`: the controller's batch size (0: its default)."""
    with tempfile.TemporaryDirectory(prefix="bench-dnsrecord-") as shim:
        cwd = ROOT  # `python -m` puts the working directory first on sys.path: the code under test lives there
        if Path(code).resolve() != ROOT:
            cwd = Path(shim)
            (cwd / "external_dns").symlink_to(Path(code).resolve() / "external_dns")
        env = dict(os.environ, PYTHONPATH=str(ROOT), BENCH_DNSRECORD_BATCH=str(batch) if batch else "")
        out = subprocess.run([sys.executable, "-m", "bench.dnsrecord_lifecycle", "--one", "--n", str(n),
                              "--provider", kind], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=2 * TIMEOUT + 120, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} N={n} on {code} failed:\n{out.stdout[-2000:]}{out.stderr[-4000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    sides = ([("before", BASELINE, 0)] if BASELINE else []) + [("after", str(ROOT), 0)]
    sides += [("after, batches of 1", str(ROOT), 1)] if os.environ.get("BENCH_DNSRECORD_UNBATCHED") else []
    print("| provider | records | code | create -> all Ready (s) | per record (ms) | CPU (s) | provider writes | "
          "delete -> all gone (s) | delete writes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in PROVIDERS:
        for n in SIZES:
            for label, code, batch in sides:
                r = _child(code, n, kind, batch)
                assert Path(r["code"]) == Path(code).resolve(), f"ran {r['code']}, not {code}"
                print(f"| {kind} | {n} | {label} | {r['ready_s']:.1f} | {r['ready_s'] / n * 1000:.1f} | "
                      f"{r['ready_cpu']:.1f} | {r['writes']} | {r['deleted_s']:.1f} | {r['delete_writes']} |",
                      flush=True)
    print()
    print("| records in zone | premature pass (ms) | full validation pass, no changes (ms) |")
    print("|---|---|---|")
    for n in SIZES:
        premature, full = pass_cost(n)
        print(f"| {n} | {premature * 1000:.2f} | {full * 1000:.2f} |", flush=True)


def _main_one(argv: list[str]) -> None:
    import structlog

    p = argparse.ArgumentParser()
    p.add_argument("--one", action="store_true")
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--provider", default="zonefile")
    args = p.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    print(json.dumps(lifecycle(args.n, args.provider)), flush=True)


if __name__ == "__main__":
    if "--one" in sys.argv[1:]:
        _main_one(sys.argv[1:])
    else:
        main()
