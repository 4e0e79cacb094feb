"""The controller's metrics (controller/metrics.py): external-dns's names, per-type counts with every known type
present, gauges reset every cycle with lower-cased labels, verified records by name key, build information."""

from __future__ import annotations

import platform
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Gauge, generate_latest

from external_dns.controller import metrics
from external_dns.endpoint.endpoint import KNOWN_RECORD_TYPES
from tests.helpers.endpoints import ep


@pytest.fixture
def gauge() -> Iterator[tuple[Gauge, CollectorRegistry]]:
    registry = CollectorRegistry()
    yield Gauge("records", "test", ["record_type"], registry=registry), registry


def test_names_are_external_dns_names() -> None:
    text = generate_latest(REGISTRY).decode()
    for name in ("external_dns_controller_last_sync_timestamp_seconds", "external_dns_controller_no_op_runs_total",
                 "external_dns_controller_verified_records", "external_dns_registry_errors_total",
                 "external_dns_registry_endpoints_total", "external_dns_source_records", "external_dns_build_info"):
        assert f"\n# TYPE {name} " in text or f"\n# TYPE {name.removesuffix('_total')} " in text, name


def test_count_by_type_reports_every_known_type() -> None:
    counts = metrics.count_by_type([ep("a.x", "A", "10.0.0.1"), ep("b.x", "A", "10.0.0.2"), ep("c.x", "TXT", "t")])
    assert counts["A"] == 2 and counts["TXT"] == 1 and counts["AAAA"] == 0
    assert set(KNOWN_RECORD_TYPES) <= set(counts)


def test_set_per_type_resets_and_lower_cases(gauge: tuple[Gauge, CollectorRegistry]) -> None:
    g, registry = gauge
    metrics.set_per_type(g, {"A": 3, "MX": 1})
    metrics.set_per_type(g, {"A": 2})
    assert registry.get_sample_value("records", {"record_type": "a"}) == 2
    assert registry.get_sample_value("records", {"record_type": "mx"}) is None  # cleared: not carried over


def test_verified_by_type_matches_by_name_key_and_type() -> None:
    desired = [ep("WWW.example.org.", "A", "10.0.0.1"), ep("api.example.org", "A", "10.0.0.2"),
               ep("www.example.org", "AAAA", "::1")]
    current = [ep("www.example.org", "A", "10.9.9.9"), ep("api.example.org", "CNAME", "x.example.net")]
    verified = metrics.verified_by_type(desired, current)
    assert verified["A"] == 1 and verified["AAAA"] == 0 and verified["CNAME"] == 0


def test_build_info_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    labels = metrics.build_info_labels()
    assert set(labels) == {"version", "revision", "go_version", "os", "arch"}
    assert labels["go_version"].startswith("python3.") and labels["os"] == "linux"
    assert REGISTRY.get_sample_value("external_dns_build_info", labels) == 1
    for machine, arch in (("x86_64", "amd64"), ("AARCH64", "arm64"), ("i686", "386"), ("riscv64", "riscv64")):
        monkeypatch.setattr(platform, "machine", lambda m=machine: m)
        assert metrics.build_info_labels()["arch"] == arch  # Go's names where Go has one
