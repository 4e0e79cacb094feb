"""`--source=ingress` and `--source=crd` read by name (`endpoints_for_names`, `take_dirty_names`) against the
test API server: after random creates, updates (host names moved, targets changed, several objects sharing a
name, an object leaving and re-entering the source's filter) and deletes, the by-name read of every name
equals `endpoints()` filtered to it, and every changed name is reported dirty. A DNSEndpoint read by name is
noted for its status write as a full read notes it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from external_dns.controller.controller import notify_synced
from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.base import InformerSource
from external_dns.sources.informer.crd import DNSEndpointInformerSource
from external_dns.sources.informer.ingress import IngressInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, dnsendpoint, ingress

pytestmark = pytest.mark.integration

ING = ("networking.k8s.io/v1", "Ingress")
DNS = ("externaldns.k8s.io/v1alpha1", "DNSEndpoint")
HOSTS = ["a.example.org", "b.example.org", "c.example.org", "shared.example.org"]
EVERY = [*HOSTS, "nothing.example.org"]
OTHER_CONTROLLER = {PREFIX + "controller": "someone-else"}  # another controller's object: not admitted


def canon(eps: list[Endpoint]) -> list[tuple[Any, ...]]:
    return sorted((e.dns_name, e.record_type, tuple(sorted(e.targets)), e.record_ttl,
                   tuple(sorted(e.labels.items()))) for e in eps)


def by_name(eps: list[Endpoint]) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[Endpoint]] = {}
    for e in eps:
        out.setdefault(e.dns_name.lower().rstrip("."), []).append(e)
    return {k: canon(v) for k, v in out.items()}


def _ingress(name: str, hosts: list[str], target: str, ours: bool) -> dict[str, Any]:
    notes = {PREFIX + "target": target, **({} if ours else OTHER_CONTROLLER)}
    return ingress(name, hosts=hosts, annotations=notes)


def _dnsendpoint(name: str, hosts: list[str], target: str, ours: bool) -> dict[str, Any]:
    obj = dnsendpoint(name, *({"dnsName": h, "recordType": "A", "targets": [target]} for h in hosts))
    if not ours:
        obj["metadata"]["annotations"] = dict(OTHER_CONTROLLER)
    return obj


Build = Callable[[str, list[str], str, bool], dict[str, Any]]
KINDS: dict[str, tuple[tuple[str, str], Build, Callable[[SharedInformerFactory], InformerSource]]] = {
    "ingress": (ING, _ingress, lambda f: IngressInformerSource(f, SourceOptions(), sync_timeout=10.0)),
    # no status writes: their events would count as the test's own (status after the sync: tested below)
    "crd": (DNS, _dnsendpoint, lambda f: DNSEndpointInformerSource(f, SourceOptions(), update_status=False,
                                                                   sync_timeout=10.0)),
}


def cache_current(kubeapi: KubeAPIServer, src: InformerSource, kind: tuple[str, str]) -> bool:
    store = next(iter(src.informers.values())).get_store()
    for n in range(5):
        obj = kubeapi.get(*kind, "default", f"o{n}")
        cached = store.get_by_key(f"default/o{n}")
        if (obj is None) != (cached is None):
            return False
        if obj is not None and cached is not None and \
                obj["metadata"]["resourceVersion"] != cached["metadata"].get("resourceVersion"):
            return False
    return True


def caught_up(waiter: Waiter, events: int, then: Callable[[], bool]) -> Callable[[], bool]:
    """The handlers saw `events` calls (the index applies an event before it calls them), then `then()`."""
    return lambda: waiter.count >= events and then()


@pytest.mark.parametrize("kind_name", sorted(KINDS))
def test_by_name_reads_equal_the_full_read(kind_name: str, kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                           waiter: Waiter) -> None:
    kind, build, make = KINDS[kind_name]
    src = make(factory)
    src.add_event_handler(waiter)
    kubeapi.create(build("o0", ["a.example.org"], "10.0.0.1", True))
    src.wait_synced()
    assert waiter.until(lambda: waiter.count >= 1)
    assert src.take_dirty_names() is None  # builds the index: no baseline before
    before = by_name(src.endpoints())
    rng = random.Random(11)
    live: set[str] = {"o0"}
    admitted: dict[str, bool] = {"o0": True}
    events = 1  # the source's handler calls expected: one per change of an object admitted before or after it
    for step in range(40):
        name = f"o{rng.randrange(5)}"
        hosts = rng.sample(HOSTS, rng.randrange(1, 3))
        target = f"10.0.{step}.{rng.randrange(1, 9)}"
        ours = rng.random() > 0.15
        if name in live and rng.random() < 0.3:
            kubeapi.delete(*kind, "default", name)
            live.discard(name)
            events += admitted.pop(name)
        elif name in live:
            obj = kubeapi.get(*kind, "default", name)
            assert obj is not None
            fresh = build(name, hosts, target, ours)
            obj["metadata"]["annotations"] = fresh["metadata"].get("annotations") or {}
            obj["spec"] = fresh["spec"]
            kubeapi.update(obj)
            events += admitted[name] or ours
            admitted[name] = ours
        else:
            kubeapi.create(build(name, hosts, target, ours))
            live.add(name)
            events += ours
            admitted[name] = ours
        # the index marks an event's names dirty before it calls the handlers, after the cache has the object:
        # wait for the handlers too, else the names read as dirty below may still miss the last event's
        assert waiter.until(caught_up(waiter, events, lambda: cache_current(kubeapi, src, kind)
                                      and canon(src.endpoints_for_names(EVERY) or []) == canon(src.endpoints())))
        after = by_name(src.endpoints())
        dirty = src.take_dirty_names()
        assert dirty is not None
        changed = {n for n in set(before) | set(after) if before.get(n) != after.get(n)}
        assert changed <= dirty, (step, changed - dirty)
        for one in after:
            assert canon(src.endpoints_for_names([one.upper() + "."]) or []) == after[one]
        before = after


def test_a_dnsendpoint_read_by_name_gets_its_status_after_the_sync(kubeapi: KubeAPIServer,
                                                                   factory: SharedInformerFactory,
                                                                   waiter: Waiter) -> None:
    src = DNSEndpointInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.defer_status_until_synced()
    src.add_event_handler(waiter)
    kubeapi.create(_dnsendpoint("o0", ["a.example.org"], "10.0.0.1", True))
    src.endpoints()
    notify_synced([src.synced], None)
    assert waiter.until(lambda: (kubeapi.get(*DNS, "default", "o0") or {}).get("status", {})
                        .get("observedGeneration") == 1)
    obj = kubeapi.get(*DNS, "default", "o0")
    assert obj is not None
    obj["spec"] = _dnsendpoint("o0", ["b.example.org"], "10.0.0.2", True)["spec"]
    kubeapi.update(obj)
    assert waiter.until(lambda: src.take_dirty_names() == {"a.example.org", "b.example.org"})
    eps = src.endpoints_for_names({"a.example.org", "b.example.org"})
    assert eps is not None and [(e.dns_name, list(e.targets)) for e in eps] == [("b.example.org", ["10.0.0.2"])]
    notify_synced([src.synced], "example.net", ["example.org", "example.net"])  # another zone: not yet
    assert (kubeapi.get(*DNS, "default", "o0") or {}).get("status", {}).get("observedGeneration") == 1
    notify_synced([src.synced], "example.org", ["example.org", "example.net"])
    assert (kubeapi.get(*DNS, "default", "o0") or {}).get("status", {}).get("observedGeneration") == 2


class Notes:
    """A Recorder keeping (object name, reason) of every Event."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def event(self, obj: Any, type: str, reason: str, note: str) -> bool:
        del type, note
        self.sent.append((obj["metadata"]["name"], reason))
        return True


