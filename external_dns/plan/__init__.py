"""plan/: change calculation (Plan), conflict resolution (PerResource), policies and the Changes model."""

from external_dns.plan.changes import Changes
from external_dns.plan.conflict import DomainEndpoints, PerResource, PlanKey, PlanRow, compare_endpoints
from external_dns.plan.plan import (
    Plan,
    is_managed_record,
    should_update_provider_specific,
    should_update_ttl,
    targets_changed,
)
from external_dns.plan.policy import (
    POLICIES,
    CreateOnlyPolicy,
    Policy,
    SyncPolicy,
    UpsertOnlyPolicy,
    get_policy,
)

__all__ = [
    "POLICIES",
    "Changes",
    "CreateOnlyPolicy",
    "DomainEndpoints",
    "PerResource",
    "Plan",
    "PlanKey",
    "PlanRow",
    "Policy",
    "SyncPolicy",
    "UpsertOnlyPolicy",
    "compare_endpoints",
    "get_policy",
    "is_managed_record",
    "should_update_provider_specific",
    "should_update_ttl",
    "targets_changed",
]
