"""The process-wide informer factory built on first use (controller/informer_factory.py): no Kubernetes client asked
for until a source needs the factory, one factory for every caller (threads included), the resync passed on."""

from __future__ import annotations

import threading

from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.informers import SharedInformerFactory


def test_built_on_first_use_once_with_the_clients_and_resync() -> None:
    asked: list[int] = []
    client = object()

    def kube_client() -> object:
        asked.append(1)
        return client

    lazy = LazyInformerFactory(kube_client, default_resync=30.0)
    assert not lazy.created and asked == []  # nothing built, no client asked for
    factory = lazy()
    assert isinstance(factory, SharedInformerFactory) and lazy.created
    assert factory.api_client is client and factory.default_resync == 30.0
    assert lazy() is factory and asked == [1]


def test_concurrent_first_calls_share_one_factory() -> None:
    asked: list[int] = []

    def kube_client() -> object:
        asked.append(1)
        return object()

    lazy = LazyInformerFactory(kube_client)
    start = threading.Barrier(8)
    got: list[SharedInformerFactory] = []

    def first() -> None:
        start.wait(5)
        got.append(lazy())

    threads = [threading.Thread(target=first) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(got) == 8 and len({id(f) for f in got}) == 1 and asked == [1]
