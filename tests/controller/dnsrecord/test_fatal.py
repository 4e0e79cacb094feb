"""A provider refusing our credentials (the real error class: PowerDNS's PDNSAuthError, a ConfigError) is a
failure no retry can fix: the DNSRecord controller hands it to its `on_fatal` hook once per batch (the
long-running process then ends, cmd/run.FatalStop) instead of requeueing the records, and a batch write it
refuses is not split in halves (every half would be refused too). Without the hook it is retried as before."""

from __future__ import annotations

import random
import threading
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from external_dns.controller.dnsrecord.controller import DNSRecordController
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.status import RecordAPI
from external_dns.controller.dnsrecord.types import RESOURCE
from external_dns.informers import SharedInformerFactory
from external_dns.plan.changes import Changes
from external_dns.providers.pdns.client import PDNSAuthError
from external_dns.workqueue import default_controller_rate_limiter
from tests.controller.dnsrecord.helpers import CountingProvider, a_record, get, ready, record, zonefile
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

REFUSED = "PowerDNS refused the API key (HTTP 401 Unauthorized): check --pdns-api-key"


class CredentialRefusing(CountingProvider):
    """Refuses our credentials on every write, or (`listing`) already when asked for its zones."""

    def __init__(self, inner: Any, *, listing: bool = False) -> None:
        super().__init__(inner)
        self.listing = listing
        self.attempts = 0

    def zones(self) -> Any:
        if self.listing:
            self.attempts += 1
            raise PDNSAuthError(REFUSED)
        return super().zones()

    def apply_changes(self, changes: Changes) -> None:
        self.attempts += 1
        raise PDNSAuthError(REFUSED)


class CountingLimiter:
    """The controller's rate limiter, counting the rate-limited requeues (`when`)."""

    def __init__(self) -> None:
        self.inner = default_controller_rate_limiter()
        self.requeues = 0

    def when(self, item: Hashable) -> float:
        self.requeues += 1
        return self.inner.when(item)

    def forget(self, item: Hashable) -> None:
        self.inner.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return self.inner.num_requeues(item)


def controller(kube_api_client: Any, provider: CredentialRefusing,
               limiter: CountingLimiter) -> tuple[DNSRecordController, Any]:
    factory = SharedInformerFactory(kube_api_client)
    informer = factory.informer_for(RESOURCE, namespace=None)
    rec = Reconciler(provider, RecordAPI(kube_api_client), informer.get_store().get_by_key,
                     Options(min_requeue_time=1.0), rng=random.Random(3))
    return DNSRecordController(rec, informer, workers=1, batch_size=16,
                               rate_limiter_factory=lambda: limiter), factory


@pytest.mark.parametrize("listing", [False, True], ids=["write", "zone-listing"])
def test_a_refused_credential_goes_to_the_hook_once_and_is_not_retried(
        kubeapi: KubeAPIServer, kube_api_client: Any, tmp_path: Path, listing: bool) -> None:
    provider = CredentialRefusing(zonefile(tmp_path), listing=listing)
    for i in range(10):
        kubeapi.create(record(f"r{i}", f"r{i}.example.com", [a_record(f"r{i}.example.com", "192.0.2.1")]))
    limiter = CountingLimiter()
    ctl, factory = controller(kube_api_client, provider, limiter)
    calls: list[tuple[str, BaseException, int, int]] = []
    called = threading.Event()

    def on_fatal(zone: str, exc: BaseException) -> None:  # the process would stop the controller now
        calls.append((zone, exc, provider.attempts, len(ctl.outcomes())))
        called.set()

    ctl.on_fatal = on_fatal
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    ctl.start()
    try:
        assert called.wait(20.0)
    finally:
        assert ctl.close(5.0)
        assert factory.shutdown(5.0)
    zone, exc, attempts, outcomes = calls[0]
    assert isinstance(exc, PDNSAuthError) and zone == ("" if listing else "example.com")
    assert (attempts, outcomes) == (1, 10)  # ten records, one batch, one call: the write not split in halves
    assert limiter.requeues == 0  # none of them requeued with back-off
    for i in range(10):
        cond = ready(get(kubeapi, f"r{i}"))
        assert (cond["status"], cond["reason"]) == ("False", "ProviderError") and REFUSED in cond["message"]


def test_without_a_hook_a_refused_credential_is_retried(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                        tmp_path: Path) -> None:
    provider = CredentialRefusing(zonefile(tmp_path))
    kubeapi.create(record("r0", "r0.example.com", [a_record("r0.example.com", "192.0.2.1")]))
    limiter = CountingLimiter()
    ctl, factory = controller(kube_api_client, provider, limiter)
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    ctl.start()
    try:
        assert ctl.wait_until(lambda: len(ctl.outcomes("default/r0")) >= 3, 20.0)
    finally:
        assert ctl.close(5.0)
        assert factory.shutdown(5.0)
    assert all(o.result.action == "error" for o in ctl.outcomes("default/r0")) and limiter.requeues >= 2
