"""Integration: every reflector path driven through the real `kubernetes` client against the test API server."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import kubernetes
import pytest

from external_dns.informers import (
    SERVICES,
    Backoff,
    DeletedFinalStateUnknown,
    ReflectorOptions,
    SharedIndexInformer,
    keep_annotation_prefixes,
)
from external_dns.informers.transform import DEFAULT_TRANSFORMERS, LAST_APPLIED
from tests.informers.helpers import (
    ModelHandler,
    cache_state,
    list_requests,
    server_state,
    service,
    wait_until,
    watch_requests,
)
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

FAST = ReflectorOptions(backoff_factory=lambda: Backoff(initial=0.05, cap=0.5))

Make = Callable[..., SharedIndexInformer]


@pytest.fixture
def make(kube_api_client: kubernetes.client.ApiClient) -> Iterator[Make]:
    made: list[SharedIndexInformer] = []

    def build(api: Any = None, **kwargs: Any) -> SharedIndexInformer:
        kwargs.setdefault("options", FAST)
        inf = SharedIndexInformer(api or kube_api_client, kwargs.pop("resource", SERVICES), **kwargs)
        made.append(inf)
        return inf

    yield build
    for inf in made:
        assert inf.shutdown(5.0)


def started(inf: SharedIndexInformer, handler: Any = None, timeout: float = 10.0) -> ModelHandler:
    handler = handler or ModelHandler()
    reg = inf.add_event_handler(handler)
    inf.start()
    assert reg.wait_for_sync(timeout)
    return handler  # type: ignore[no-any-return]


def converge(kubeapi: KubeAPIServer, inf: SharedIndexInformer, *handlers: ModelHandler, timeout: float = 30.0) -> None:
    assert wait_until(lambda: cache_state(inf) == server_state(kubeapi), timeout), (
        cache_state(inf), server_state(kubeapi))
    for h in handlers:
        assert h.wait(lambda m: m.model == server_state(kubeapi), timeout), (h.model, server_state(kubeapi))
        assert h.violations == []


def force_410(kubeapi: KubeAPIServer) -> None:
    """History gone and the open watch cut: the re-watch from the old rv gets 410. Waits for the watch to be
    open first (a watch being set up while the cut happens would miss it and stay live)."""
    assert wait_until(lambda: kubeapi.open_watch_count >= 1, 10)
    kubeapi.compact()
    assert kubeapi.cut_watches() >= 1


def test_event_reaches_handlers_quickly(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    h = started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    t0 = time.monotonic()
    kubeapi.create(service("fresh"))
    assert h.wait(lambda m: "default/fresh" in m.model, 2.0)
    assert time.monotonic() - t0 < 2.0
    first = list_requests(kubeapi)[0]
    assert first == {"resourceVersion": "0", "limit": "500"}
    w = watch_requests(kubeapi)[0]
    assert w["allowWatchBookmarks"] == "true" and 300 <= int(w["timeoutSeconds"]) <= 600
    assert w["resourceVersion"] == inf.reflector.last_sync_resource_version or int(w["resourceVersion"]) > 0


def test_paging_limit_2_over_7_objects_after_410(kubeapi: KubeAPIServer, make: Make) -> None:
    for i in range(7):
        kubeapi.create(service(f"s{i}"))
    inf = make(options=ReflectorOptions(page_size=2, backoff_factory=FAST.backoff_factory))
    h = started(inf)
    assert len(inf.get_store().list()) == 7
    kubeapi.clear_requests()
    force_410(kubeapi)
    kubeapi.create(service("s7"))
    converge(kubeapi, inf, h)
    lists = list_requests(kubeapi)
    assert len(lists) == 4, lists  # 8 objects in pages of 2, a consistent read (no resourceVersion)
    assert lists[0] == {"limit": "2"}
    for q in lists[1:]:
        assert q["limit"] == "2" and q["continue"] and "resourceVersion" not in q
    for q in list_requests(kubeapi):
        assert "limit" not in q or q.get("resourceVersion", "0") == "0"
    assert [e[0] for e in h.events[7:]] == ["add"]  # only s7 is new: no add for known keys, no spurious updates


def test_expired_continue_token_falls_back_to_full_list(kubeapi: KubeAPIServer, make: Make) -> None:
    for i in range(5):
        kubeapi.create(service(f"s{i}"))

    api = kubernetes.client.ApiClient(kubeapi.configuration())
    pool = api.rest_client.pool_manager
    original = pool.request
    armed = threading.Event()

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        """Compacts the server right after the first page of a paged list."""
        query = dict(kwargs.get("fields") or ())
        resp = original(method, url, *args, **kwargs)
        if armed.is_set() and "limit" in query and "continue" not in query and query.get("watch") != "true":
            armed.clear()
            kubeapi.compact()
        return resp

    pool.request = request
    inf = make(api=api, options=ReflectorOptions(page_size=2, backoff_factory=FAST.backoff_factory))
    h = started(inf)
    kubeapi.clear_requests()
    armed.set()
    force_410(kubeapi)
    kubeapi.create(service("late"))
    converge(kubeapi, inf, h)
    api.close()
    statuses = [(q, s) for (_m, _p, q, s) in kubeapi.requests if q.get("watch") != "true"]
    assert any("continue" in q and s == 410 for q, s in statuses), statuses
    assert statuses[-1][0] == {} and statuses[-1][1] == 200  # the unpaginated fallback, no rv, no limit


def test_clean_close_rewatches_from_last_rv_without_relist(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.create(service("a"))
    inf = make(options=ReflectorOptions(min_watch_timeout=1, max_watch_timeout=1,
                                        backoff_factory=FAST.backoff_factory))
    h = started(inf)
    kubeapi.create(service("b"))
    assert h.wait(lambda m: "default/b" in m.model, 5)
    rv_b = h.model["default/b"]
    assert wait_until(lambda: len(watch_requests(kubeapi)) >= 3, 10)
    assert len(list_requests(kubeapi)) == 1
    watches = watch_requests(kubeapi)
    list_rv = watches[0]["resourceVersion"]
    # each re-watch resumes exactly from the last event's or bookmark's rv: nothing else was written, so
    # that is the list's rv until "b" arrived and b's rv afterwards
    assert {q["resourceVersion"] for q in watches} <= {list_rv, rv_b}
    assert watches[-1]["resourceVersion"] == rv_b
    assert all(q["timeoutSeconds"] == "1" for q in watches)
    kubeapi.create(service("c"))
    converge(kubeapi, inf, h)


def test_bookmark_advances_resource_version(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    kubeapi.create(service("x"))
    kubeapi.ensure_namespace("other")  # advances the global rv without a Service event
    kubeapi.ensure_namespace("other2")
    target = str(kubeapi.resource_version)
    assert inf.last_sync_resource_version() != target  # no Service event carries it
    assert kubeapi.send_bookmarks() == 1
    assert wait_until(lambda: inf.last_sync_resource_version() == target, 5)
    kubeapi.clear_requests()
    kubeapi.cut_watches()
    assert wait_until(lambda: len(watch_requests(kubeapi)) >= 1, 5)
    assert watch_requests(kubeapi)[0]["resourceVersion"] == target
    assert list_requests(kubeapi) == []


def test_410_relist_converges_and_handlers_stay_consistent(kubeapi: KubeAPIServer, make: Make) -> None:
    for i in range(6):
        kubeapi.create(service(f"s{i}"))
    inf = make()
    h1, h2 = started(inf), ModelHandler()
    inf.add_event_handler(h2)
    # while the watch is down: changes the informer only learns about at the relist
    kubeapi.silence_watches(3)
    kubeapi.compact()
    svc = kubeapi.get("v1", "Service", "default", "s1")
    assert svc is not None
    svc["metadata"]["labels"] = {"changed": "yes"}
    kubeapi.update(svc)
    kubeapi.delete_silently("v1", "Service", "default", "s2")
    kubeapi.create(service("new"))
    force_410(kubeapi)
    t0 = time.monotonic()
    converge(kubeapi, inf, h1, h2, timeout=30)
    assert time.monotonic() - t0 < 30
    assert {"limit": "500"} in list_requests(kubeapi)  # relist with resourceVersion unset


def test_lost_delete_repaired_at_relist_as_tombstone(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.create(service("keep"))
    kubeapi.create(service("lost"))
    inf = make()
    h = started(inf)
    lost_rv = h.model["default/lost"]
    kubeapi.delete_silently("v1", "Service", "default", "lost")
    force_410(kubeapi)
    assert h.wait(lambda m: bool(m.tombstones), 30)
    tomb = h.tombstones[0]
    assert isinstance(tomb, DeletedFinalStateUnknown) and tomb.key == "default/lost"
    assert tomb.obj is not None and tomb.obj["metadata"]["resourceVersion"] == lost_rv
    converge(kubeapi, inf, h)


def test_silent_watch_is_detected_by_read_timeout(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make(options=ReflectorOptions(watch_read_timeout=1.0, backoff_factory=FAST.backoff_factory))
    h = started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    kubeapi.silence_watches(60)
    kubeapi.create(service("during-silence"))
    t0 = time.monotonic()
    assert h.wait(lambda m: "default/during-silence" in m.model, 10)
    assert time.monotonic() - t0 < 5  # noticed after ~1 s, not after the 60 s silence
    assert len(list_requests(kubeapi)) == 1  # re-watched, no relist


def test_500s_on_list_are_retried_with_backoff(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.create(service("a"))
    kubeapi.fail_next(3, status=500, path_contains="/services")
    inf = make(options=ReflectorOptions())  # the real backoff: 0.8 s doubling, jitter [d, 2d)
    t0 = time.monotonic()
    h = started(inf, timeout=60)  # three steps: at most 1.6 + 3.2 + 6.4 s
    elapsed = time.monotonic() - t0
    assert elapsed < 60
    delays = list(inf.reflector.delays)
    assert len(delays) == 3
    for delay, base in zip(delays, (0.8, 1.6, 3.2), strict=True):
        assert base <= delay < 2 * base
    assert elapsed >= sum(delays) - 0.1
    lists = [s for (_m, _p, q, s) in kubeapi.requests if q.get("watch") != "true"]
    assert lists[:4] == [500, 500, 500, 200], kubeapi.requests
    assert h.model == server_state(kubeapi)


def test_429_on_watch_honours_retry_after_and_rewatches(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    h = started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    kubeapi.clear_requests()
    kubeapi.fail_next(1, status=429, retry_after=2, path_contains="/services")
    assert kubeapi.cut_watches() == 1
    kubeapi.create(service("after-429"))
    t0 = time.monotonic()
    assert h.wait(lambda m: "default/after-429" in m.model, 10)
    assert time.monotonic() - t0 >= 1.9
    assert inf.reflector.delays[-1] >= 2.0
    assert list_requests(kubeapi) == []  # 429: re-watch, no relist
    assert [s for (_m, _p, _q, s) in kubeapi.requests][:2] == [429, 200]


def test_500_on_watch_relists_at_last_rv_without_limit(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    h = started(inf)
    last = inf.last_sync_resource_version()
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    kubeapi.clear_requests()
    kubeapi.fail_next(1, status=500, path_contains="/services")
    assert kubeapi.cut_watches() == 1
    kubeapi.create(service("after-500"))
    assert h.wait(lambda m: "default/after-500" in m.model, 10)
    lists = list_requests(kubeapi)
    assert lists and lists[0] == {"resourceVersion": last}


def test_connection_refused_then_recovery(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    h = started(inf)
    kubeapi.stop()
    assert wait_until(lambda: len(inf.reflector.delays) >= 2, 10)  # refused re-watches back off
    kubeapi.start()
    kubeapi.create(service("after-restart"))
    assert h.wait(lambda m: "default/after-restart" in m.model, 10)


def test_malformed_watch_line_rewatches_without_losing_the_event(kubeapi: KubeAPIServer, make: Make) -> None:
    inf = make()
    h = started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    kubeapi.inject_malformed_line()
    kubeapi.create(service("garbled"))
    assert h.wait(lambda m: "default/garbled" in m.model, 10)
    assert len(list_requests(kubeapi)) == 1


def test_selectors_and_namespaced_paths(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.ensure_namespace("team")
    kubeapi.create(service("yes", "team", labels={"dns": "on"}))
    kubeapi.create(service("no", "team", labels={"dns": "off"}))
    kubeapi.create(service("elsewhere", "default", labels={"dns": "on"}))
    inf = make(namespace="team", label_selector="dns=on", field_selector="metadata.name!=skip")
    h = started(inf)
    assert sorted(h.model) == ["team/yes"]
    kubeapi.create(service("yes2", "team", labels={"dns": "on"}))
    kubeapi.create(service("skip", "team", labels={"dns": "on"}))
    assert h.wait(lambda m: "team/yes2" in m.model, 5)
    assert "team/skip" not in h.model
    for method, path, query, _status in kubeapi.requests:
        assert method == "GET" and path == "/api/v1/namespaces/team/services"
        assert query["labelSelector"] == "dns=on" and query["fieldSelector"] == "metadata.name!=skip"


def test_transformers_shrink_cached_objects(kubeapi: KubeAPIServer, make: Make) -> None:
    big = service("big", annotations={LAST_APPLIED: "x" * 5000, "external-dns.alpha.kubernetes.io/ttl": "60",
                                      "other.example/a": "b"})
    kubeapi.create(big)
    inf = make(transformers=[*DEFAULT_TRANSFORMERS, keep_annotation_prefixes("external-dns.alpha.kubernetes.io/")])
    started(inf)
    kubeapi.create({**big, "metadata": {**big["metadata"], "name": "big2"}})
    assert wait_until(lambda: inf.get_store().get_by_key("default/big2") is not None, 5)
    for key in ("default/big", "default/big2"):
        obj = inf.get_store().get_by_key(key)
        assert obj is not None
        assert obj["metadata"]["annotations"] == {"external-dns.alpha.kubernetes.io/ttl": "60"}
        assert "managedFields" not in obj["metadata"]
        assert obj["kind"] == "Service" and obj["apiVersion"] == "v1"


def test_indexer_lookups(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.ensure_namespace("b")
    kubeapi.create(service("a1", labels={"app": "web"}))
    kubeapi.create(service("b1", "b", labels={"app": "web"}))
    kubeapi.create(service("b2", "b", labels={"app": "db"}))
    inf = make(indexers={"app": lambda o: [o["metadata"].get("labels", {}).get("app", "")]})
    started(inf)
    store = inf.get_indexer()
    assert sorted(o["metadata"]["name"] for o in store.by_index("app", "web")) == ["a1", "b1"]
    assert store.index_keys("namespace", "b") == ["b/b1", "b/b2"]
    kubeapi.patch("v1", "Service", "b", "b2", {"metadata": {"labels": {"app": "web"}}})
    assert wait_until(lambda: len(store.by_index("app", "web")) == 3, 5)
    assert store.list_index_func_values("app") == ["web"]


def test_late_handler_and_resync(kubeapi: KubeAPIServer, make: Make) -> None:
    kubeapi.create(service("a"))
    kubeapi.create(service("b"))
    inf = make()
    started(inf)
    late = ModelHandler()
    reg = inf.add_event_handler(late, resync_period=1.0)
    assert reg.wait_for_sync(5)
    assert sorted(late.model) == ["default/a", "default/b"]
    assert late.wait(lambda m: sum(1 for e in m.events if e[0] == "update") >= 2, 5)  # resync: update(obj, obj)
    assert late.violations == []


def test_shutdown_with_open_watch_is_prompt(kubeapi: KubeAPIServer, kube_api_client: Any) -> None:
    inf = SharedIndexInformer(kube_api_client, SERVICES)
    started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    t0 = time.monotonic()
    assert inf.shutdown(5.0)
    assert time.monotonic() - t0 < 5.0
    assert not [t for t in threading.enumerate() if t.name.startswith("informer-")]
    assert wait_until(lambda: kubeapi.open_watch_count == 0, 5)


def test_metrics_count_lists_watches_relists_and_store_size(kubeapi: KubeAPIServer, make: Make) -> None:
    from prometheus_client import REGISTRY

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, {"informer": "services ns=metrics", **labels}) or 0.0

    kubeapi.ensure_namespace("metrics")
    kubeapi.create(service("a", "metrics"))
    before = {n: sample(n) for n in ("external_dns_informer_lists_total", "external_dns_informer_watches_total",
                                     "external_dns_informer_relists_410_total")}
    inf = make(namespace="metrics")
    started(inf)
    assert wait_until(lambda: kubeapi.open_watch_count == 1, 5)
    force_410(kubeapi)
    kubeapi.create(service("b", "metrics"))
    assert wait_until(lambda: len(inf.get_store()) == 2, 30)
    assert sample("external_dns_informer_store_size") == 2
    assert sample("external_dns_informer_lists_total") >= before["external_dns_informer_lists_total"] + 2
    assert sample("external_dns_informer_watches_total") >= before["external_dns_informer_watches_total"] + 2
    assert sample("external_dns_informer_relists_410_total") == before["external_dns_informer_relists_410_total"] + 1
    assert sample("external_dns_informer_watch_restarts_total", reason="expired") >= 1
    assert sample("external_dns_informer_last_resync_timestamp_seconds") > 0
