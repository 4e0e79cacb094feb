"""ControllerProcess against the test Kubernetes API server: a Service change reaches the zone through the
informer -> event -> workqueue path, health endpoints, cache-sync failure, SIGTERM-style stop during a
reconcile, and two leader-electing processes that never write at the same time (fail-over measured)."""

from __future__ import annotations

import itertools
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kubernetes.client
import pytest

from external_dns.cmd.config import parse_config
from external_dns.cmd.wiring import process_options
from external_dns.controller.controller import Controller
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.controller.process import ControllerProcess, ProcessOptions
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import Provider
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.registry import TXTRegistry
from external_dns.sources.source import Source
from tests.helpers.service_source import ServiceInformerSource
from tests.helpers.sources import StaticSource
from tests.helpers.threads import thread_leak_check
from tests.kubeapi.server import KubeAPIServer

OWNER = "process-test"


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check(ignore_prefix="kubeapi-")


def config(*flags: str) -> ProcessOptions:
    return process_options(parse_config([
        "--metrics-address=127.0.0.1:0", "--interval=1h", "--workers=2", "--min-event-sync-interval=0s", "--events",
        "--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=1.5s", "--leader-elect-retry-period=250ms",
        "--leader-elect-name=process-test", "--kube-api-request-timeout=5s", *flags], {}))


def service(name: str, hostname: str, ip: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"external-dns.kubernetes.io/hostname": hostname}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]},
            "status": {"loadBalancer": {"ingress": [{"ip": ip}]}}}


def create_service(kubeapi: KubeAPIServer, name: str, hostname: str, ip: str) -> None:
    kubeapi.create(service(name, hostname, ip))  # status is a subresource: create ignores it
    set_lb_ip(kubeapi, name, ip)


def set_lb_ip(kubeapi: KubeAPIServer, name: str, ip: str) -> None:
    kubeapi.patch("v1", "Service", "default", name, {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}},
                  subresource="status")


class Running:
    """A ControllerProcess running on a thread; `stop()` is what SIGTERM does in the CLI."""

    def __init__(self, process: ControllerProcess) -> None:
        self.process = process
        self.code: list[int] = []
        self.thread = threading.Thread(target=lambda: self.code.append(process.run()), name="process-under-test")
        self.thread.start()

    def stop(self, timeout: float = 15.0) -> int:
        self.process.stop_event.set()
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "process did not stop"
        return self.code[0]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.02) -> bool:
    """For conditions outside the controller (the HTTP server's state): bounded re-checks."""
    deadline = time.monotonic() + timeout
    gate = threading.Event()
    while time.monotonic() < deadline:
        if predicate():
            return True
        gate.wait(step)
    return predicate()


@pytest.mark.integration
def test_service_change_reaches_the_zone_through_events(kubeapi: KubeAPIServer, kube_config: Any,
                                                        tmp_path: Path) -> None:
    api = kubernetes.client.ApiClient(kube_config)
    factory = LazyInformerFactory(lambda: api)
    source = ServiceInformerSource(factory())
    provider = ZoneFileProvider(str(tmp_path), create_zones=["example.org"])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync", domain_filter=DomainFilter())
    process = ControllerProcess(config(), ctl, stop=threading.Event(), kube_client=lambda: api,
                                informer_factory=factory, emit_events=False)
    create_service(kubeapi, "web", "web.example.org", "192.0.2.1")
    running = Running(process)
    zone_file = tmp_path / "example.org.zone"
    zc = process.zone_controller
    try:
        assert zc.wait_until(lambda: zone_file.exists() and "192.0.2.1" in zone_file.read_text(), 15)
        assert process.synced.is_set()
        set_lb_ip(kubeapi, "web", "192.0.2.99")  # only an informer event can trigger this sync (interval 1h)
        assert zc.wait_until(lambda: "192.0.2.99" in zone_file.read_text(), 15)
        kubeapi.delete("v1", "Service", "default", "web")
        assert zc.wait_until(lambda: "192.0.2.99" not in zone_file.read_text(), 15)
        assert zc.passes >= 3
        url = process.server.url if process.server is not None else ""
        assert get(url + "/readyz") == (200, "OK")
        assert get(url + "/healthz") == (200, "OK")
        status, text = get(url + "/metrics")
        assert status == 200
        assert 'workqueue_adds_total{name="zones"}' in text
        assert "external_dns_controller_last_sync_timestamp_seconds" in text
        assert "external_dns_controller_consecutive_soft_errors" in text
    finally:
        assert running.stop() == 0
        api.close()


