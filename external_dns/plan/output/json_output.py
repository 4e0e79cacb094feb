"""The `json` plan output: a stable JSON document for review tools (sorted keys, two-space indent; the
schema is in docs/ci-once-plan.md): per zone with changes, the changes in the order of every output
(deletes, creates, updates; by name, type, set identifier) and a summary. The file `external-dns apply`
runs is the plan file (plan/planfile.py), which also carries checksums."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from external_dns.plan.output.model import Side, ZonePlan, zones_with_changes

VERSION = 1


def _side(side: Side) -> dict[str, Any]:
    return {"ttl": side.ttl, "values": list(side.values)}


def document(plans: Sequence[ZonePlan]) -> dict[str, Any]:
    zones: dict[str, Any] = {}
    for plan in zones_with_changes(plans):
        changes: list[dict[str, Any]] = []
        for r in plan.rows():
            item: dict[str, Any] = {"type": r.op.lower(), "name": r.name, "record_type": r.record_type,
                                    "set_identifier": r.set_identifier}
            if r.old is not None:
                item["existing"] = _side(r.old)
            if r.new is not None:
                item["new"] = _side(r.new)
            changes.append(item)
        c = plan.changes
        zones[plan.display_name] = {
            "changes": changes,
            "summary": {"creates": len(c.create), "updates": len(c.update_new), "deletes": len(c.delete),
                        "existing": plan.existing},
        }
    return {"version": VERSION, "has_changes": bool(zones), "zones": zones}


def render(plans: Sequence[ZonePlan]) -> str:
    return json.dumps(document(plans), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
