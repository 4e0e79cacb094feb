"""Informer cache memory of the in-cluster sources: bytes per cached Service and Pod, with no transformers,
with the factory defaults (managedFields and last-applied-configuration dropped) and with the sources'
slimming transformers (sources/informer/slim.py), for 10k realistic objects served by the test API server;
plus the time from informer start to cache synced (LIST pages of 500). Bytes are the deep size of every
cached object, each Python object counted once (strings shared between objects count once, as in memory).
Goal: <= 1 KiB per slimmed Service."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any

import kubernetes.client as kc
import structlog

from external_dns.informers import (
    DEFAULT_TRANSFORMERS,
    PODS,
    SERVICES,
    Resource,
    SharedInformerFactory,
    Transformer,
)
from external_dns.sources.annotations import DEFAULT_ANNOTATION_PREFIX as PREFIX
from external_dns.sources.informer.slim import annotation_keeper, pod_transformer, service_transformer
from tests.kubeapi.server import KubeAPIServer

N = 10_000


def _managed_fields(manager: str) -> list[dict[str, Any]]:
    return [{"manager": manager, "operation": "Update", "apiVersion": "v1", "time": "2026-11-23T10:00:00Z",
             "fieldsType": "FieldsV1",
             "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, f"f:{PREFIX}hostname": {}},
                                         "f:labels": {".": {}, "f:app": {}, "f:team": {}}},
                          "f:spec": {"f:ports": {".": {}, 'k:{"port":80,"protocol":"TCP"}': {
                              ".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}}},
                              "f:selector": {}, "f:sessionAffinity": {}, "f:type": {}}}}]


def service(i: int) -> dict[str, Any]:
    name = f"svc-{i:05d}"
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": f"ns-{i % 20}",
                         "labels": {"app": name, "team": f"team-{i % 7}", "app.kubernetes.io/managed-by": "Helm"},
                         "annotations": {PREFIX + "hostname": f"{name}.example.org",
                                         "meta.helm.sh/release-name": name,
                                         "kubectl.kubernetes.io/last-applied-configuration": "{" + "x" * 900 + "}"},
                         "managedFields": _managed_fields("kubectl-client-side-apply")},
            "spec": {"type": "LoadBalancer", "selector": {"app": name},
                     "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                               {"name": "https", "port": 443, "targetPort": 8443, "protocol": "TCP"}],
                     "sessionAffinity": "None", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                     "internalTrafficPolicy": "Cluster", "allocateLoadBalancerNodePorts": True}}


def pod(i: int) -> dict[str, Any]:
    name = f"web-{i:05d}"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": f"ns-{i % 20}",
                         "labels": {"app": "web", "pod-template-hash": "5d8f7b9c4", "team": f"team-{i % 7}"},
                         "annotations": {"prometheus.io/scrape": "true", "kubectl.kubernetes.io/restartedAt":
                                         "2026-11-23T09:00:00Z"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f7b9c4",
                                              "uid": "6c1f0a52-0000-4000-8000-000000000001", "controller": True,
                                              "blockOwnerDeletion": True}],
                         "managedFields": _managed_fields("kube-controller-manager")},
            "spec": {"nodeName": f"node-{i % 50}", "hostname": name, "serviceAccountName": "default",
                     "containers": [{"name": "web", "image": "registry.example.org/web:1.2.3",
                                     "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                                     "env": [{"name": "MODE", "value": "production"},
                                             {"name": "LOG_LEVEL", "value": "info"}],
                                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                                   "limits": {"memory": "256Mi"}},
                                     "volumeMounts": [{"name": "kube-api-access", "readOnly": True,
                                                       "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
                     "volumes": [{"name": "kube-api-access", "projected": {"sources": [
                         {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
                     "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                      "effect": "NoExecute", "tolerationSeconds": 300}]},
            "status": {"phase": "Running", "hostIP": f"10.0.{i % 50}.1", "podIP": f"10.1.{i // 250}.{i % 250}",
                       "podIPs": [{"ip": f"10.1.{i // 250}.{i % 250}"}], "qosClass": "Burstable",
                       "startTime": "2026-11-23T09:00:00Z",
                       "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2026-11-23T09:00:01Z"}
                                      for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                       "containerStatuses": [{"name": "web", "ready": True, "restartCount": 0, "started": True,
                                              "image": "registry.example.org/web:1.2.3",
                                              "imageID": "registry.example.org/web@sha256:" + "ab" * 32,
                                              "containerID": "containerd://" + "cd" * 32,
                                              "state": {"running": {"startedAt": "2026-11-23T09:00:01Z"}}}]}}


def deep_size(objs: list[Any]) -> int:
    seen: set[int] = set()
    stack: list[Any] = list(objs)
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, Mapping):  # dicts and the sources' CompactMappings
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
    return total


def measure(server: KubeAPIServer, resource: Resource, transformers: tuple[Transformer, ...]) -> tuple[int, float, int]:
    """(bytes per cached object, seconds from start to synced, cached objects)."""
    client = kc.ApiClient(server.configuration())
    factory = SharedInformerFactory(client, transformers=())
    try:
        informer = factory.informer_for(resource)
        informer.set_transform(*transformers)
        t0 = time.perf_counter()
        factory.start()
        if not informer.wait_for_cache_sync(300):
            raise RuntimeError(f"{resource.plural}: cache not synced")
        took = time.perf_counter() - t0
        objs = informer.get_store().list()
        return deep_size(objs) // max(1, len(objs)), took, len(objs)
    finally:
        factory.shutdown(10.0)
        client.close()


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))  # warnings only: keep the table clean
    server = KubeAPIServer(history_size=4 * N).start()
    try:
        for ns in range(20):
            server.ensure_namespace(f"ns-{ns}")
        for i in range(N):
            svc = server.create(service(i))
            svc["status"] = {"loadBalancer": {"ingress": [{"ip": f"203.0.{i // 250 % 250}.{i % 250}"}]},
                             "conditions": [{"type": "LoadBalancerReady", "status": "True",
                                             "lastTransitionTime": "2026-11-23T09:00:00Z"}]}
            server.update_status(svc)
            created = server.create(pod(i))
            created["status"] = pod(i)["status"]
            server.update_status(created)
        keep = annotation_keeper(PREFIX)
        cases: list[tuple[str, Resource, str, tuple[Transformer, ...]]] = [
            ("Service", SERVICES, "none", ()),
            ("Service", SERVICES, "defaults (managedFields, last-applied)", DEFAULT_TRANSFORMERS),
            ("Service", SERVICES, "service source slimming", (service_transformer(keep, keep_labels=False),)),
            ("Pod", PODS, "none", ()),
            ("Pod", PODS, "defaults (managedFields, last-applied)", DEFAULT_TRANSFORMERS),
            ("Pod", PODS, "service source slimming", (pod_transformer(PREFIX),)),
        ]
        print(f"{'kind':<8} {'transformers':<40} {'objects':>8} {'bytes/object':>13} {'cache MiB':>10} "
              f"{'start->synced s':>16}")
        for kind, resource, label, transformers in cases:
            per_object, took, count = measure(server, resource, transformers)
            print(f"{kind:<8} {label:<40} {count:>8} {per_object:>13} {per_object * count / 2**20:>10.1f} "
                  f"{took:>16.2f}", flush=True)
        print("\ngoal: <= 1024 bytes per slimmed Service")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
