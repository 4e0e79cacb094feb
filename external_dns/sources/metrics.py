"""Source wrapper metrics: invalid and de-duplicated endpoints per sync, by record type and
source type. Gauge label values are lower-cased and the vectors are reset every sync."""

from __future__ import annotations

from collections import Counter

from prometheus_client import Gauge

SOURCE_INVALID_ENDPOINTS = Gauge(
    "external_dns_source_invalid_endpoints",
    "Number of endpoints dropped as invalid by the last sync, by record type and source type.",
    ["record_type", "source_type"],
)
SOURCE_DEDUPLICATED_ENDPOINTS = Gauge(
    "external_dns_source_deduplicated_endpoints",
    "Number of duplicate endpoints removed by the last sync, by record type and source type.",
    ["record_type", "source_type"],
)


def publish(gauge: Gauge, counts: Counter[tuple[str, str]]) -> None:
    """Reset `gauge` and set one value per (record_type, source_type), lower-cased."""
    gauge.clear()
    for (record_type, source_type), n in counts.items():
        gauge.labels(record_type=record_type.lower(), source_type=source_type.lower()).set(n)
