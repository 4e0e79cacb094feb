"""The gateway route, node and pod sources: informer cache bytes per object, and event -> DNS for a route.

1. Bytes per cached HTTPRoute, Gateway, Node and Pod (realistic objects: managedFields, rules, conditions,
   node images and capacity) served by the test API server, with no transformers, with the factory defaults
   (managedFields and last-applied-configuration dropped) and with the sources' slimming transformers
   (sources/informer/slim.py). Deep size of every cached object, shared strings counted once (as in
   memory). Goal: <= 1 KiB per slimmed route, node and pod.
2. One endpoints() pass over 1k / 10k slimmed routes on one Gateway.
3. Event -> DNS: an HTTPRoute's host name is changed on the test API server, one change after the other;
   each time we measure until the new name is written to the (in-memory) zone by the running controller
   (`--source=gateway-httproute --events --min-event-sync-interval=0 --interval=1h`, 2 workers):
   route watch -> source event -> scheduler -> workqueue -> worker -> TXT registry -> provider.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import kubernetes.client
import structlog

from bench.informer_memory import _managed_fields, measure, pod
from external_dns.cmd.build_sources import build_source_pipeline
from external_dns.cmd.config import load_config
from external_dns.cmd.wiring import process_options
from external_dns.controller.controller import Controller
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.controller.process import ControllerProcess
from external_dns.informers import DEFAULT_TRANSFORMERS, NODES, PODS, Resource, Transformer
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as PREFIX
from external_dns.sources.informer.gateway import GATEWAYS, HTTPROUTES
from external_dns.sources.informer.slim import (
    NEED_ANNOTATIONS,
    NEED_LABELS,
    NEED_POD_SOURCE,
    annotation_keeper,
    gateway_transformer,
    node_transformer_for,
    pod_transformer_for,
    route_transformer,
)
from external_dns.sources.objects.gateway import GatewayOptions, collect_route_endpoints, lookup_from
from external_dns.sources.options import SourceOptions
from tests.helpers.gateway import condition, gateway, listener, route
from tests.kubeapi.server import KubeAPIServer

N_ROUTES = 5_000
N_NODES = 1_000
N_PODS = 5_000
UPDATES = 100


def big_route(i: int) -> dict[str, Any]:
    rt = route(name=f"route-{i:05d}", namespace=f"ns-{i % 20}", hostnames=[f"r{i}.example.org", f"r{i}.example.net"],
               parents=[{"name": "gw", "namespace": "infra", "sectionName": "https"}],
               labels={"app": f"app-{i}", "app.kubernetes.io/managed-by": "Helm", "team": f"team-{i % 7}"},
               annotations={PREFIX + "ttl": "300", "meta.helm.sh/release-name": f"app-{i}",
                            "kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 900 + "}"})
    rt["metadata"]["managedFields"] = _managed_fields("helm")
    rt["spec"]["rules"] = [{"matches": [{"path": {"type": "PathPrefix", "value": f"/api/v{v}"}},
                                        {"headers": [{"name": "x-version", "value": str(v)}]}],
                            "filters": [{"type": "RequestHeaderModifier", "requestHeaderModifier": {
                                "add": [{"name": "x-route", "value": f"route-{i}"}]}}],
                            "backendRefs": [{"name": f"svc-{i}", "port": 8080, "weight": 90},
                                            {"name": f"svc-{i}-canary", "port": 8080, "weight": 10}]}
                           for v in (1, 2)]
    rt["status"]["parents"][0]["conditions"] += [condition("ResolvedRefs"), condition("Programmed")]
    return rt


def big_node(i: int) -> dict[str, Any]:
    name = f"node-{i:04d}.eu-west-1.compute.internal"
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
              "node.kubernetes.io/instance-type": "m6i.xlarge", "topology.kubernetes.io/region": "eu-west-1",
              "topology.kubernetes.io/zone": f"eu-west-1{'abc'[i % 3]}", "beta.kubernetes.io/arch": "amd64",
              "beta.kubernetes.io/os": "linux", "eks.amazonaws.com/nodegroup": "workers",
              "eks.amazonaws.com/capacityType": "ON_DEMAND", "node-role.kubernetes.io/worker": ""}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "managedFields": _managed_fields("kubelet"),
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                         "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                                         "csi.volume.kubernetes.io/nodeid": '{"ebs.csi.aws.com":"i-0' + f"{i:07d}" + '"}'}},
            "spec": {"providerID": f"aws:///eu-west-1a/i-0{i:07d}", "podCIDR": f"10.{i // 250}.{i % 250}.0/24",
                     "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}]},
            "status": {
                "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250}"},
                              {"type": "ExternalIP", "address": f"203.0.{i // 250}.{i % 250}"},
                              {"type": "InternalDNS", "address": name}, {"type": "Hostname", "address": name}],
                "capacity": {"cpu": "4", "memory": "16106132Ki", "pods": "58", "ephemeral-storage": "83873772Ki"},
                "allocatable": {"cpu": "3920m", "memory": "15090324Ki", "pods": "58"},
                "conditions": [{"type": t, "status": "False", "reason": f"Kubelet{t}", "message": "ok",
                                "lastHeartbeatTime": "2026-11-25T10:00:00Z",
                                "lastTransitionTime": "2026-11-20T10:00:00Z"}
                               for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")],
                "nodeInfo": {"kubeletVersion": "v1.31.2", "osImage": "Amazon Linux 2023", "architecture": "amd64",
                             "containerRuntimeVersion": "containerd://1.7.22", "kernelVersion": "6.1.112",
                             "machineID": "ec2" + "a" * 29, "systemUUID": "ec2" + "b" * 33, "bootID": "c" * 36},
                "images": [{"names": [f"registry.example.org/img-{k}@sha256:" + f"{k:02d}" * 32,
                                      f"registry.example.org/img-{k}:1.{k}"], "sizeBytes": 10_000_000 + k}
                           for k in range(15)]}}


def host_pod(i: int) -> dict[str, Any]:
    p = pod(i)
    p["spec"]["hostNetwork"] = True
    p["metadata"]["annotations"][PREFIX + "hostname"] = f"web-{i}.example.org"
    return p


def populate(server: KubeAPIServer) -> None:
    for ns in ("infra", *(f"ns-{k}" for k in range(20))):
        server.ensure_namespace(ns)
    create_with_status(server, gateway(namespace="infra", addresses=["192.0.2.1"], listeners=[listener(
        "https", "HTTPS", 443, hostname="*.example.org", allowedRoutes={"namespaces": {"from": "All"}})]))
    for i in range(N_ROUTES):
        create_with_status(server, big_route(i))
    for i in range(N_NODES):
        create_with_status(server, big_node(i))
    for i in range(N_PODS):
        create_with_status(server, host_pod(i))


def create_with_status(server: KubeAPIServer, obj: dict[str, Any]) -> None:
    """Create `obj` without its status, then write the status through the status subresource (as a real
    controller would: create ignores status)."""
    status = obj.pop("status")
    created = server.create(obj)
    created["status"] = status
    server.update_status(created)


def memory_table() -> None:
    server = KubeAPIServer(history_size=4 * (N_ROUTES + N_NODES + N_PODS)).start()
    try:
        populate(server)
        keep = annotation_keeper(PREFIX)
        cases: list[tuple[str, Resource, str, tuple[Transformer, ...]]] = [
            ("HTTPRoute", HTTPROUTES, "none", ()),
            ("HTTPRoute", HTTPROUTES, "defaults (managedFields, last-applied)", DEFAULT_TRANSFORMERS),
            ("HTTPRoute", HTTPROUTES, "gateway source slimming", (route_transformer(keep, keep_labels=False),)),
            ("Gateway", GATEWAYS, "gateway source slimming", (gateway_transformer(keep, keep_labels=False),)),
            ("Node", NODES, "none", ()),
            ("Node", NODES, "defaults (managedFields, last-applied)", DEFAULT_TRANSFORMERS),
            ("Node", NODES, "node source slimming", (node_transformer_for(frozenset({NEED_ANNOTATIONS}), keep),)),
            ("Node", NODES, "node source, --label-filter (labels kept)",
             (node_transformer_for(frozenset({NEED_ANNOTATIONS, NEED_LABELS}), keep),)),
            ("Pod", PODS, "none", ()),
            ("Pod", PODS, "defaults (managedFields, last-applied)", DEFAULT_TRANSFORMERS),
            ("Pod", PODS, "pod source slimming",
             (pod_transformer_for(frozenset({NEED_ANNOTATIONS, NEED_POD_SOURCE}), keep),)),
            ("Pod", PODS, "pod + service sources (labels kept)",
             (pod_transformer_for(frozenset({NEED_ANNOTATIONS, NEED_POD_SOURCE, NEED_LABELS}), keep),)),
        ]
        print("| kind | transformers | objects | bytes/object | cache MiB | start->synced s |")
        print("|---|---|---|---|---|---|")
        for kind, resource, label, transformers in cases:
            per_object, took, count = measure(server, resource, transformers)
            print(f"| {kind} | {label} | {count} | {per_object} | {per_object * count / 2**20:.1f} | {took:.2f} |",
                  flush=True)
        print("\ngoal: <= 1024 bytes per slimmed route, node and pod")
    finally:
        server.stop()


class _WatchedZone(InMemoryProvider):
    """Records when each name is first written."""

    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.cond = threading.Condition()
        self.seen: dict[str, float] = {}
        self.targets: dict[str, str] = {}  # name -> last A target written

    def apply_changes(self, changes: Changes) -> None:
        super().apply_changes(changes)
        now = time.perf_counter()
        with self.cond:
            for ep in [*changes.create, *changes.update_new]:
                self.seen.setdefault(ep.dns_name, now)
                if ep.record_type == "A" and ep.targets:
                    self.targets[ep.dns_name] = ep.targets[0]
            self.cond.notify_all()

    def wait_all(self, names: list[str], target: str, timeout: float) -> float | None:
        """perf_counter time when every name pointed to `target`, or None."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while any(self.targets.get(n) != target for n in names):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.cond.wait(remaining)
            return time.perf_counter()

    def wait_for(self, name: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while name not in self.seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.cond.wait(remaining)
            return self.seen[name]


def _start(server: KubeAPIServer, api: Any, stop: threading.Event,
           provider: _WatchedZone) -> tuple[ControllerProcess, threading.Thread]:
    factory = LazyInformerFactory(lambda: api)
    argv = ["--source=gateway-httproute", "--provider=inmemory", "--inmemory-zone=example.org", "--policy=sync",
            "--txt-owner-id=bench", "--events", "--min-event-sync-interval=0s", "--interval=1h", "--workers=2",
            "--metrics-address=127.0.0.1:0"]
    _, cfg = load_config(argv, environ={})
    source = build_source_pipeline(cfg, {"stop": stop, "kube_client": lambda: api, "informer_factory": factory})
    ctl = Controller(source, TXTRegistry(provider, owner_id="bench"), "sync")
    process = ControllerProcess(process_options(cfg), ctl, stop=stop, kube_client=lambda: api,
                                informer_factory=factory, emit_events=False)
    runner = threading.Thread(target=process.run, name="bench-process")
    runner.start()
    return process, runner


def gateway_address_change(routes: int) -> float:
    """Seconds from a Gateway's new address to every one of `routes` attached routes' records pointing to it."""
    server = KubeAPIServer(history_size=4 * routes + 100).start()
    api = kubernetes.client.ApiClient(server.configuration())
    stop = threading.Event()
    try:
        server.ensure_namespace("default")
        objs = [gateway(addresses=["192.0.2.1"])] + [route(name=f"r{i}", hostnames=[f"r{i}.example.org"])
                                                     for i in range(routes)]
        for obj in objs:
            create_with_status(server, obj)
        provider = _WatchedZone(["example.org"])
        _process, runner = _start(server, api, stop, provider)
        names = [f"r{i}.example.org" for i in range(routes)]
        try:
            if provider.wait_all(names, "192.0.2.1", 120) is None:
                raise RuntimeError("the first sync did not finish within 120 s")
            started = time.perf_counter()
            server.patch("gateway.networking.k8s.io/v1", "Gateway", "default", "gw",
                         {"status": {"addresses": [{"type": "IPAddress", "value": "192.0.2.2"}]}},
                         subresource="status")
            done = provider.wait_all(names, "192.0.2.2", 120)
            if done is None:
                raise RuntimeError("the new address did not reach every record within 120 s")
            return done - started
        finally:
            stop.set()
            runner.join(20)
    finally:
        api.close()
        server.stop()


def route_event_latency(updates: int = UPDATES) -> list[float]:
    server = KubeAPIServer().start()
    api = kubernetes.client.ApiClient(server.configuration())
    stop = threading.Event()
    try:
        server.ensure_namespace("default")
        for obj in (gateway(addresses=["192.0.2.1"]), route(hostnames=["r0.example.org"])):
            create_with_status(server, obj)
        provider = _WatchedZone(["example.org"])
        _process, runner = _start(server, api, stop, provider)
        try:
            if provider.wait_for("r0.example.org", 30) is None:
                raise RuntimeError("the first sync did not happen within 30 s")
            latencies: list[float] = []
            for i in range(1, updates + 1):
                name = f"r{i}.example.org"
                started = time.perf_counter()
                server.patch("gateway.networking.k8s.io/v1", "HTTPRoute", "default", "echo",
                             {"spec": {"hostnames": [name]}})
                written = provider.wait_for(name, 10)
                if written is None:
                    raise RuntimeError(f"change {i} ({name}) did not reach the zone within 10 s")
                latencies.append(written - started)
        finally:
            stop.set()
            runner.join(20)
        return latencies
    finally:
        api.close()
        server.stop()


def collect_time(routes: int) -> float:
    """Best of 3: seconds for one endpoints() pass over `routes` slimmed HTTPRoutes on one Gateway."""
    gw = gateway(namespace="infra", addresses=["192.0.2.1"], listeners=[listener(
        "https", "HTTPS", 443, hostname="*.example.org", allowedRoutes={"namespaces": {"from": "All"}})])
    slim = route_transformer(annotation_keeper(PREFIX), keep_labels=False)
    cached = [slim(big_route(i)) for i in range(routes)]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        out = collect_route_endpoints(cached, "HTTPRoute", SourceOptions(), GatewayOptions(), lookup_from([gw]))
        best = min(best, time.perf_counter() - started)
        if len(out.endpoints) != routes:
            raise RuntimeError(f"expected {routes} endpoints, got {len(out.endpoints)}")
    return best


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    print(f"Informer cache per object ({N_ROUTES} HTTPRoutes, 1 Gateway, {N_NODES} Nodes, {N_PODS} Pods)\n")
    memory_table()
    print(f"\nEvent -> DNS: an HTTPRoute's host name changed {UPDATES} times, each time until the new name is "
          "written\n(--source=gateway-httproute --events --min-event-sync-interval=0 --interval=1h, 2 workers, "
          "in-memory zone)\n")
    ms = [v * 1000 for v in route_event_latency()]
    print("| p50 | p90 | p99 | mean | max |")
    print("|---|---|---|---|---|")
    print(f"| {_pct(ms, 50):.1f} ms | {_pct(ms, 90):.1f} ms | {_pct(ms, 99):.1f} ms | {statistics.mean(ms):.1f} ms "
          f"| {max(ms):.1f} ms |")
    print("\nOne endpoints() pass over slimmed HTTPRoutes on one Gateway (best of 3)\n")
    print("| routes | seconds | per route |")
    print("|---|---|---|")
    for n in (1000, 10_000):
        took = collect_time(n)
        print(f"| {n} | {took:.3f} | {took / n * 1e6:.0f} us |", flush=True)
    print("\nA Gateway's address changes: time until every attached route's record points to the new address\n")
    print("| routes on the Gateway | event -> all records updated |")
    print("|---|---|")
    for n in (100, 1000):
        print(f"| {n} | {gateway_address_change(n) * 1000:.0f} ms |", flush=True)


if __name__ == "__main__":
    main()