def test_a_by_name_read_reports_the_problems_of_its_objects_once(kubeapi: KubeAPIServer,
                                                                 factory: SharedInformerFactory,
                                                                 waiter: Waiter) -> None:
    src = IngressInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    notes = Notes()
    src.recorder = notes
    src.add_event_handler(waiter)
    src.wait_synced()
    kubeapi.create(_ingress("bad", ["a.example.org"], "10.0.0.1", True))
    obj = kubeapi.get(*ING, "default", "bad")
    assert obj is not None
    obj["metadata"]["annotations"][PREFIX + "ttl"] = "abc"
    kubeapi.update(obj)
    kubeapi.create(_ingress("good", ["b.example.org"], "10.0.0.2", True))
    assert waiter.until(lambda: len(src.informers["ingresses"].get_store().list()) == 2 and
                        bool(src.endpoints()) and notes.sent == [("bad", "RecordError")]), notes.sent
    assert src.take_dirty_names() is not None
    other = kubeapi.get(*ING, "default", "good")
    assert other is not None
    other["metadata"]["annotations"][PREFIX + "ttl"] = "xyz"
    kubeapi.update(other)
    store, dirty = src.informers["ingresses"].get_store(), set[str]()

    def updated() -> bool:  # b dirty (maybe still from good's add event) and the update in the cache
        dirty.update(src.take_dirty_names() or set())
        cached = store.get_by_key("default/good") or {}
        return "b.example.org" in dirty and cached["metadata"]["annotations"].get(PREFIX + "ttl") == "xyz"

    assert waiter.until(updated)
    src.endpoints_for_names({"b.example.org"})  # an event run: the changed object's problem, once
    src.endpoints_for_names({"b.example.org"})
    assert notes.sent == [("bad", "RecordError"), ("good", "RecordError")]
    src.endpoints()  # the next full read reports nothing again
    assert notes.sent == [("bad", "RecordError"), ("good", "RecordError")]
