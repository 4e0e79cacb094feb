"""Changes (plan/changes.py): whether a plan changes anything, and its JSON form round trip."""

from __future__ import annotations

from external_dns.plan import Changes
from tests.helpers.endpoints import ep, one_of_each


def test_changes_has_changes_and_json() -> None:
    assert not Changes().has_changes()
    same = Changes(update_old=[ep("u", "A", "1.1.1.1")], update_new=[ep("u", "A", "1.1.1.1")])
    assert not same.has_changes()
    assert one_of_each().has_changes()
    data = one_of_each().to_json()
    assert set(data) == {"create", "updateOld", "updateNew", "delete"}
    back = Changes.from_json(data)
    assert back.to_json() == data
