"""Benchmark: an informer's initial sync of 1k and 10k Services from the test API server.

The server runs in a child process (so its JSON encoding does not share this process's GIL). For each
size: the informer's sync time (start -> cache synced, best of 5) against (a) a raw GET + `json.loads` of
the same LIST requests (GC paused while parsing, as the informer does), (b) `json.loads` alone of those
bodies (GC on, and paused), and (c) the client's typed
`list_service_for_all_namespaces` (model classes); then the memory retained per cached Service
(tracemalloc) with no transformers, the default ones (managedFields, last-applied) and a slim set.
Services look like kubectl-applied ones: labels, a last-applied annotation, one managedFields entry,
external-dns annotations, two ports, LB status on 20 %.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import kubernetes
import structlog
import urllib3

from external_dns.informers import (
    DEFAULT_TRANSFORMERS,
    SERVICES,
    SharedIndexInformer,
    Transformer,
    drop_fields,
    keep_annotation_prefixes,
)
from external_dns.informers.gcpause import gc_paused
from external_dns.informers.transform import intern_strings

SIZES = (1_000, 10_000)
REPEATS = 5
SLIM: tuple[Transformer, ...] = (
    *DEFAULT_TRANSFORMERS,
    keep_annotation_prefixes("external-dns.alpha.kubernetes.io/"),
    drop_fields("metadata.uid", "metadata.generation", "metadata.creationTimestamp", "spec.sessionAffinity",
                "spec.ipFamilies", "spec.ipFamilyPolicy", "spec.internalTrafficPolicy", "spec.clusterIPs"),
    intern_strings,
)


def service(i: int) -> dict[str, Any]:
    name, ns = f"app-{i}", f"team-{i % 20}"
    spec = {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                                                   {"name": "https", "port": 443, "targetPort": 8443,
                                                    "protocol": "TCP"}]}
    applied = json.dumps({"apiVersion": "v1", "kind": "Service",
                          "metadata": {"name": name, "namespace": ns, "labels": {"app": name}}, "spec": spec})
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name, "team": ns},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": applied,
                                     "external-dns.alpha.kubernetes.io/hostname": f"{name}.{ns}.example.com",
                                     "external-dns.alpha.kubernetes.io/ttl": "300"},
                     "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update",
                                        "apiVersion": "v1", "time": "2026-11-23T10:00:00Z",
                                        "fieldsType": "FieldsV1",
                                        "fieldsV1": {"f:metadata": {"f:annotations": {".": {}}, "f:labels": {}},
                                                     "f:spec": {"f:ports": {}, "f:selector": {}}}}]},
        "spec": spec,
    }
    if i % 5 == 0:
        obj["spec"]["type"] = "LoadBalancer"
    return obj


def serve(n: int) -> None:
    """Child process: a populated test API server; prints its URL, serves until stdin closes."""
    from tests.kubeapi.server import KubeAPIServer

    server = KubeAPIServer().start()
    for t in range(20):
        server.ensure_namespace(f"team-{t}")
    for i in range(n):
        created = server.create(service(i))
        if i % 5 == 0:
            created["status"] = {"loadBalancer": {"ingress": [{"ip": f"192.0.2.{i % 250}"}]}}
            server.update_status(created)
    print(f"URL {server.url}", flush=True)
    sys.stdin.read()
    server.stop()


def best(fn: Callable[[], Any]) -> float:
    fn()  # warm-up (connections, caches)
    times = []
    for _ in range(REPEATS):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def informer_sync(api: Any, transformers: tuple[Transformer, ...] = ()) -> SharedIndexInformer:
    informer = SharedIndexInformer(api, SERVICES, transformers=transformers)
    informer.start()
    if not informer.wait_for_cache_sync(120):
        raise RuntimeError("informer did not sync")
    return informer


def measure(n: int) -> dict[str, float]:
    child = subprocess.Popen([sys.executable, "-m", "bench.informer_list", "--serve", str(n)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = ""
        while not line.startswith("URL "):
            line = child.stdout.readline()
            if not line:
                raise RuntimeError("the API server child exited")
        url = line.split()[1]
        configuration = kubernetes.client.Configuration()
        configuration.host = url
        api = kubernetes.client.ApiClient(configuration)
        pool = urllib3.PoolManager()
        bodies: list[bytes] = []

        def raw() -> None:
            bodies.clear()
            token = ""
            while True:
                fields = {"resourceVersion": "0", "limit": "500"} if not token else {"limit": "500",
                                                                                    "continue": token}
                body = pool.request("GET", url + "/api/v1/services", fields=fields).data
                with gc_paused():  # the same treatment the informer gives a LIST body
                    page = json.loads(body)
                bodies.append(body)
                token = page["metadata"].get("continue") or ""
                if not token:
                    return

        def typed() -> None:
            core = kubernetes.client.CoreV1Api(api)
            token = None
            while True:
                page = core.list_service_for_all_namespaces(resource_version="0" if not token else None, limit=500,
                                                            _continue=token)
                token = page.metadata._continue
                if not token:
                    return

        def sync() -> None:
            informer_sync(api).shutdown(5)

        out = {"raw": best(raw)}
        out["loads"] = best(lambda: [json.loads(b) for b in bodies])

        def loads_paused() -> None:
            with gc_paused():
                for b in bodies:
                    json.loads(b)

        out["loads_paused"] = best(loads_paused)
        out["informer"] = best(sync)
        out["informer_default"] = best(lambda: informer_sync(api, DEFAULT_TRANSFORMERS).shutdown(5))
        out["typed"] = best(typed)
        for label, transformers in (("plain", ()), ("default", DEFAULT_TRANSFORMERS), ("slim", SLIM)):
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            informer = informer_sync(api, transformers)
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            assert len(informer.get_store()) == n
            informer.shutdown(5)
            out[f"mem_{label}"] = (after - before) / n
        api.close()
        pool.clear()
        return out
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))  # warnings only: keep the table clean
    print("Times are best of 5 after a warm-up; the informer pauses the cyclic GC while parsing a LIST body.")
    print("| Services | raw GET + json.loads (GC paused) | json.loads | json.loads, GC paused | informer sync | "
          "informer / json.loads (GC paused) | informer / raw GET+loads | informer sync, default transforms | "
          "typed list | typed / informer | bytes/Service: plain | default | slim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in SIZES:
        r = measure(n)
        print(f"| {n:,} | {r['raw'] * 1000:.0f} ms | {r['loads'] * 1000:.0f} ms | {r['loads_paused'] * 1000:.0f} ms | "
              f"{r['informer'] * 1000:.0f} ms | {r['informer'] / r['loads_paused']:.2f}x | "
              f"{r['informer'] / r['raw']:.2f}x | {r['informer_default'] * 1000:.0f} ms | "
              f"{r['typed'] * 1000:.0f} ms | {r['typed'] / r['informer']:.1f}x | {r['mem_plain']:.0f} | "
              f"{r['mem_default']:.0f} | {r['mem_slim']:.0f} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
    else:
        main()
