"""Integration soak: 5 000 random writes interleaved with injected faults; afterwards the cache equals the
server's state exactly and every handler saw a consistent add/update/delete sequence."""

from __future__ import annotations

import os
import random

import kubernetes
import pytest

from external_dns.informers import SERVICES, Backoff, ReflectorOptions, SharedIndexInformer
from tests.informers.helpers import ModelHandler, cache_state, server_state, service, wait_until
from tests.kubeapi.errors import ApiError
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

WRITES = 5000
NAMESPACES = ("default", "a", "b")


def test_soak_random_writes_with_faults(kubeapi: KubeAPIServer, kube_api_client: kubernetes.client.ApiClient) -> None:
    seed = int(os.environ.get("INFORMER_SOAK_SEED", "20261123"))
    rng = random.Random(seed)
    for ns in NAMESPACES:
        kubeapi.ensure_namespace(ns)
    options = ReflectorOptions(page_size=50, watch_read_timeout=1.0,
                               backoff_factory=lambda: Backoff(initial=0.01, cap=0.2))
    informer = SharedIndexInformer(kube_api_client, SERVICES, options=options)
    handlers = [ModelHandler(), ModelHandler()]
    informer.add_event_handler(handlers[0])
    informer.start()
    late_added = False
    live: dict[str, tuple[str, str]] = {}
    faults = 0
    try:
        for i in range(WRITES):
            ns, name = rng.choice(NAMESPACES), f"s{rng.randrange(300)}"
            key = f"{ns}/{name}"
            try:
                if key not in live:
                    kubeapi.create(service(name, ns, labels={"gen": "0"}))
                    live[key] = (ns, name)
                elif rng.random() < 0.25:
                    if rng.random() < 0.1:
                        kubeapi.delete_silently("v1", "Service", ns, name)  # a lost DELETED
                    else:
                        kubeapi.delete("v1", "Service", ns, name)
                    del live[key]
                else:
                    kubeapi.patch("v1", "Service", ns, name, {"metadata": {"labels": {"gen": str(i)}}})
            except ApiError as exc:  # not expected: the test's own bookkeeping must match the server
                raise AssertionError(f"write {i} on {key}: {exc}") from None
            if i == WRITES // 3 and not late_added:
                informer.add_event_handler(handlers[1])  # a handler registered mid-stream
                late_added = True
            if rng.random() < 0.01:
                faults += 1
                fault = rng.choice(("cut", "410", "500", "429", "malformed", "silence", "bookmark"))
                if fault == "cut":
                    kubeapi.cut_watches()
                elif fault == "410":
                    kubeapi.compact()
                    kubeapi.cut_watches()
                elif fault == "500":
                    kubeapi.fail_next(rng.randint(1, 3), status=500, path_contains="/services")
                    kubeapi.cut_watches()
                elif fault == "429":
                    kubeapi.fail_next(1, status=429, retry_after=0, path_contains="/services")
                    kubeapi.cut_watches()
                elif fault == "malformed":
                    kubeapi.inject_malformed_line()
                elif fault == "silence":
                    kubeapi.silence_watches(1.5)
                else:
                    kubeapi.send_bookmarks()
        # lost deletes are only repaired by a relist: end with one, as a real cluster's 410 would
        expected = server_state(kubeapi)
        assert len(expected) == len(live)
        for _attempt in range(3):  # a watch being set up during the cut would miss it: cut again
            assert wait_until(lambda: kubeapi.open_watch_count >= 1, 30)
            kubeapi.compact()
            kubeapi.cut_watches()
            if wait_until(lambda: cache_state(informer) == expected, 20):
                break
        assert cache_state(informer) == expected, (
            f"seed {seed}: cache differs from server: "
            f"{set(cache_state(informer).items()) ^ set(expected.items())}")
        for handler in handlers:
            assert handler.wait(lambda m: m.model == expected, 30), f"seed {seed}: handler model differs"
            assert handler.violations == [], f"seed {seed}: {handler.violations[:5]}"
        assert faults > 20
    finally:
        assert informer.shutdown(5.0)
