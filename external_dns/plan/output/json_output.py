"""The `json` plan output: a stable JSON document for review tools (sorted keys, two-space indent; the
schema is in docs/ci-once-plan.md): per zone with changes, the changes in the order of every output
(deletes, creates, updates; by name, type, set identifier), a summary and the zone's safety verdict. The file
`external-dns apply` runs is the plan file (plan/planfile.py), which also carries checksums.

Version 1, fields only ever added: `safe` and `unsafe_zones` (the whole plan; zones without a verdict count as
safe), `owner_id` and `generated_at` (with a `PlanMeta`), and per zone `safety` (with a verdict): `safe`,
`forced`, `problems` (`reason`, `message`), `thresholds` (`update`, `delete`, `min_existing_records`),
`update_fraction` / `delete_fraction` (of the existing records; null for none) and `percentage_checked`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from external_dns.plan.output.model import PlanMeta, Side, ZonePlan, problem_text, zones_with_changes

VERSION = 1


def _side(side: Side) -> dict[str, Any]:
    return {"ttl": side.ttl, "values": list(side.values)}


def _safety(plan: ZonePlan) -> dict[str, Any] | None:
    v = plan.verdict
    if v is None:
        return None
    th = v.thresholds
    return {
        "safe": v.safe,
        "forced": plan.forced and not v.safe,
        "problems": [{"reason": p.reason, "message": problem_text(p)} for p in v.problems],
        "thresholds": {"update": th.update, "delete": th.delete, "min_existing_records": th.min_existing},
        "update_fraction": round(v.updates / v.existing, 6) if v.existing else None,
        "delete_fraction": round(v.deletes / v.existing, 6) if v.existing else None,
        "percentage_checked": bool(v.existing) and v.existing >= th.min_existing,
    }


def document(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> dict[str, Any]:
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
        safety = _safety(plan)
        if safety is not None:
            zones[plan.display_name]["safety"] = safety
    unsafe = sorted(p.display_name for p in plans if not p.safe)
    doc: dict[str, Any] = {"version": VERSION, "has_changes": bool(zones), "zones": zones, "safe": not unsafe,
                           "unsafe_zones": unsafe}
    if meta is not None:
        doc["owner_id"] = meta.owner_id
        doc["generated_at"] = meta.timestamp
    return doc


def render(plans: Sequence[ZonePlan], meta: PlanMeta | None = None) -> str:
    return json.dumps(document(plans, meta), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