@pytest.mark.integration
def test_burst_of_service_changes_gives_few_reconciles(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    api = kubernetes.client.ApiClient(kube_config)
    factory = LazyInformerFactory(lambda: api)
    source = ServiceInformerSource(factory())
    provider = InMemoryProvider(["example.org"])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--min-event-sync-interval=1s"), ctl, stop=threading.Event(),
                                kube_client=lambda: api, informer_factory=factory, emit_events=False)
    create_service(kubeapi, "web", "web.example.org", "10.0.0.1")
    running = Running(process)
    zc = process.zone_controller

    def current() -> list[str]:
        return [t for e in provider.records() if e.dns_name == "web.example.org" and e.record_type == "A"
                for t in e.targets]

    try:
        assert zc.wait_until(lambda: current() == ["10.0.0.1"], 15)
        before = len(zc.outcomes())
        for i in range(100):
            set_lb_ip(kubeapi, "web", f"10.0.1.{i + 1}")
        assert zc.wait_until(lambda: current() == ["10.0.1.100"], 15)
        assert not zc.wait_until(lambda: len(zc.outcomes()) > before + 3, 1.5)
        reconciles = len(zc.outcomes()) - before
    finally:
        assert running.stop() == 0
        api.close()
    assert 1 <= reconciles <= 3, reconciles


class BlockingProvider(InMemoryProvider):
    def __init__(self, zones: list[str]) -> None:
        super().__init__(zones)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()

    def apply_changes(self, changes: Changes) -> None:
        self.entered.set()
        self.release.wait(10)
        super().apply_changes(changes)
        self.finished.set()


def test_stop_during_a_reconcile_finishes_it_and_exits_zero() -> None:
    provider = BlockingProvider(["example.org"])
    source = StaticSource([Endpoint("www.example.org", "A", Targets(["1.1.1.1"]))])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--no-events"), ctl, stop=threading.Event())
    running = Running(process)
    assert provider.entered.wait(10)
    process.stop_event.set()
    threading.Timer(0.2, provider.release.set).start()
    started = time.monotonic()
    assert running.stop() == 0
    assert time.monotonic() - started < 10
    assert provider.finished.is_set()  # the in-flight write was not cut
    assert [e.dns_name for e in provider.records() if e.record_type == "A"] == ["www.example.org"]


def test_shutdown_is_bounded_when_a_reconcile_hangs() -> None:
    provider = BlockingProvider(["example.org"])
    source = StaticSource([Endpoint("www.example.org", "A", Targets(["1.1.1.1"]))])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--no-events"), ctl, stop=threading.Event(), shutdown_timeout=1.0)
    running = Running(process)
    assert provider.entered.wait(10)
    started = time.monotonic()
    try:
        assert running.stop() == 0
        assert time.monotonic() - started < 3
    finally:
        provider.release.set()


def test_bad_metrics_address_is_a_config_error() -> None:
    from external_dns.cmd.flags import ConfigError

    ctl = Controller(StaticSource([]), TXTRegistry(InMemoryProvider(["example.org"]), owner_id=OWNER), "sync")
    process = ControllerProcess(config("--metrics-address=nonsense"), ctl, stop=threading.Event())
    with pytest.raises(ConfigError, match="--metrics-address"):
        process.run()
    assert process.shutdown()


