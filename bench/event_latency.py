"""Event -> DNS latency of the long-running controller, and the zone workqueue's throughput. Prints tables.

1. A Service's load-balancer IP is changed on the test Kubernetes API server 200 times, one after the
   other; each time we measure until the new IP is written to the (in-memory) zone by the running
   ControllerProcess (`--events --min-event-sync-interval=0 --interval=1h`, 2 workers): informer watch ->
   source event handler -> scheduler -> workqueue -> worker -> TXT registry -> provider. p50 / p90 / p99.
   Also with 20 zones (one Service each, only one changes), with and without skipping unchanged zones in
   event-triggered passes: the reconciles column shows the work saved.
   The source is the project's `--source=service` when it is registered, else a minimal Service-informer
   source built on the same object logic (printed in the table).
2. The workqueue with 2 workers: items/s through add -> get -> done (distinct items), and through a queue
   of 20 zone keys re-added continuously (dedupe path: most adds collapse).
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import kubernetes.client
import structlog

from external_dns.cmd.build import SOURCE_BUILDERS
from external_dns.cmd.config import load_config
from external_dns.cmd.wiring import process_options
from external_dns.controller.controller import Controller
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.controller.process import ControllerProcess
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from external_dns.sources.source import Source
from external_dns.workqueue import Queue
from tests.helpers.service_source import ServiceInformerSource
from tests.kubeapi.server import KubeAPIServer

UPDATES = 200
HOST = "web.example.org"


class _WatchedZone(InMemoryProvider):
    """Records when each A target of HOST is first written."""

    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.cond = threading.Condition()
        self.seen: dict[str, float] = {}

    def apply_changes(self, changes: Changes) -> None:
        super().apply_changes(changes)
        now = time.perf_counter()
        with self.cond:
            for ep in [*changes.create, *changes.update_new]:
                if ep.dns_name == HOST and ep.record_type == "A":
                    for target in ep.targets:
                        self.seen.setdefault(target, now)
            self.cond.notify_all()

    def wait_for(self, target: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while target not in self.seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.cond.wait(remaining)
            return self.seen[target]


def _service(name: str, host: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"external-dns.kubernetes.io/hostname": host}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}


def _set_ip(server: KubeAPIServer, ip: str, name: str = "web") -> None:
    server.patch("v1", "Service", "default", name, {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}},
                 subresource="status")


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def event_latency(updates: int = UPDATES, zones: int = 1,
                  skip_unchanged_zones: bool = True) -> tuple[str, list[float], int]:
    """Returns (source used, latencies in seconds, reconciles). With `zones` > 1 there is one more Service
    per extra zone (`web.zone<i>.test`); only the first Service changes."""
    server = KubeAPIServer().start()
    api = kubernetes.client.ApiClient(server.configuration())
    stop = threading.Event()
    factory = LazyInformerFactory(lambda: api)
    try:
        server.ensure_namespace("default")
        server.create(_service("web", HOST))
        _set_ip(server, "10.0.0.1")
        zone_names = ["example.org", *(f"zone{i}.test" for i in range(1, zones))]
        for i in range(1, zones):
            server.create(_service(f"web{i}", f"web.zone{i}.test"))
            _set_ip(server, f"10.2.0.{i}", f"web{i}")
        argv = ["--source=service", "--provider=inmemory", "--inmemory-zone=example.org", "--policy=sync",
                "--txt-owner-id=bench", "--events", "--min-event-sync-interval=0s", "--interval=1h",
                "--workers=2", "--metrics-address=127.0.0.1:0"]
        _, cfg = load_config(argv, environ={})
        provider = _WatchedZone(zone_names)
        source: Source
        if "service" in SOURCE_BUILDERS:
            from external_dns.cmd.build_sources import build_source_pipeline

            source = build_source_pipeline(cfg, {"stop": stop, "kube_client": lambda: api,
                                                 "informer_factory": factory})
            used = "--source=service"
        else:
            source = ServiceInformerSource(factory())
            used = "Service informer (fallback)"
        ctl = Controller(source, TXTRegistry(provider, owner_id="bench"), "sync")
        process = ControllerProcess(process_options(cfg), ctl, stop=stop, kube_client=lambda: api,
                                    informer_factory=factory, emit_events=False)
        process.zone_controller.skip_unchanged_zones = skip_unchanged_zones
        runner = threading.Thread(target=process.run, name="bench-process")
        runner.start()
        try:
            if provider.wait_for("10.0.0.1", 30) is None:
                raise RuntimeError("the first sync did not happen within 30 s")
            zc = process.zone_controller
            if not zc.wait_until(lambda: len({o.zone for o in zc.outcomes() if o.ok}) >= zones, 30):
                raise RuntimeError("the first pass did not finish within 30 s")
            before = zc.reconciles
            latencies: list[float] = []
            for i in range(updates):
                ip = f"10.1.{i // 250}.{i % 250 + 1}"
                started = time.perf_counter()
                _set_ip(server, ip)
                written = provider.wait_for(ip, 10)
                if written is None:
                    raise RuntimeError(f"update {i} ({ip}) did not reach the zone within 10 s")
                latencies.append(written - started)
            reconciles = process.zone_controller.reconciles - before
        finally:
            stop.set()
            runner.join(20)
        return used, latencies, reconciles
    finally:
        api.close()
        server.stop()


def queue_throughput(items: int, workers: int = 2, distinct: bool = True) -> tuple[float, int]:
    """(adds/s until drained, items processed) through add -> get -> done."""
    q: Queue[int] = Queue(name="")  # unnamed: no metrics, as a queue without instrumentation
    processed = [0]
    lock = threading.Lock()

    def work() -> None:
        while True:
            item, shutdown = q.get(timeout=5)
            if shutdown:
                return
            if item is None:
                continue
            q.done(item)
            with lock:
                processed[0] += 1

    threads = [threading.Thread(target=work, name=f"bench-q-{i}") for i in range(workers)]
    for t in threads:
        t.start()
    started = time.perf_counter()
    for i in range(items):
        q.add(i if distinct else i % 20)
    drained = q.shut_down_with_drain(60)
    elapsed = time.perf_counter() - started
    for t in threads:
        t.join(10)
    if not drained:
        raise RuntimeError("queue did not drain")
    return items / elapsed, processed[0]


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    print("Event -> DNS latency: a Service's load-balancer IP changed 200 times on the test API server, each "
          "time until the new IP is written\n(--events --min-event-sync-interval=0 --interval=1h, 2 workers, "
          "in-memory zones; only one zone's Service changes)\n")
    print("| source | zones | skip unchanged zones | p50 | p90 | p99 | mean | max | reconciles |")
    print("|---|---|---|---|---|---|---|---|---|")
    for zones, skip in ((1, True), (20, True), (20, False)):
        used, latencies, reconciles = event_latency(UPDATES, zones, skip)
        ms = [v * 1000 for v in latencies]
        print(f"| {used} | {zones} | {'yes' if skip else 'no'} | {_pct(ms, 50):.1f} ms | {_pct(ms, 90):.1f} ms "
              f"| {_pct(ms, 99):.1f} ms | {statistics.mean(ms):.1f} ms | {max(ms):.1f} ms | {reconciles} |")
    print("\nWorkqueue throughput, 2 workers (add -> get -> done)\n")
    print("| case | adds/s (until drained) | items processed |")
    print("|---|---|---|")
    rate, done = queue_throughput(200_000)
    print(f"| 200000 distinct items | {rate:,.0f} | {done} |")
    rate, done = queue_throughput(200_000, distinct=False)
    print(f"| 200000 adds of 20 zone keys (dedupe) | {rate:,.0f} | {done} |")


if __name__ == "__main__":
    main()
