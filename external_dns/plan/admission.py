"""Edge validation of a whole change set (what a webhook server receives, what a plan file holds), and the
apply-time ownership re-check of a plan file.

`admit_changes(changes)` returns the changes without the endpoints that break DNS's limits
(endpoint/limits.py) and the reasons, one per refused endpoint (`create www.example.org A: recordTTL: ...`).
Creates and new sides of updates are checked in full (ownership TXT values are allowed: here they are the
registry's own writes); deletes and old sides only need a usable name and TTL (they describe records that
exist). An update pair is kept or dropped as a whole, so `update_old[i]` / `update_new[i]` stay paired.

`ownership_problems(changes, current, owner_id)`: the labels inside a plan file are never trusted (a file
whose checksum was recomputed could claim anything). At apply time every update and delete must name a
record the provider holds now (as read through the registry) and that is owned by `owner_id` there; every
create must name a record that does not exist yet; creates and new sides of updates pass the full edge
validation. Returns one reason per violation (empty: the plan may be applied); `adopt_current_labels`
copies the provider's labels onto the plan's updates and deletes so the registry filters on the truth.
"""

from __future__ import annotations

from collections.abc import Iterable

from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, Endpoint
from external_dns.endpoint.limits import (
    FieldProblem,
    ascii_name_problem,
    describe,
    endpoint_problem,
    ttl_problem,
)
from external_dns.endpoint.names import name_key
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


def _key(ep: Endpoint) -> tuple[str, str, str]:
    return (name_key(ep.dns_name), ep.record_type, ep.set_identifier)


def ownership_problems(changes: Changes, current: Iterable[Endpoint], owner_id: str) -> list[str]:
    """Why `changes` (from a plan file) may not be applied over `current` (module docstring); [] when fine."""
    held = {_key(ep): ep for ep in current}
    out: list[str] = []
    for ep in changes.create:
        problem = endpoint_problem(ep)
        if problem is not None:
            out.append(f"create {describe(ep)}: {problem}")
        elif _key(ep) in held:
            out.append(f"create {describe(ep)}: the record already exists at the provider")
    for action, eps in (("update", changes.update_old), ("delete", changes.delete)):
        for ep in eps:
            now = held.get(_key(ep))
            if now is None:
                out.append(f"{action} {describe(ep)}: no such record at the provider")
            elif owner_id and now.labels.get(OWNER_LABEL_KEY, "") != owner_id:
                owner = now.labels.get(OWNER_LABEL_KEY, "")
                out.append(f"{action} {describe(ep)}: the record is "
                           + (f"owned by {owner!r}" if owner else "not owned by anyone (hand-made)")
                           + f" at the provider, not by {owner_id!r}")
    for ep in changes.update_new:
        problem = endpoint_problem(ep)
        if problem is not None:
            out.append(f"update {describe(ep)}: {problem}")
    return out


def adopt_current_labels(changes: Changes, current: Iterable[Endpoint]) -> None:
    """Replace the labels of updates and deletes by those the provider holds now (in place)."""
    held = {_key(ep): ep for ep in current}
    for old, new in zip(changes.update_old, changes.update_new, strict=False):
        now = held.get(_key(old))
        if now is not None:
            old.labels = dict(now.labels)
            new.labels = {**new.labels, OWNER_LABEL_KEY: now.labels.get(OWNER_LABEL_KEY, "")}
    for ep in changes.delete:
        now = held.get(_key(ep))
        if now is not None:
            ep.labels = dict(now.labels)
