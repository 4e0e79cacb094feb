"""The DNSRecord controller with real threads: the shared informer feeds its own workqueue keyed
`namespace/name`, workers reconcile, requeue for validation and remove the finalizer after deletion."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from external_dns.cmd.build_sources import build_dnsrecord
from external_dns.cmd.config import Config, parse_config
from external_dns.cmd.wiring import process_features
from external_dns.controller.dnsrecord.controller import DNSRecordController, build_dnsrecord_controller
from external_dns.controller.dnsrecord.reconcile import Options
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.controller.pipeline import Pipeline
from external_dns.informers import SharedInformerFactory
from external_dns.providers.provider import CachedProvider
from external_dns.providers.zonefile import ZoneFileProvider
from tests.controller.dnsrecord.helpers import a_record, find, get, overwrite, ready, record, zonefile
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

TIMEOUT = 15.0


def cfg(*flags: str, source: str = "dnsrecord") -> Config:
    return parse_config([f"--source={source}", "--min-requeue-time=1s", *flags], {})


def options() -> Options:
    return Options(min_requeue_time=1.0, requeue_time=900.0, valid_for=840.0, write_counter_limit=20)


@pytest.fixture
def factory(kube_api_client: Any) -> Iterator[SharedInformerFactory]:
    f = SharedInformerFactory(kube_api_client)
    yield f
    assert f.shutdown(5.0)


@pytest.fixture
def provider(tmp_path: Path) -> ZoneFileProvider:
    return zonefile(tmp_path, "example.com")


@pytest.fixture
def controller(factory: SharedInformerFactory, provider: ZoneFileProvider,
               kube_api_client: Any) -> Iterator[DNSRecordController]:
    ctl = build_dnsrecord_controller(options(), factory, provider, kube_api_client, rng=random.Random(3))
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    ctl.start()
    yield ctl
    assert ctl.close(5.0)


def reason(kubeapi: KubeAPIServer, name: str, namespace: str = "default") -> str:
    obj = get(kubeapi, name, namespace)
    if obj is None or not (obj.get("status") or {}).get("conditions"):
        return ""
    return str(ready(obj)["reason"])


def test_record_becomes_ready_is_revalidated_and_deleted(kubeapi: KubeAPIServer, controller: DNSRecordController,
                                                         provider: ZoneFileProvider) -> None:
    kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "1.2.3.4")]))
    assert controller.wait_until(lambda: reason(kubeapi, "app") == "ProviderSuccess", TIMEOUT)
    actions = [o.result.action for o in controller.outcomes("default/app")]
    assert actions[0] == "applied" and "ready" in actions
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["1.2.3.4"]

    # a spec change is a new generation: applied at once, validated, ready again
    obj = get(kubeapi, "app")
    assert obj is not None
    obj["spec"]["endpoints"] = [a_record("app.example.com", "4.3.2.1")]
    kubeapi.update(obj)

    def republished() -> bool:
        ep = find(provider, "app.example.com")
        o = get(kubeapi, "app")
        return (ep is not None and list(ep.targets) == ["4.3.2.1"] and o is not None
                and o["status"].get("observedGeneration") == o["metadata"]["generation"]
                and ready(o)["reason"] == "ProviderSuccess")

    assert controller.wait_until(republished, TIMEOUT)

    kubeapi.delete(API_VERSION, KIND, "default", "app")
    assert controller.wait_until(lambda: get(kubeapi, "app") is None, TIMEOUT)
    assert find(provider, "app.example.com") is None
    assert REGISTRY.get_sample_value("dns_provider_write_counter",
                                     {"dns_record_name": "app", "dns_record_namespace": "default"}) is None
    acts = [o.result.action for o in controller.outcomes("default/app")]
    assert "deleting" in acts and "finalizer-removed" in acts
    assert acts.index("finalizer-removed") > acts.index("deleting")


def test_bad_record_does_not_block_others(kubeapi: KubeAPIServer, controller: DNSRecordController,
                                          provider: ZoneFileProvider) -> None:
    kubeapi.create(record("bad", "bad.example.com", [a_record("elsewhere.example.com", "1.2.3.4")]))
    kubeapi.create(record("good", "good.example.com", [a_record("good.example.com", "1.2.3.5")]))
    assert controller.wait_until(lambda: reason(kubeapi, "good") == "ProviderSuccess"
                                 and reason(kubeapi, "bad") == "ValidationError", TIMEOUT)
    assert find(provider, "elsewhere.example.com") is None


def test_workers_restart_and_pick_up_cached_records(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                    provider: ZoneFileProvider, kube_api_client: Any) -> None:
    kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "1.2.3.4")]))
    ctl = build_dnsrecord_controller(options(), factory, provider, kube_api_client, workers=1)
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    try:
        assert ctl.outcomes() == []  # not started: events are not queued
        ctl.start()
        assert ctl.wait_until(lambda: reason(kubeapi, "app") == "ProviderSuccess", TIMEOUT)
        assert ctl.stop(5.0)
        overwrite(provider, "app.example.com", "9.9.9.9")
        obj = get(kubeapi, "app")
        assert obj is not None
        obj["spec"]["endpoints"] = [a_record("app.example.com", "1.2.3.6")]
        kubeapi.update(obj)
        ctl.start()  # e.g. leadership won again: every cached record is queued
        assert ctl.wait_until(lambda: (ep := find(provider, "app.example.com")) is not None
                              and list(ep.targets) == ["1.2.3.6"], TIMEOUT)
    finally:
        assert ctl.close(5.0)


class _Process:
    def __init__(self, factory: SharedInformerFactory, provider: Any, api_client: Any) -> None:
        self.kube_client = lambda: api_client
        self.informer_factory = lambda: factory
        self.provider = provider
        self.pipeline = Pipeline()  # the process's Controller in the real process
        self.tasks: list[tuple[Any, Any, str]] = []
        self.on_fatal = lambda zone, exc: None  # cmd/run.FatalStop in the real process

    def add_leader_task(self, start: Any, stop: Any, name: str = "") -> None:
        self.tasks.append((start, stop, name))


def test_process_feature_runs_the_controller_only_with_source_dnsrecord(
        factory: SharedInformerFactory, provider: ZoneFileProvider, kube_api_client: Any) -> None:
    assert process_features(cfg(source="service")) == []
    assert process_features(cfg("--dry-run")) == []  # every pass of this controller writes
    [feature] = process_features(cfg())
    process = _Process(factory, CachedProvider(provider, 60.0), kube_api_client)
    feature(process)  # type: ignore[arg-type]
    assert len(process.tasks) == 1 and process.tasks[0][2] == "dnsrecord-controller"
    ctl = process.tasks[0][0].__self__  # the task is the controller's bound start()
    assert isinstance(ctl, DNSRecordController)
    assert ctl.reconciler.provider is provider  # the cache is bypassed: validation must see the provider
    assert ctl.on_fatal is process.on_fatal  # a refused credential ends the process as the zone controller's
    assert ctl.reconciler.pipeline is process.pipeline  # its writes go through the process's checks and events
    ctl.close(1.0)
    assert build_dnsrecord(cfg()).endpoints() == []


class _Down(ZoneFileProvider):
    def records(self) -> list[Any]:
        raise ConnectionError("down")

    def zone_records(self, zone: str) -> list[Any]:
        raise ConnectionError("down")

    def zone_snapshot(self, zone: str) -> Any:
        raise ConnectionError("down")


def test_errors_are_requeued_with_the_rate_limiter(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                   tmp_path: Path, kube_api_client: Any) -> None:
    (tmp_path / "down").mkdir()
    ctl = build_dnsrecord_controller(options(), factory, _Down(str(tmp_path / "down"), create_zones=["example.com"]),
                                     kube_api_client, workers=1)
    factory.start()
    assert factory.wait_for_cache_sync(5.0)
    kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "1.2.3.4")]))
    ctl.start()
    try:
        assert ctl.wait_until(lambda: sum(o.result.action == "error" for o in ctl.outcomes("default/app")) >= 4,
                              TIMEOUT)
        assert reason(kubeapi, "app") == "ProviderError"
    finally:
        assert ctl.close(5.0)