@pytest.mark.integration
def test_informer_caches_not_synced_in_time_exit_1(kubeapi: KubeAPIServer) -> None:
    cfg = kubernetes.client.Configuration()
    cfg.host = "http://127.0.0.1:9"  # nothing listens: LIST keeps failing
    api = kubernetes.client.ApiClient(cfg)
    factory = LazyInformerFactory(lambda: api)
    source = ServiceInformerSource(factory())
    ctl = Controller(source, TXTRegistry(InMemoryProvider(["example.org"]), owner_id=OWNER), "sync")
    process = ControllerProcess(config(), ctl, stop=threading.Event(), kube_client=lambda: api,
                                informer_factory=factory, cache_sync_timeout=1.0)
    try:
        started = time.monotonic()
        assert process.run() == 1
        assert time.monotonic() - started < 10
        assert not process.zone_controller.outcomes()  # never synced from an empty cache
    finally:
        api.close()


# -- leader election ----------------------------------------------------------------------------------------
def constant(value: Any) -> Callable[[], Any]:
    return lambda: value


class SharedZone(Provider):
    """A view of one shared in-memory provider that logs the time span of every write by its process."""

    def __init__(self, inner: InMemoryProvider, name: str, log: list[tuple[str, float, float]],
                 lock: threading.Lock) -> None:
        self.inner = inner
        self.name = name
        self.log = log
        self.lock = lock

    def records(self) -> list[Endpoint]:
        return self.inner.records()

    def zones(self) -> list[str]:
        return list(self.inner.zones())

    def get_domain_filter(self) -> Any:
        return self.inner.get_domain_filter()

    def apply_changes(self, changes: Changes) -> None:
        started = time.monotonic()
        threading.Event().wait(0.02)  # a write that takes a little time, so overlaps would show
        self.inner.apply_changes(changes)
        with self.lock:
            self.log.append((self.name, started, time.monotonic()))


class TickingSource(Source):
    """Desired state that changes on every call, so every reconcile writes."""

    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()

    def endpoints(self) -> list[Endpoint]:
        with self.lock:
            self.n += 1
            return [Endpoint("www.example.org", "A", Targets([f"10.0.{self.n // 250 % 250}.{self.n % 250 + 1}"]))]


