"""The source wrappers' metrics (sources/metrics.py): invalid and de-duplicated endpoints of the last sync, by record
type and source type, lower-cased, the vectors reset every sync."""

from __future__ import annotations

from collections import Counter

from prometheus_client import REGISTRY

from external_dns.sources.metrics import SOURCE_DEDUPLICATED_ENDPOINTS, SOURCE_INVALID_ENDPOINTS, publish


def value(name: str, record_type: str, source_type: str) -> float | None:
    return REGISTRY.get_sample_value(name, {"record_type": record_type, "source_type": source_type})


def test_publish_resets_and_lower_cases() -> None:
    name = "external_dns_source_invalid_endpoints"
    publish(SOURCE_INVALID_ENDPOINTS, Counter({("A", "Service"): 2, ("CNAME", "Ingress"): 1}))
    assert value(name, "a", "service") == 2 and value(name, "cname", "ingress") == 1
    publish(SOURCE_INVALID_ENDPOINTS, Counter({("A", "Service"): 1}))
    assert value(name, "a", "service") == 1 and value(name, "cname", "ingress") is None  # the last sync only
    publish(SOURCE_INVALID_ENDPOINTS, Counter())
    assert value(name, "a", "service") is None


def test_the_deduplicated_gauge_is_its_own() -> None:
    publish(SOURCE_DEDUPLICATED_ENDPOINTS, Counter({("AAAA", "crd"): 4}))
    publish(SOURCE_INVALID_ENDPOINTS, Counter())
    assert value("external_dns_source_deduplicated_endpoints", "aaaa", "crd") == 4
    publish(SOURCE_DEDUPLICATED_ENDPOINTS, Counter())
