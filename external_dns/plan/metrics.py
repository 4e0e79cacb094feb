"""Plan metrics: the per-sync owner-mismatch gauge (external-dns `plan/metrics.go`).

`external_dns_registry_skipped_records_owner_mismatch_per_sync{record_type, owner, foreign_owner, domain}`:
reset at the start of every calculation with an owner ID, incremented once per foreign-owned current
record that blocked the creates of its row. `domain` is the naked domain (cardinality control); label
values are lower-cased.
"""

from __future__ import annotations

from prometheus_client import Gauge

REGISTRY_SKIPPED_RECORDS_OWNER_MISMATCH_PER_SYNC = Gauge(
    "skipped_records_owner_mismatch_per_sync",
    "Number of records skipped with owner mismatch for each record type, owner mismatch ID and domain (vector).",
    labelnames=("record_type", "owner", "foreign_owner", "domain"),
    namespace="external_dns",
    subsystem="registry",
)


def reset_owner_mismatch() -> None:
    REGISTRY_SKIPPED_RECORDS_OWNER_MISMATCH_PER_SYNC.clear()


def add_owner_mismatch(record_type: str, owner: str, foreign_owner: str, domain: str) -> None:
    REGISTRY_SKIPPED_RECORDS_OWNER_MISMATCH_PER_SYNC.labels(
        record_type.lower(), owner.lower(), foreign_owner.lower(), domain.lower()
    ).inc()
