"""The project's informers (reflector: paged LIST, WATCH with bookmarks, resume, 410 -> relist) against the
real kube-apiserver; what the informer sent is read back from the server's audit log."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import kubernetes.client
import pytest

from external_dns.informers import SERVICES, Backoff, ReflectorOptions, SharedIndexInformer
from tests.informers.helpers import ModelHandler, cache_state, wait_until
from tests.realkube.control_plane import ControlPlane
from tests.realkube.helpers import requests_seen, server_state, service

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
