"""The project's informers (reflector: paged LIST, WATCH with bookmarks, resume, 410 -> relist) against the
real kube-apiserver; what the informer sent is read back from the server's audit log."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import kubernetes.client
import pytest

from external_dns.controller.kube import new_api_client
from external_dns.informers import SERVICES, Backoff, ReflectorOptions, SharedIndexInformer
from tests.informers.helpers import ModelHandler, cache_state, wait_until
from tests.realkube.control_plane import ControlPlane
from tests.realkube.helpers import CLIENT_AGENT, requests_seen, server_state, service
from tests.realkube.partition import Partition

pytestmark = [pytest.mark.integration, pytest.mark.realkube]

FAST = ReflectorOptions(backoff_factory=lambda: Backoff(initial=0.05, cap=0.5))
Make = Callable[..., SharedIndexInformer]


@pytest.fixture
def make(realkube_api_client: kubernetes.client.ApiClient, realkube_namespace: str) -> Iterator[Make]:
    made: list[SharedIndexInformer] = []

    def build(api: Any = None, **kwargs: Any) -> SharedIndexInformer:
        kwargs.setdefault("options", FAST)
        kwargs.setdefault("namespace", realkube_namespace)
        inf = SharedIndexInformer(api or realkube_api_client, kwargs.pop("resource", SERVICES), **kwargs)
        made.append(inf)
        return inf

    yield build
    for inf in made:
        assert inf.shutdown(5.0)


def started(inf: SharedIndexInformer, timeout: float = 20.0) -> ModelHandler:
    handler = ModelHandler()
    reg = inf.add_event_handler(handler)
    inf.start()
    assert reg.wait_for_sync(timeout)
    return handler


def converge(plane: ControlPlane, ns: str, inf: SharedIndexInformer, h: ModelHandler, timeout: float = 30) -> None:
    assert wait_until(lambda: cache_state(inf) == server_state(plane, ns), timeout), (
        cache_state(inf), server_state(plane, ns))
    assert h.wait(lambda m: m.model == server_state(plane, ns), timeout), (h.model, server_state(plane, ns))
    assert h.violations == []


def _path(ns: str) -> str:
    return f"/api/v1/namespaces/{ns}/services"


def test_list_then_watch_follows_every_change(realkube: ControlPlane, realkube_namespace: str, make: Make) -> None:
    ns = realkube_namespace
    realkube.create(service("a", ns))
    mark = realkube.audit_mark()
    inf = make()
    h = started(inf)
    assert sorted(h.model) == [f"{ns}/a"]
    realkube.create(service("b", ns))
    realkube.request("PATCH", f"{_path(ns)}/a", {"metadata": {"labels": {"x": "1"}}},
                     content_type="application/merge-patch+json")
    realkube.request("DELETE", f"{_path(ns)}/b")
    converge(realkube, ns, inf, h)
    assert [e[0] for e in h.events] == ["add", "add", "update", "delete"]
    lists = requests_seen(realkube, mark, _path(ns), watch=False)
    assert lists[0] == {"resourceVersion": ["0"], "limit": ["500"]}
    watch = requests_seen(realkube, mark, _path(ns), watch=True)[0]
    assert watch["allowWatchBookmarks"] == ["true"] and 300 <= int(watch["timeoutSeconds"][0]) <= 600


def forget_history(plane: ControlPlane) -> int:
    """What a busy cluster does over minutes, at once: a write moves etcd's revision past every
    resourceVersion handed out so far, etcd is compacted there, and the API server restarts so its watch
    cache, which serves history beyond etcd's, begins anew. Afterwards a watch or a continue token from
    before gets 410 Gone. Returns the compacted revision."""
    plane.request("POST", "/api/v1/namespaces/default/configmaps",
                  {"metadata": {"generateName": "realkube-forget-"}, "data": {}})
    revision = plane.compact()
    plane.restart_apiserver()
    return revision


def partitioned_client(plane: ControlPlane) -> tuple[Partition, kubernetes.client.ApiClient]:
    """An admin client that reaches the server through a link the test can cut."""
    link = Partition(plane.port)
    api = new_api_client(plane.configuration())
    api.configuration.host = link.url
    return link, api


def test_410_after_compaction_relists_in_pages_and_misses_nothing(realkube: ControlPlane, realkube_namespace: str,
                                                                   make: Make) -> None:
    """The informer is cut off while Services change, the history it would resume from is compacted away:
    its re-watch gets 410, it relists in pages with the server's real continue tokens, and its handlers see
    exactly the changes (an update, a delete, an add), with no delete of anything still there."""
    ns = realkube_namespace
    for i in range(25):
        realkube.create(service(f"s{i:02d}", ns))
    link, api = partitioned_client(realkube)
    try:
        inf = make(api=api, options=ReflectorOptions(page_size=10, backoff_factory=FAST.backoff_factory))
        h = started(inf)
        assert len(h.model) == 25
        link.cut()
        realkube.request("PATCH", f"{_path(ns)}/s01", {"metadata": {"labels": {"changed": "yes"}}},
                         content_type="application/merge-patch+json")
        realkube.request("DELETE", f"{_path(ns)}/s02")
        realkube.create(service("new", ns))
        forget_history(realkube)
        mark = realkube.audit_mark()
        seen = len(h.events)
        link.heal()
        converge(realkube, ns, inf, h)
        assert sorted((kind, key) for kind, key, _rv in h.events[seen:]) == [
            ("add", f"{ns}/new"), ("delete", f"{ns}/s02"), ("update", f"{ns}/s01")]
        watches = requests_seen(realkube, mark, _path(ns), watch=True)
        lists = requests_seen(realkube, mark, _path(ns), watch=False)
        assert watches and lists, (watches, lists)
        # the first list after the 410: a consistent read in pages of 10 (no resourceVersion), continued with
        # the server's tokens until the 25 objects are read
        assert lists[0] == {"limit": ["10"]}, lists
        assert [bool(q.get("continue")) for q in lists[:3]] == [False, True, True], lists
    finally:
        link.close()
        api.close()


def test_watch_timeouts_bookmarks_and_resume_without_relist(realkube: ControlPlane, realkube_namespace: str,
                                                            make: Make) -> None:
    """Watches the server ends after `timeoutSeconds` (4 s): the server sends a BOOKMARK 2 s before the end
    carrying its newest resourceVersion (moved here by writes in another namespace), the informer takes it
    as its own, and every re-watch resumes from the last event's or bookmark's resourceVersion: one list in
    all, and an object created in between arrives exactly once."""
    ns = realkube_namespace
    other = f"{ns[:50]}-other"
    realkube.create_namespace(other)
    realkube.create(service("a", ns))
    mark = realkube.audit_mark()
    inf = make(options=ReflectorOptions(min_watch_timeout=4, max_watch_timeout=4,
                                        backoff_factory=FAST.backoff_factory))
    h = started(inf)
    listed_rv = inf.last_sync_resource_version()
    moved = realkube.create(service("elsewhere", other))["metadata"]["resourceVersion"]
    # the bookmark before the first watch ends brings the informer to (at least) the other namespace's write
    assert wait_until(lambda: int(inf.last_sync_resource_version()) >= int(moved), 15), (
        listed_rv, moved, inf.last_sync_resource_version())
    assert [e[1] for e in h.events] == [f"{ns}/a"]  # a bookmark is no event
    realkube.create(service("b", ns))
    assert wait_until(lambda: len(requests_seen(realkube, mark, _path(ns), watch=True)) >= 3, 20)
    converge(realkube, ns, inf, h)
    assert [e[0] for e in h.events] == ["add", "add"]
    watches = requests_seen(realkube, mark, _path(ns), watch=True)
    assert all(q["timeoutSeconds"] == ["4"] and q["allowWatchBookmarks"] == ["true"] for q in watches)
    assert watches[0]["resourceVersion"] == [listed_rv]
    assert int(watches[1]["resourceVersion"][0]) >= int(moved)  # resumed from the bookmark
    assert len(requests_seen(realkube, mark, _path(ns), watch=False)) == 1  # never relisted


def test_selectors_are_applied_by_the_server(realkube: ControlPlane, realkube_namespace: str, make: Make) -> None:
    ns = realkube_namespace
    realkube.create(service("yes", ns, labels={"dns": "on"}))
    realkube.create(service("no", ns, labels={"dns": "off"}))
    realkube.create(service("skip", ns, labels={"dns": "on"}))
    mark = realkube.audit_mark()
    inf = make(label_selector="dns=on", field_selector="metadata.name!=skip")
    h = started(inf)
    assert sorted(h.model) == [f"{ns}/yes"]
    realkube.create(service("yes2", ns, labels={"dns": "on"}))
    assert h.wait(lambda m: f"{ns}/yes2" in m.model, 10)
    # a label change that takes an object out of the selection is a delete from the server's point of view
    realkube.request("PATCH", f"{_path(ns)}/yes", {"metadata": {"labels": {"dns": "off"}}},
                     content_type="application/merge-patch+json")
    assert h.wait(lambda m: sorted(m.model) == [f"{ns}/yes2"], 10), h.model
    assert h.violations == []
    for q in requests_seen(realkube, mark, _path(ns)):
        assert q["labelSelector"] == ["dns=on"] and q["fieldSelector"] == ["metadata.name!=skip"]


def test_expired_continue_token_falls_back_to_one_full_list(realkube: ControlPlane, realkube_namespace: str,
                                                            make: Make) -> None:
    """History forgotten between two pages of the relist: the server answers the continue token with 410
    (Expired); the informer lists once more without paging and converges."""
    ns = realkube_namespace
    for i in range(7):
        realkube.create(service(f"s{i}", ns))
    link, api = partitioned_client(realkube)
    pool = api.rest_client.pool_manager
    original = pool.request
    armed, first_page, forgotten = threading.Event(), threading.Event(), threading.Event()

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        resp = original(method, url, *args, **kwargs)
        query = dict(kwargs.get("fields") or ())
        if armed.is_set() and "limit" in query and "continue" not in query and query.get("watch") != "true":
            armed.clear()
            first_page.set()  # the test thread forgets the history (servers are restarted from their owner)
            assert forgotten.wait(60)
        return resp

    pool.request = request
    try:
        inf = make(api=api, options=ReflectorOptions(page_size=2, backoff_factory=FAST.backoff_factory))
        h = started(inf)
        link.cut()
        realkube.create(service("late", ns))
        armed.set()
        mark = realkube.audit_mark()
        forget_history(realkube)  # the informer's re-watch gets 410 and relists in pages of 2
        link.heal()
        assert first_page.wait(30)
        forget_history(realkube)  # between the relist's first page and its continuation
        forgotten.set()
        converge(realkube, ns, inf, h)
        seen = [(ev["requestURI"], ev["responseStatus"]["code"]) for ev in realkube.audit(mark)
                if ev["verb"] == "list" and _path(ns) in ev["requestURI"]
                and ev["userAgent"].startswith(CLIENT_AGENT)]
        assert any("continue=" in uri and code == 410 for uri, code in seen), seen
        assert "limit" not in seen[-1][0] and seen[-1][1] == 200, seen  # the full list after the expired token
    finally:
        link.close()
        api.close()
