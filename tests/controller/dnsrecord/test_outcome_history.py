"""The controller's outcome history (the last 10,000 reconciles, for `outcomes`/`wait_until`) keeps what a
reconcile ended with, not what it worked on: a failed pass's exception carried its traceback, whose frames
held the whole batch (every record's object, plan and write) for as long as the outcome stayed in the history."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from external_dns.controller.dnsrecord import batch
from external_dns.controller.dnsrecord.controller import DNSRecordController
from external_dns.plan.changes import Changes
from external_dns.providers.pdns.client import PDNSAuthError
from external_dns.providers.provider import ProviderError
from external_dns.workqueue import FakeClock, RateLimitingQueue, default_controller_rate_limiter
from tests.controller.dnsrecord.helpers import START, CountingProvider, a_record, reconciler, record, zonefile
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


class Refusing(CountingProvider):
    def apply_changes(self, changes: Changes) -> None:
        raise ProviderError("refused by the provider")


class NoInformer:
    def add_event_handler(self, handler: Any) -> object:
        return object()


def test_failed_outcomes_do_not_keep_their_batch_alive(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                        tmp_path: Path) -> None:
    rec = reconciler(kubeapi, kube_api_client, Refusing(zonefile(tmp_path)), FakeClock(start=START))
    ctl = DNSRecordController(rec, NoInformer(), workers=1)  # type: ignore[arg-type]
    keys = []
    for i in range(4):
        kubeapi.create(record(f"r{i}", f"r{i}.example.com", [a_record(f"r{i}.example.com", "192.0.2.1")]))
        keys.append(f"default/r{i}")
    queue: RateLimitingQueue[str] = RateLimitingQueue(default_controller_rate_limiter(), name="test-history")
    try:
        ctl.loop.work(keys, queue)
    finally:
        queue.shut_down()
    outcomes = ctl.outcomes()
    assert [o.result.action for o in outcomes] == ["error"] * 4
    assert all(o.result.error == "refused by the provider" for o in outcomes)
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, batch.Job)]


class CredentialRefusing(CountingProvider):
    def apply_changes(self, changes: Changes) -> None:
        raise PDNSAuthError("PowerDNS refused the API key (HTTP 401 Unauthorized): check --pdns-api-key")


def test_a_failing_fatal_hook_does_not_end_the_worker(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                      tmp_path: Path) -> None:
    """The hook's failure is logged; the worker goes on (an exception out of `WorkerLoop.work` ended its thread)."""
    rec = reconciler(kubeapi, kube_api_client, CredentialRefusing(zonefile(tmp_path)), FakeClock(start=START))
    ctl = DNSRecordController(rec, NoInformer(), workers=1)  # type: ignore[arg-type]
    calls: list[str] = []

    def hook(zone: str, exc: BaseException) -> None:
        calls.append(zone)
        raise RuntimeError("hook broken")

    ctl.on_fatal = hook
    kubeapi.create(record("r0", "r0.example.com", [a_record("r0.example.com", "192.0.2.1")]))
    queue: RateLimitingQueue[str] = RateLimitingQueue(default_controller_rate_limiter(), name="test-hook")
    try:
        ctl.loop.work(["default/r0"], queue)
    finally:
        queue.shut_down()
    assert calls == ["example.com"] and [o.result.action for o in ctl.outcomes()] == ["error"]
