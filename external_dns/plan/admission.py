"""Edge validation of a whole change set (what a webhook server receives, what a plan file holds).

`admit_changes(changes)` returns the changes without the endpoints that break DNS's limits
(endpoint/limits.py) and the reasons, one per refused endpoint (`create www.example.org A: recordTTL: ...`).
Creates and new sides of updates are checked in full (ownership TXT values are allowed: here they are the
registry's own writes); deletes and old sides only need a usable name and TTL (they describe records that
exist). An update pair is kept or dropped as a whole, so `update_old[i]` / `update_new[i]` stay paired.
"""

from __future__ import annotations

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import (
    FieldProblem,
    ascii_name_problem,
    describe,
    endpoint_problem,
    ttl_problem,
)
from external_dns.plan.changes import Changes


def _existing_problem(ep: Endpoint) -> FieldProblem | None:
    problem = ascii_name_problem(ep.dns_name, "name")
    if problem is not None:
        return FieldProblem("dnsName", problem)
    problem = ttl_problem(ep.record_ttl)
    return FieldProblem("recordTTL", problem) if problem is not None else None


def admit_changes(changes: Changes) -> tuple[Changes, list[str]]:
    """(the admissible changes, one reason per refused endpoint)."""
    refused: list[str] = []
    out = Changes()
    for ep in changes.create:
        problem = endpoint_problem(ep, allow_ownership_txt=True)
        if problem is None:
            out.create.append(ep)
        else:
            refused.append(f"create {describe(ep)}: {problem}")
    for ep in changes.delete:
        problem = _existing_problem(ep)
        if problem is None:
            out.delete.append(ep)
        else:
            refused.append(f"delete {describe(ep)}: {problem}")
    paired = len(changes.update_old) == len(changes.update_new)
    if not paired:
        refused.extend(f"update {describe(ep)}: updateOld and updateNew differ in length" for ep in changes.update_new)
        return out, refused
    for old, new in zip(changes.update_old, changes.update_new, strict=True):
        problem = _existing_problem(old) or endpoint_problem(new, allow_ownership_txt=True)
        if problem is None:
            out.update_old.append(old)
            out.update_new.append(new)
        else:
            refused.append(f"update {describe(new)}: {problem}")
    return out, refused
