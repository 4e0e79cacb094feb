"""The plan's owner-mismatch gauge (plan/metrics.py), as external-dns's plan/metrics.go: lower-cased labels, one
increment per blocking record, reset at the start of every calculation."""

from __future__ import annotations

from prometheus_client import REGISTRY

from external_dns.plan.metrics import add_owner_mismatch, reset_owner_mismatch

NAME = "external_dns_registry_skipped_records_owner_mismatch_per_sync"
LABELS = {"record_type": "a", "owner": "me", "foreign_owner": "them", "domain": "example.org"}


def test_increments_with_lower_cased_labels_and_resets() -> None:
    reset_owner_mismatch()
    add_owner_mismatch("A", "Me", "THEM", "Example.ORG")
    add_owner_mismatch("a", "me", "them", "example.org")
    assert REGISTRY.get_sample_value(NAME, LABELS) == 2
    reset_owner_mismatch()
    assert REGISTRY.get_sample_value(NAME, LABELS) is None