@pytest.mark.integration
def test_two_leader_electing_processes_never_write_at_once(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    inner = InMemoryProvider(["example.org"])
    writes: list[tuple[str, float, float]] = []
    lock = threading.Lock()
    source = TickingSource()
    apis: list[kubernetes.client.ApiClient] = []
    processes: dict[str, ControllerProcess] = {}
    for name in ("a", "b"):
        api = kubernetes.client.ApiClient(kube_config)
        apis.append(api)
        ctl = Controller(source, TXTRegistry(SharedZone(inner, name, writes, lock), owner_id=OWNER), "sync")
        processes[name] = ControllerProcess(config("--leader-elect", "--interval=50ms", "--no-events"), ctl,
                                            stop=threading.Event(), kube_client=constant(api),
                                            identity=name, emit_events=False)
    running = {"a": Running(processes["a"])}
    try:
        assert wait_for(lambda: processes["a"].leading() and len(writes) >= 3, 15)
        running["b"] = Running(processes["b"])
        assert wait_for(lambda: processes["b"].elector is not None and processes["b"].elector.get_leader() == "a",
                        10)
        assert not processes["b"].leading()
        assert wait_for(lambda: get(processes["b"].server.url + "/readyz")[0] == 200  # type: ignore[union-attr]
                        , 10)  # a standby is ready
        # partition the leader from the API server: its renewals fail from now on
        elector_a = processes["a"].elector
        assert elector_a is not None
        elector_a._try_acquire_or_renew = lambda timeout: False  # type: ignore[method-assign]
        partitioned = time.monotonic()
        assert wait_for(lambda: processes["b"].leading(), 15)
        failover = time.monotonic() - partitioned
        assert not processes["a"].leading()
        assert not processes["a"].zone_controller.running()  # the old leader's workers are stopped
        assert processes["b"].zone_controller.running()
        assert wait_for(lambda: any(w[0] == "b" for w in writes), 10)
    finally:
        codes = {name: r.stop() for name, r in running.items()}
        for api in apis:
            api.close()
    assert codes == {"a": 0, "b": 0}
    spans = sorted(writes, key=lambda w: w[1])
    for (n1, _s1, e1), (n2, s2, _e2) in itertools.pairwise(spans):
        assert n1 == n2 or s2 >= e1, f"{n1} and {n2} wrote at the same time"
    last_a = max(e for n, _, e in writes if n == "a")
    first_b = min(s for n, s, _ in writes if n == "b")
    assert last_a <= first_b
    # fail-over: the standby waits for the lease to expire (2 s) plus up to a jittered retry period
    print(f"leader fail-over after partition: {failover:.2f}s")
    assert 1.0 <= failover <= 6.0


@pytest.mark.integration
def test_record_events_reach_the_api_server(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    api = kubernetes.client.ApiClient(kube_config)
    factory = LazyInformerFactory(lambda: api)
    source = ServiceInformerSource(factory())
    provider = InMemoryProvider(["example.org"])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--events-emit=RecordReady,RecordDeleted"), ctl, stop=threading.Event(),
                                kube_client=lambda: api, informer_factory=factory, emit_events=True)
    create_service(kubeapi, "web", "web.example.org", "192.0.2.7")
    running = Running(process)

    def reasons() -> list[tuple[str, str, str]]:
        return [(e["reason"], e["regarding"]["name"], e["note"])
                for e in kubeapi.list("events.k8s.io/v1", "Event", "default")]

    try:
        assert process.zone_controller.wait_until(lambda: bool(provider.records()), 15)
        assert wait_for(lambda: any(r[0] == "RecordReady" for r in reasons()), 10)
        kubeapi.delete("v1", "Service", "default", "web")
        assert wait_for(lambda: any(r[0] == "RecordDeleted" for r in reasons()), 10)
    finally:
        assert running.stop() == 0
        api.close()
    got = reasons()
    assert ("RecordReady", "web", "Record web.example.org A 192.0.2.7 created") in got
    assert ("RecordDeleted", "web", "Record web.example.org A 192.0.2.7 deleted") in got


def test_healthz_fails_while_a_worker_is_stuck() -> None:
    provider = BlockingProvider(["example.org"])
    source = StaticSource([Endpoint("www.example.org", "A", Targets(["1.1.1.1"]))])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--no-events"), ctl, stop=threading.Event(), stuck_after=0.2)
    running = Running(process)
    try:
        assert provider.entered.wait(10)
        assert process.server is not None
        url = process.server.url
        assert get(url + "/readyz") == (200, "OK")
        assert wait_for(lambda: get(url + "/healthz")[0] == 500, 10)
        status, text = get(url + "/healthz")
        assert status == 500 and "worker zone-worker-" in text and "stuck" in text
        provider.release.set()
        assert wait_for(lambda: get(url + "/healthz") == (200, "OK"), 10)
    finally:
        provider.release.set()
        assert running.stop() == 0


TASK_LOG: list[str] = []


def feature_adding_a_task(process: ControllerProcess) -> None:
    def stop(timeout: float) -> bool:
        TASK_LOG.append(f"stop {timeout > 0}")
        return True

    process.add_leader_task(lambda: TASK_LOG.append("start"), stop, name="extra")


def feature_that_fails(process: ControllerProcess) -> None:
    raise RuntimeError("extension broke")


def test_features_add_leader_tasks_and_a_failing_feature_exits_1() -> None:
    TASK_LOG.clear()
    source = StaticSource([Endpoint("www.example.org", "A", Targets(["1.1.1.1"]))])
    provider = InMemoryProvider(["example.org"])
    ctl = Controller(source, TXTRegistry(provider, owner_id=OWNER), "sync")
    process = ControllerProcess(config("--no-events"), ctl, stop=threading.Event(), features=[feature_adding_a_task])
    running = Running(process)
    try:
        assert process.zone_controller.wait_until(lambda: bool(process.zone_controller.outcomes()), 10)
    finally:
        assert running.stop() == 0
    assert TASK_LOG == ["start", "stop True"]

    ctl2 = Controller(StaticSource([]), TXTRegistry(InMemoryProvider(["example.org"]), owner_id=OWNER), "sync")
    failing = ControllerProcess(config("--no-events"), ctl2, stop=threading.Event(), features=[feature_that_fails])
    assert failing.run() == 1
    assert failing.server is None or failing.server._server is None  # the HTTP server was stopped
