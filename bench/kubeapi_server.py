"""Test Kubernetes API server throughput: 10k Services created directly, then listed through raw HTTP (whole
and paged by 500), through the `kubernetes` client (raw JSON and models), and streamed as 10k synthetic
ADDED watch events; 200 single-object GETs (request latency); one write fanned out to 50 open watches. Prints a table (median of 3 runs)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

import kubernetes.client as kc

from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer

N = 10_000
RUNS = 3


def _service(i: int) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": f"svc-{i:05d}", "namespace": "default", "labels": {"app": "bench", "shard": str(i % 10)},
                         "annotations": {"external-dns.alpha.kubernetes.io/hostname": f"h{i}.example.org"}},
            "spec": {"type": "LoadBalancer", "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}}


def _median(fn: Callable[[], int]) -> tuple[float, int]:
    times: list[float] = []
    count = 0
    for _ in range(RUNS):
        t0 = time.perf_counter()
        count = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), count


def main() -> None:
    server = KubeAPIServer(history_size=2 * N).start()
    rows: list[tuple[str, int, float]] = []
    try:
        server.ensure_namespace("default")
        t0 = time.perf_counter()
        for i in range(N):
            server.create(_service(i))
        rows.append(("create (direct API)", N, time.perf_counter() - t0))
        raw = RawClient(server.url, timeout=120)
        client = kc.ApiClient(server.configuration())
        api = kc.CoreV1Api(client)

        def raw_list() -> int:
            return len(raw.get("/api/v1/services").json["items"])

        def raw_paged() -> int:
            n, cont = 0, ""
            while True:
                body = raw.get("/api/v1/services?limit=500" + (f"&continue={cont}" if cont else "")).json
                n += len(body["items"])
                cont = body["metadata"].get("continue", "")
                if not cont:
                    return n

        def raw_selector() -> int:
            return len(raw.get("/api/v1/services?labelSelector=shard%3D3").json["items"])

        def client_raw() -> int:
            resp = api.list_service_for_all_namespaces(_preload_content=False)
            try:
                return len(json.loads(resp.data)["items"])
            finally:
                resp.release_conn()

        def client_models() -> int:
            return len(api.list_service_for_all_namespaces().items)

        def small_requests() -> int:
            for _ in range(200):
                raw.get("/api/v1/namespaces/default/services/svc-00001")
            return 200

        def watch_added() -> int:
            n = 0
            with raw.watch("/api/v1/services?watch=true&timeoutSeconds=30") as w:
                while n < N:
                    if not w.next_line():
                        break
                    n += 1
            return n

        for label, fn in (("list raw HTTP, one page", raw_list), ("list raw HTTP, limit=500 pages", raw_paged),
                          ("list labelSelector (1/10)", raw_selector),
                          ("list kubernetes client, raw JSON", client_raw),
                          ("list kubernetes client, models", client_models),
                          ("GET one object (keep-alive)", small_requests),
                          ("watch synthetic ADDED (raw)", watch_added)):
            elapsed, count = _median(fn)
            rows.append((label, count, elapsed))

        streams = [raw.watch(f"/api/v1/namespaces/default/services?watch=true&resourceVersion={server.resource_version}")
                   for _ in range(50)]
        deadline = time.monotonic() + 10
        while server.open_watch_count < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        t0 = time.perf_counter()
        server.patch("v1", "Service", "default", "svc-00000", {"metadata": {"labels": {"touched": "1"}}})
        got = sum(1 for s in streams if s.next_line())
        rows.append(("1 write -> 50 watches delivered", got, time.perf_counter() - t0))
        for s in streams:
            s.close()
        raw.close()
        client.close()
    finally:
        server.stop()
    print(f"{'operation':<36} {'objects':>8} {'seconds':>9} {'objects/s':>11}")
    for label, count, elapsed in rows:
        print(f"{label:<36} {count:>8} {elapsed:>9.3f} {count / elapsed if elapsed else 0:>11.0f}")


if __name__ == "__main__":
    main()
