"""The by-name index's first build (the first full read lists the cache) racing informer events and readers,
for the Service source (sources/informer/service.py) and NameIndex (Ingress, DNSEndpoint): interleavings
forced through the listing step (`ServiceInformerSource._bn_listed`, `NameIndex.listed`), which the build
calls once per object, so the event lands or the reader arrives while the build is known to run.

- an event delivered while the index is built: its names stay dirty after the build (else the change waits
  for the next `--interval` pass: the build's own read listed the old version);
- a by-name read while another thread builds waits for the build (a half-built index misses the names'
  other claimants, so the merge would differ from the full read's);
- a build that fails leaves no half-built index behind: the next read builds it again, whole."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.by_name import NameIndex
from external_dns.sources.informer.ingress import IngressInformerSource
from external_dns.sources.informer.service import ServiceInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, ingress, lb_service, set_lb_status

pytestmark = pytest.mark.integration

SHARED = "shared.example.org"


def targets(eps: list[Endpoint] | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in eps or []:
        out.setdefault(e.dns_name, []).extend(e.targets)
    return {k: sorted(v) for k, v in out.items()}


def cached_ip(src: ServiceInformerSource, name: str) -> str | None:
    obj = src.services.get_store().get_by_key(f"default/{name}")
    ing = ((obj or {}).get("status") or {}).get("loadBalancer", {}).get("ingress") or [{}]
    ip = ing[0].get("ip")
    return ip if isinstance(ip, str) else None


def services(kubeapi: KubeAPIServer, factory: SharedInformerFactory, waiter: Waiter) -> ServiceInformerSource:
    """s0 (a.example.org) and s1, s2 (both claiming shared.example.org), cached."""
    src = ServiceInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(waiter)
    lb_service(kubeapi, "s0", "a.example.org", "10.0.0.1")
    lb_service(kubeapi, "s1", SHARED, "10.0.1.1")
    lb_service(kubeapi, "s2", SHARED, "10.0.2.1")
    src.wait_synced()
    assert waiter.until(lambda: all(cached_ip(src, f"s{n}") for n in range(3)))
    return src


def hook_listing(obj: Any, attr: str, first_key: str, action: Callable[[], None]) -> None:
    """Run `action` inside the build, right after the object `first_key` was listed (once)."""
    listed = getattr(obj, attr)
    done = [False]

    def hooked(item: Any, *rest: Any) -> None:
        listed(item, *rest)
        meta = item.get("metadata") or {}
        if not done[0] and f"{meta.get('namespace')}/{meta.get('name')}" == first_key:
            done[0] = True
            action()

    setattr(obj, attr, hooked)


def pause(arrived: threading.Event, release: threading.Event) -> Callable[[], None]:
    """An action that tells the test the build got there, then holds the build until released."""
    def action() -> None:
        arrived.set()
        assert release.wait(10.0)
    return action


def read_during_paused_build(src: ServiceInformerSource | IngressInformerSource, owner: Any, attr: str,
                             first_key: str) -> list[Endpoint] | None:
    """A full read paused right after it listed `first_key`, and a read of SHARED by name started meanwhile:
    what the read by name returned once the full read was let go."""
    arrived, release = threading.Event(), threading.Event()
    hook_listing(owner, attr, first_key, pause(arrived, release))
    builder = threading.Thread(target=src.endpoints)
    builder.start()
    assert arrived.wait(10.0)  # the build listed first_key, not the other object yet
    got: list[list[Endpoint] | None] = []
    reader = threading.Thread(target=lambda: got.append(src.endpoints_for_names([SHARED])))
    reader.start()
    reader.join(0.5)  # a reader that does not wait returns here
    release.set()
    builder.join(10.0)
    reader.join(10.0)
    assert not builder.is_alive() and not reader.is_alive()
    return got[0]


def test_service_event_during_the_index_build_stays_dirty(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                          waiter: Waiter) -> None:
    src = services(kubeapi, factory, waiter)

    def event() -> None:  # the informer delivers s0's new address while the build lists the others
        set_lb_status(kubeapi, "s0", {"ip": "10.9.9.9"})
        assert waiter.until(lambda: cached_ip(src, "s0") == "10.9.9.9")

    hook_listing(src, "_bn_listed", "default/s0", event)
    full = src.endpoints()  # the first full read builds the index; it listed s0 before the event
    assert targets(full)["a.example.org"] == ["10.0.0.1"]
    dirty = src.take_dirty_names()
    assert dirty is not None and "a.example.org" in dirty  # the event run plans it now, not at the next pass
    assert targets(src.endpoints_for_names(["a.example.org"])) == {"a.example.org": ["10.9.9.9"]}
    assert targets(src.endpoints()) == targets(src.endpoints_for_names(["a.example.org", SHARED]))


def test_service_read_by_name_waits_for_the_build_in_progress(kubeapi: KubeAPIServer,
                                                             factory: SharedInformerFactory, waiter: Waiter) -> None:
    src = services(kubeapi, factory, waiter)
    # a reader that did not wait would return with s1's address alone
    assert targets(read_during_paused_build(src, src, "_bn_listed", "default/s1")) == {SHARED: ["10.0.1.1", "10.0.2.1"]}


def test_service_failed_build_is_built_again_whole(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                   waiter: Waiter) -> None:
    src = services(kubeapi, factory, waiter)

    def fail() -> None:
        raise RuntimeError("listing failed")

    original = src._bn_listed
    hook_listing(src, "_bn_listed", "default/s1", fail)
    with pytest.raises(RuntimeError):
        src.endpoints()
    src._bn_listed = original  # type: ignore[method-assign]
    assert src.take_dirty_names() is None  # builds again; events after the failure went unfollowed: compare all
    assert src.take_dirty_names() == set()
    assert targets(src.endpoints_for_names([SHARED])) == {SHARED: ["10.0.1.1", "10.0.2.1"]}
    assert targets(src.endpoints()) == targets(src.endpoints_for_names(["a.example.org", SHARED]))


# -- NameIndex (Ingress; the DNSEndpoint source uses the same index) --------------------------------------------

def ingresses(kubeapi: KubeAPIServer, factory: SharedInformerFactory, waiter: Waiter) -> IngressInformerSource:
    src = IngressInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(waiter)
    for n, host in enumerate(["a.example.org", SHARED, SHARED]):
        kubeapi.create(ingress(f"i{n}", hosts=[host], annotations={PREFIX + "target": f"10.0.{n}.1"}))
    src.wait_synced()
    store = src.ingresses.get_store()
    assert waiter.until(lambda: all(store.get_by_key(f"default/i{n}") for n in range(3)))
    return src


def ingress_target(src: IngressInformerSource, name: str) -> str | None:
    obj = src.ingresses.get_store().get_by_key(f"default/{name}")
    value = ((obj or {}).get("metadata") or {}).get("annotations", {}).get(PREFIX + "target")
    return value if isinstance(value, str) else None


def test_ingress_event_during_the_index_build_stays_dirty(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                          waiter: Waiter) -> None:
    src = ingresses(kubeapi, factory, waiter)

    def event() -> None:
        obj = kubeapi.get("networking.k8s.io/v1", "Ingress", "default", "i0")
        assert obj is not None
        obj["metadata"]["annotations"][PREFIX + "target"] = "10.9.9.9"
        kubeapi.update(obj)
        assert waiter.until(lambda: ingress_target(src, "i0") == "10.9.9.9")

    hook_listing(src.by_name, "listed", "default/i0", event)
    assert targets(src.endpoints())["a.example.org"] == ["10.0.0.1"]
    dirty = src.take_dirty_names()
    assert dirty is not None and "a.example.org" in dirty
    assert targets(src.endpoints_for_names(["a.example.org"])) == {"a.example.org": ["10.9.9.9"]}


def test_ingress_listing_without_events_leaves_nothing_dirty(kubeapi: KubeAPIServer,
                                                             factory: SharedInformerFactory, waiter: Waiter) -> None:
    src = ingresses(kubeapi, factory, waiter)
    src.endpoints()  # the first full read lists: the caller's baseline, so its names are not changes
    assert src.take_dirty_names() == set()  # the first event run plans its event's names, not every name


def test_ingress_read_by_name_waits_for_the_listing_in_progress(kubeapi: KubeAPIServer,
                                                               factory: SharedInformerFactory,
                                                               waiter: Waiter) -> None:
    src = ingresses(kubeapi, factory, waiter)
    # a reader that did not wait would return with i1's target alone
    assert targets(read_during_paused_build(src, src.by_name, "listed", "default/i1")) == {
        SHARED: ["10.0.1.1", "10.0.2.1"]}


def test_ingress_failed_listing_is_listed_again_whole(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                      waiter: Waiter) -> None:
    src = ingresses(kubeapi, factory, waiter)
    index: NameIndex = src.by_name

    def fail() -> None:
        raise RuntimeError("listing failed")

    original = index.listed
    hook_listing(index, "listed", "default/i1", fail)
    with pytest.raises(RuntimeError):
        src.endpoints()
    index.listed = original  # type: ignore[method-assign]
    assert src.take_dirty_names() is None  # builds again
    assert src.take_dirty_names() is None  # events after the failure went unfollowed: compare all, once
    assert src.take_dirty_names() == set()
    assert targets(src.endpoints_for_names([SHARED])) == {SHARED: ["10.0.1.1", "10.0.2.1"]}


# -- the initial list's adds reach the index's listener after the cache synced ---------------------------------

class HeldListener:
    """A source event handler that holds the listener's thread on its first call until released, so the
    informer's initial adds wait in the listener's buffer while the cache is already synced (as at start-up
    with 100k objects, where the listener takes seconds to be handed them all)."""

    def __init__(self) -> None:
        self.entered, self.released = threading.Event(), threading.Event()
        self.cond = threading.Condition()
        self.calls = 0

    def __call__(self) -> None:
        self.entered.set()
        assert self.released.wait(10.0)
        with self.cond:
            self.calls += 1
            self.cond.notify_all()

    def until_calls(self, n: int) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.calls >= n, 10.0)


def held_service_source(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                        held: HeldListener) -> ServiceInformerSource:
    src = ServiceInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(held)
    for n, host in enumerate(["a.example.org", SHARED, SHARED]):
        lb_service(kubeapi, f"s{n}", host, f"10.0.{n}.1")
    return src


def held_ingress_source(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                        held: HeldListener) -> IngressInformerSource:
    src = IngressInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(held)
    for n, host in enumerate(["a.example.org", SHARED, SHARED]):
        kubeapi.create(ingress(f"i{n}", hosts=[host], annotations={PREFIX + "target": f"10.0.{n}.1"}))
    return src


@pytest.mark.parametrize("make", [held_service_source, held_ingress_source], ids=["service", "ingress"])
def test_initial_adds_still_on_their_way_leave_nothing_dirty(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                             make: Callable[..., Any]) -> None:
    held = HeldListener()
    src = make(kubeapi, factory, held)
    src.wait_synced()  # the cache holds all three objects; the listener holds the first add
    assert held.entered.wait(10.0)
    full: list[list[Endpoint]] = []
    builder = threading.Thread(target=lambda: full.append(src.endpoints()))
    builder.start()
    builder.join(0.5)  # a first read that does not wait for the listener builds here, before the adds arrive
    held.released.set()
    builder.join(10.0)
    assert not builder.is_alive()
    assert held.until_calls(3)  # every initial add went through the index's listener
    assert targets(full[0]) == {"a.example.org": ["10.0.0.1"], SHARED: ["10.0.1.1", "10.0.2.1"]}
    assert src.take_dirty_names() == set()  # the first event run plans its own names, not every name


def test_a_listener_that_never_catches_up_delays_the_first_read_by_the_timeout_only(
        kubeapi: KubeAPIServer, factory: SharedInformerFactory) -> None:
    """A handler stuck past the sync timeout: the first read lists anyway (exact), and the adds that reach the
    index afterwards still mark their names dirty (the event run compares them: nothing is lost)."""
    held = HeldListener()
    src = held_service_source(kubeapi, factory, held)
    src.sync_timeout = 0.5
    src.wait_synced()
    assert held.entered.wait(10.0)
    full: list[list[Endpoint]] = []
    builder = threading.Thread(target=lambda: full.append(src.endpoints()))
    builder.start()
    builder.join(10.0)  # returns after the 0.5 s timeout while the listener is still held
    assert not builder.is_alive()
    assert targets(full[0]) == {"a.example.org": ["10.0.0.1"], SHARED: ["10.0.1.1", "10.0.2.1"]}
    held.released.set()
    assert held.until_calls(3)
    assert src.take_dirty_names() == {SHARED}  # s1, s2 came after the listing began (s0 was held after the index saw it)
