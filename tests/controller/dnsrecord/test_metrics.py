"""The DNSRecord controller's metrics (controller/dnsrecord/metrics.py), with dns-operator's names and labels: the
write counter, the Ready gauge whose old series goes when its labels change, and both gone with the record."""

from __future__ import annotations

from prometheus_client import REGISTRY

from external_dns.controller.dnsrecord import metrics


def ready(name: str, root_host: str) -> float | None:
    return REGISTRY.get_sample_value("dns_provider_record_ready", {
        "dns_record_name": name, "dns_record_namespace": "default", "dns_record_root_host": root_host,
        "dns_record_is_delegating": "false"})


def written(name: str) -> float | None:
    return REGISTRY.get_sample_value("dns_provider_write_counter",
                                     {"dns_record_name": name, "dns_record_namespace": "default"})


def test_write_counter_and_ready_series_of_a_record() -> None:
    metrics.set_write_counter("default", "metrics-a", 3)
    metrics.set_ready("default", "metrics-a", "a.example.org", ready=False)
    assert written("metrics-a") == 3 and ready("metrics-a", "a.example.org") == 0
    metrics.set_ready("default", "metrics-a", "a.example.org", ready=True)
    assert ready("metrics-a", "a.example.org") == 1


def test_a_new_root_host_replaces_the_old_series() -> None:
    metrics.set_ready("default", "metrics-b", "old.example.org", ready=True)
    metrics.set_ready("default", "metrics-b", "new.example.org", ready=True)
    assert ready("metrics-b", "old.example.org") is None and ready("metrics-b", "new.example.org") == 1


def test_forget_removes_every_series_of_the_record_once() -> None:
    metrics.set_write_counter("default", "metrics-c", 1)
    metrics.set_ready("default", "metrics-c", "c.example.org", ready=True)
    metrics.set_ready("default", "metrics-d", "d.example.org", ready=True)
    metrics.forget("default", "metrics-c")
    metrics.forget("default", "metrics-c")  # twice, or a record never seen: no error
    assert written("metrics-c") is None and ready("metrics-c", "c.example.org") is None
    assert ready("metrics-d", "d.example.org") == 1  # another record's series stays
    metrics.forget("default", "metrics-d")
