"""Health server: /healthz with the worker watchdog, /readyz with injected checks, /metrics; clean stop."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, Counter

from external_dns.controller.health import HealthServer, WorkerWatchdog, parse_address
from external_dns.workqueue import FakeClock
from tests.helpers.threads import thread_leak_check


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check()


def fetch(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read().decode(), err.headers.get("Content-Type", "")


def test_parse_address() -> None:
    assert parse_address(":7979") == ("", 7979)
    assert parse_address("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_address("[::1]:8080") == ("::1", 8080)
    with pytest.raises(ValueError, match="--metrics-address"):
        parse_address("7979")
    with pytest.raises(ValueError, match="invalid port"):
        parse_address("host:http")


def test_watchdog_flags_a_stuck_worker() -> None:
    clock = FakeClock(100.0)
    wd = WorkerWatchdog(30.0, now=clock.now)
    wd.tick("worker-0")
    with wd.working("worker-1"):
        clock.step(31)
        assert set(wd.stuck()) == {"worker-0", "worker-1"}
    assert set(wd.stuck()) == {"worker-0"}
    wd.clear("worker-0")
    assert wd.healthy()


def test_endpoints() -> None:
    registry = CollectorRegistry()
    Counter("external_dns_test_things", "things", registry=registry).inc(3)
    clock = FakeClock(100.0)
    watchdog = WorkerWatchdog(10.0, now=clock.now)
    synced = threading.Event()
    server = HealthServer("127.0.0.1:0", registry=registry, watchdog=watchdog,
                          ready_checks={"caches-synced": synced.is_set})
    with server:
        base = server.url
        assert fetch(base + "/healthz")[:2] == (200, "OK")

        code, body, _ = fetch(base + "/readyz")
        assert code == 503 and "caches-synced" in body
        synced.set()
        assert fetch(base + "/readyz")[:2] == (200, "OK")

        code, body, ctype = fetch(base + "/metrics")
        assert code == 200
        assert "external_dns_test_things_total 3.0" in body
        assert ctype.startswith("text/plain")

        watchdog.tick("worker-3")
        clock.step(11)
        code, body, _ = fetch(base + "/healthz")
        assert code == 500 and "worker-3" in body
        watchdog.clear("worker-3")
        assert fetch(base + "/healthz")[0] == 200

        assert fetch(base + "/nope")[0] == 404
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(base + "/healthz", timeout=2)


def test_leader_election_style_ready_check_and_raising_checks() -> None:
    state = {"leading": False, "standing_by": True}

    def leading_or_standing_by() -> bool:
        return state["leading"] or state["standing_by"]

    def broken() -> bool:
        raise RuntimeError("boom")

    with HealthServer("127.0.0.1:0", ready_checks={"leader-election": leading_or_standing_by}) as server:
        assert fetch(server.url + "/readyz")[0] == 200
        state["standing_by"] = False
        assert fetch(server.url + "/readyz")[0] == 503
        server.add_live_check("broken", broken)
        code, body, _ = fetch(server.url + "/healthz")
        assert code == 500 and "broken" in body


def test_bind_error_names_the_address() -> None:
    with HealthServer("127.0.0.1:0") as first:
        second = HealthServer(f"127.0.0.1:{first.port}")
        with pytest.raises(OSError, match="--metrics-address"):
            second.start()


def test_default_metrics_carry_the_external_dns_names_and_build_info() -> None:
    """/metrics of the process (default registry) exposes external-dns's controller metrics by name."""
    import platform

    from external_dns.controller import metrics  # registers the controller metrics in the default registry

    metrics.NO_OP_RUNS.inc(0)
    server = HealthServer("127.0.0.1:0")
    with server:
        code, body, _ = fetch(server.url + "/metrics")
    assert code == 200
    for name in ("external_dns_controller_last_sync_timestamp_seconds",
                 "external_dns_controller_last_reconcile_timestamp_seconds",
                 "external_dns_controller_no_op_runs_total", "external_dns_controller_consecutive_soft_errors",
                 "external_dns_registry_errors_total", "external_dns_registry_endpoints_total",
                 "external_dns_source_errors_total", "external_dns_source_endpoints_total"):
        assert f"\n{name} " in body, name
    build = [line for line in body.splitlines() if line.startswith("external_dns_build_info{")]
    assert len(build) == 1 and build[0].endswith("} 1.0")
    for label in ('version="0.1.0"', 'revision="', f'go_version="python{platform.python_version()}"', 'os="',
                  'arch="'):
        assert label in build[0], label


def _switches(native_id: int) -> int:
    with open(f"/proc/self/task/{native_id}/status") as status:
        return sum(int(line.split()[1]) for line in status if line.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")))


def test_an_idle_server_sleeps_and_stops_at_once() -> None:
    """No connection open: the accept loop is not woken (socketserver's polling loop woke twice a second), and
    stop() wakes it rather than waiting for a poll."""
    with HealthServer("127.0.0.1:0") as server:
        urllib.request.urlopen(f"{server.url}/healthz", timeout=5).read()
        thread = next(t for t in threading.enumerate() if t.name == "health-server")
        assert thread.native_id is not None
        time.sleep(0.2)  # the answered connection's thread has ended
        before = _switches(thread.native_id)
        time.sleep(1.5)
        assert _switches(thread.native_id) == before
        started = time.monotonic()
    assert time.monotonic() - started < 1.0
    assert not thread.is_alive()
