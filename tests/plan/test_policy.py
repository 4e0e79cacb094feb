"""The policies (plan/policy.py): sync, upsert-only and create-only filter a plan's changes, the input untouched."""

from __future__ import annotations

import pytest

from external_dns.plan import (
    POLICIES,
    CreateOnlyPolicy,
    SyncPolicy,
    UpsertOnlyPolicy,
    get_policy,
)
from tests.helpers.endpoints import one_of_each


def test_policies() -> None:
    ch = one_of_each()
    s = SyncPolicy().apply(ch)
    assert (len(s.create), len(s.update_old), len(s.update_new), len(s.delete)) == (1, 1, 1, 1)
    u = UpsertOnlyPolicy().apply(ch)
    assert (len(u.create), len(u.update_old), len(u.update_new), len(u.delete)) == (1, 1, 1, 0)
    c = CreateOnlyPolicy().apply(ch)
    assert (len(c.create), len(c.update_old), len(c.update_new), len(c.delete)) == (1, 0, 0, 0)
    assert len(ch.delete) == 1  # input untouched
    assert set(POLICIES) == {"sync", "upsert-only", "create-only"}
    assert isinstance(get_policy("upsert-only"), UpsertOnlyPolicy)
    with pytest.raises(ValueError, match="unknown policy: foo"):
        get_policy("foo")
