"""`--source=service` read by name (`endpoints_for_names`, `take_dirty_names`) against the test API server:
after random creates, updates (host names moved, IPs changed, several Services sharing a name), deletes and a
headless Service, the by-name read of every name equals `endpoints()` filtered to it, and every changed name
is reported dirty."""

from __future__ import annotations

import random
from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, lb_service, service, set_lb_status

pytestmark = pytest.mark.integration

HOSTS = ["a.example.org", "b.example.org", "c.example.org", "shared.example.org"]


def canon(eps: list[Endpoint]) -> list[tuple[Any, ...]]:
    return sorted((e.dns_name, e.record_type, tuple(sorted(e.targets)), e.record_ttl,
                   tuple(sorted(e.labels.items()))) for e in eps)


def by_name(eps: list[Endpoint]) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[Endpoint]] = {}
    for e in eps:
        out.setdefault(e.dns_name.lower().rstrip("."), []).append(e)
    return {k: canon(v) for k, v in out.items()}


def cache_current(kubeapi: KubeAPIServer, src: ServiceInformerSource) -> bool:
    """Whether the informer cache holds every Service s0..s4 at the API server's resourceVersion."""
    store = src.services.get_store()
    for n in range(5):
        obj = kubeapi.get("v1", "Service", "default", f"s{n}")
        cached = store.get_by_key(f"default/s{n}")
        if (obj is None) != (cached is None):
            return False
        if obj is not None and cached is not None and \
                obj["metadata"]["resourceVersion"] != cached["metadata"].get("resourceVersion"):
            return False
    return True


def test_by_name_reads_equal_the_full_read(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                           waiter: Waiter) -> None:
    src = ServiceInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(waiter)
    lb_service(kubeapi, "s0", "a.example.org", "10.0.0.1")
    kubeapi.create(service("headless", hostname="h.example.org", svc_type="ClusterIP", spec={"clusterIP": "None"}))
    src.wait_synced()
    assert waiter.until(lambda: waiter.count >= 2)  # the events of the Services created so far arrived
    assert src.take_dirty_names() is None  # builds the index: no baseline before
    before = by_name(src.endpoints())
    rng = random.Random(7)
    live: set[str] = {"s0"}
    every = [*HOSTS, "h.example.org", "nothing.example.org"]
    for step in range(40):
        name = f"s{rng.randrange(5)}"
        hosts = ",".join(rng.sample(HOSTS, rng.randrange(1, 3)))
        ip = f"10.0.{step}.{rng.randrange(1, 9)}"
        if name in live and rng.random() < 0.3:
            kubeapi.delete("v1", "Service", "default", name)
            live.discard(name)
        elif name in live and rng.random() < 0.5:
            obj = kubeapi.get("v1", "Service", "default", name)
            assert obj is not None
            obj["metadata"]["annotations"][PREFIX + "hostname"] = hosts
            kubeapi.update(obj)
        elif name in live:
            set_lb_status(kubeapi, name, {"ip": ip})
        else:
            lb_service(kubeapi, name, hosts, ip)
            live.add(name)
        # the cache follows the API server and the by-name index the cache's events: wait for both
        assert waiter.until(lambda: cache_current(kubeapi, src)
                            and canon(src.endpoints_for_names(every) or []) == canon(src.endpoints()))
        full = src.endpoints()
        after = by_name(full)
        dirty = src.take_dirty_names()
        assert dirty is not None
        changed = {n for n in set(before) | set(after) if before.get(n) != after.get(n)}
        assert changed <= dirty, (step, changed - dirty)
        one = sorted(after)[0]
        assert canon(src.endpoints_for_names([one.upper() + "."]) or []) == after[one]
        before = after
