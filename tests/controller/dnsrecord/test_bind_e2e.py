"""End to end against BIND9: the DNSRecord controller (informer, workqueue, workers) publishes through RFC2136,
rewrites a record an outside tool overwrote (writeCounter 1), and removes everything before the finalizer."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from external_dns.controller.dnsrecord.controller import DNSRecordController, build_dnsrecord_controller
from external_dns.controller.dnsrecord.reconcile import Options
from external_dns.controller.dnsrecord.registry import txt_prefix
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.informers import SharedInformerFactory
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import (
    START,
    CountingProvider,
    a_record,
    find,
    get,
    overwrite,
    ready,
    reconciler,
    record,
)
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration

TIMEOUT = 20.0


@pytest.fixture
def bind_provider(bind_server: BindServer) -> RFC2136Provider:
    bind_server.reset()
    return RFC2136Provider(RFC2136Config(hosts=(bind_server.host,), port=bind_server.port, zones=bind_server.zones,
                                         tsig_keyname=bind_server.key_name, tsig_secret=bind_server.key_secret,
                                         tsig_secret_alg=bind_server.key_algorithm, axfr=True, timeout=5.0))


@pytest.fixture
def controller(kube_api_client: Any, bind_provider: RFC2136Provider,
               bind_server: BindServer) -> Iterator[DNSRecordController]:
    factory = SharedInformerFactory(kube_api_client)
    options = Options(min_requeue_time=1.0, requeue_time=1.5, valid_for=1.0, write_counter_limit=20)
    ctl = build_dnsrecord_controller(options, factory, bind_provider, kube_api_client, workers=2, rng=random.Random(7))
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    ctl.start()
    try:
        yield ctl
    finally:
        assert ctl.close(5.0)
        assert factory.shutdown(5.0)
        bind_server.reset()


def test_lifecycle_against_bind(kubeapi: KubeAPIServer, controller: DNSRecordController,
                                bind_provider: RFC2136Provider) -> None:
    created = kubeapi.create(record("web", "web.example.org", [a_record("web.example.org", "192.0.2.10"),
                                                               a_record("api.web.example.org", "192.0.2.11")],
                                    owner="bind-owner"))
    del created

    def is_ready() -> bool:
        obj = get(kubeapi, "web")
        return obj is not None and bool(obj.get("status", {}).get("conditions")) and \
            ready(obj)["reason"] == "ProviderSuccess"

    assert controller.wait_until(is_ready, TIMEOUT)
    obj = get(kubeapi, "web")
    assert obj is not None and obj["status"]["zoneDomainName"] == "example.org"
    a = find(bind_provider, "web.example.org")
    assert a is not None and list(a.targets) == ["192.0.2.10"]
    assert find(bind_provider, f"{txt_prefix('bind-owner')}a-web.example.org", "TXT") is not None

    overwrite(bind_provider, "web.example.org", "198.51.100.1")
    counters: set[int] = set()

    def rewritten() -> bool:
        o = get(kubeapi, "web")
        if o is not None:
            counters.add(int(o.get("status", {}).get("writeCounter", 0)))
        ep = find(bind_provider, "web.example.org")
        return ep is not None and list(ep.targets) == ["192.0.2.10"] and 1 in counters

    assert controller.wait_until(rewritten, TIMEOUT), counters
    assert controller.wait_until(is_ready, TIMEOUT)

    kubeapi.delete(API_VERSION, KIND, "default", "web")
    assert controller.wait_until(lambda: get(kubeapi, "web") is None, TIMEOUT)
    left = [ep.dns_name for ep in bind_provider.records() if "web.example.org" in ep.dns_name]
    assert left == []


def test_a_batch_against_bind(kubeapi: KubeAPIServer, kube_api_client: Any, bind_provider: RFC2136Provider,
                              bind_server: BindServer) -> None:
    """Twelve records in one batch: one provider write (RFC2136 UPDATE messages per name group), every name
    served by BIND, each record AwaitingValidation then Ready; deleted in one write again."""
    counting = CountingProvider(bind_provider)
    clock = FakeClock(start=START)
    rec = reconciler(kubeapi, kube_api_client, counting, clock)
    names = [f"b{i}" for i in range(12)]
    for i, n in enumerate(names):
        kubeapi.create(record(n, f"{n}.example.org", [a_record(f"{n}.example.org", f"192.0.2.{i + 1}")],
                              owner="bind-batch"))
    keys = [f"default/{n}" for n in names]
    assert {r.action for r in rec.reconcile_many(keys).values()} == {"applied"}
    assert counting.writes == 1
    for i, n in enumerate(names):
        assert bind_server.rrset(f"{n}.example.org", "A") == (300, [f"192.0.2.{i + 1}"])
    clock.step(10)
    assert {r.action for r in rec.reconcile_many(keys).values()} == {"ready"}
    for n in names:
        kubeapi.delete(API_VERSION, KIND, "default", n)
    assert {r.action for r in rec.reconcile_many(keys).values()} == {"deleting"}
    assert counting.writes == 2
    assert all(bind_server.rrset(f"{n}.example.org", "A") is None for n in names)
    bind_server.reset()
