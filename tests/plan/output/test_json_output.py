"""The JSON output (plan/output/json_output.py): stable (sorted keys, any input order), complete, and only ever
adding fields to version 1."""

from __future__ import annotations

import json

from external_dns.plan.output import ZonePlan, render
from tests.plan.output.sample import META, fixed_plan


def test_json_is_stable_and_complete() -> None:
    text = render("json", fixed_plan())
    doc = json.loads(text)
    assert text == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n", "sorted keys"
    assert doc["version"] == 1 and doc["has_changes"] is True
    assert sorted(doc["zones"]) == ["example.com.", "example.org."]
    org = doc["zones"]["example.org."]
    assert org["summary"] == {"creates": 3, "updates": 2, "deletes": 3, "existing": 12}
    assert [c["type"] for c in org["changes"]] == ["delete"] * 3 + ["create"] * 3 + ["update"] * 2
    api = next(c for c in org["changes"] if c["name"] == "api.example.org")
    assert api == {"type": "update", "name": "api.example.org", "record_type": "A", "set_identifier": "",
                   "existing": {"ttl": 300, "values": ["10.0.0.3"]},
                   "new": {"ttl": 600, "values": ["10.0.0.4", "10.0.0.5"]}}
    # the same plan in another input order renders byte for byte the same
    shuffled = fixed_plan()[::-1]
    shuffled[2].changes.delete.reverse()
    assert render("json", shuffled) == text


def test_json_keeps_its_version_1_fields() -> None:
    """Fields are only added: a reader of version 1 finds every key it knew, with the same values."""
    doc = json.loads(render("json", fixed_plan(), META))
    old = json.loads(render("json", [ZonePlan(p.zone, p.changes, p.existing) for p in fixed_plan()]))
    assert doc["version"] == old["version"] == 1 and doc["has_changes"] == old["has_changes"]
    for zone, body in old["zones"].items():
        assert set(body) == {"changes", "summary"}
        assert doc["zones"][zone]["changes"] == body["changes"] and doc["zones"][zone]["summary"] == body["summary"]
