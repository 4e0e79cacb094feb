"""The plan as the outputs see it: one `ZonePlan` per zone, flattened into ordered `Row`s, with its safety
verdict, and the `PlanMeta` of the whole plan (owner ID, time).

Order (every output): zones by name; inside a zone deletes, then creates, then updates, each sorted by
(name, record type, set identifier). An update keeps its old and new TTL and values. The summary line is
`Creates=<n>, Updates=<n>, Deletes=<n>, Existing=<n>` where Existing is the zone's existing owned records
(the safety check's denominator). The safety texts (`verdict_text`, `figures_text`, `plan_verdict_text`)
are the same in every output: a refused plan must not look like an acceptable one in a PR comment.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import display_zone
from external_dns.plan.changes import Changes
from external_dns.plan.safety import UnsafePlanError, Verdict

NO_CHANGES = "No changes were planned"


@dataclass(frozen=True)
class PlanMeta:
    """The whole plan's facts: the owner ID whose records it changes and when it was made (Unix seconds)."""

    owner_id: str = ""
    generated_at: float | None = None

    @property
    def timestamp(self) -> str:
        """`generated_at` as UTC RFC 3339 (`2026-12-07T04:05:06Z`), "" when unknown."""
        if self.generated_at is None:
            return ""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.generated_at))

    def text(self) -> str:
        """`Owner ID cluster-a, made 2026-12-07T04:05:06Z` (either part left out when unknown)."""
        parts = [f"owner ID {self.owner_id}" if self.owner_id else "", f"made {self.timestamp}" if self.timestamp else ""]
        line = ", ".join(p for p in parts if p)
        return line[:1].upper() + line[1:]


@dataclass
class ZonePlan:
    """One zone's changes, the number of existing owned records it was computed against and its safety verdict
    (computed without --force, so the problems are known; `forced`: the run was given --force)."""

    zone: str
    changes: Changes
    existing: int = 0
    default_ttl: int = 0  # the TTL the provider gives a record without one (shown instead of 0)
    verdict: Verdict | None = None
    forced: bool = False

    @property
    def safe(self) -> bool:
        return self.verdict is None or self.verdict.safe

    def rows(self) -> list[Row]:
        return rows(self.changes, self.default_ttl)

    @property
    def display_name(self) -> str:
        return display_zone(self.zone)

    @property
    def has_changes(self) -> bool:
        return not self.changes.is_empty()

    def summary(self) -> str:
        c = self.changes
        return (f"Creates={len(c.create)}, Updates={len(c.update_new)}, Deletes={len(c.delete)}, "
                f"Existing={self.existing}")


@dataclass(frozen=True)
class Side:
    """TTL and values of one side of a change."""

    ttl: int
    values: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One change: `op` is Delete, Create or Update; `old` is set for Delete/Update, `new` for Create/Update."""

    op: str
    name: str
    record_type: str
    set_identifier: str
    old: Side | None
    new: Side | None


def _side(ep: Endpoint, default_ttl: int = 0) -> Side:
    # a record without a TTL shows the one it will get (Route53 300, the zone file's default, ...)
    return Side(ttl=ep.record_ttl if ep.record_ttl > 0 else default_ttl, values=tuple(ep.targets))


def _sort_key(ep: Endpoint) -> tuple[str, str, str]:
    return (ep.dns_name.lower(), ep.record_type, ep.set_identifier)


def rows(changes: Changes, default_ttl: int = 0) -> list[Row]:
    """The zone's changes in output order; TTL 0 is shown as `default_ttl`."""
    out: list[Row] = []
    for ep in sorted(changes.delete, key=_sort_key):
        out.append(Row("Delete", ep.dns_name, ep.record_type, ep.set_identifier, _side(ep, default_ttl), None))
    for ep in sorted(changes.create, key=_sort_key):
        out.append(Row("Create", ep.dns_name, ep.record_type, ep.set_identifier, None, _side(ep, default_ttl)))
    pairs = sorted(zip(changes.update_old, changes.update_new, strict=False), key=lambda p: _sort_key(p[1]))
    for old, new in pairs:
        out.append(Row("Update", new.dns_name, new.record_type, new.set_identifier, _side(old, default_ttl),
                       _side(new, default_ttl)))
    return out


def zones_with_changes(plans: Sequence[ZonePlan]) -> list[ZonePlan]:
    """The plans that change something, by zone name."""
    return sorted((p for p in plans if p.has_changes), key=lambda p: p.display_name)


# -- safety ------------------------------------------------------------------------------------------------------
def problem_text(problem: UnsafePlanError) -> str:
    """A refusal's message without its `[zone]` prefix (the outputs show the zone already)."""
    text = str(problem)
    return text.split("] ", 1)[1] if text.startswith("[") and "] " in text else text


def verdict_text(plan: ZonePlan) -> str:
    """`Safe`, `UNSAFE, not applied without --force: <why>` or `UNSAFE, applied with --force: <why>`; "" when
    no verdict was made."""
    v = plan.verdict
    if v is None:
        return ""
    if v.safe:
        return "Safe"
    why = "; ".join(problem_text(p) for p in v.problems)
    return f"UNSAFE, {'applied with --force' if plan.forced else 'not applied without --force'}: {why}"


def _share(count: int, existing: int) -> str:
    return f"{count}/{existing} = {count / existing * 100.0:.2f}%" if existing else f"{count}/0"


def figures_text(plan: ZonePlan) -> str:
    """The thresholds and this plan's figures against them; "" when no verdict was made."""
    v = plan.verdict
    if v is None:
        return ""
    th = v.thresholds
    if v.existing and v.existing >= th.min_existing:
        checked = (f"updates {_share(v.updates, v.existing)} (threshold {th.update * 100.0:.2f}%), "
                   f"deletes {_share(v.deletes, v.existing)} (threshold {th.delete * 100.0:.2f}%) of the "
                   f"existing records")
    else:
        checked = (f"updates {v.updates}, deletes {v.deletes} of {v.existing} existing: not checked against the "
                   f"thresholds ({th.update * 100.0:.2f}% / {th.delete * 100.0:.2f}%) under {th.min_existing} "
                   "existing records")
    return f"{checked}; creates {v.creates} (never limited)"


def plan_verdict_text(plans: Sequence[ZonePlan]) -> str:
    """The whole plan's verdict: `Safe` or `UNSAFE: n zone(s) need --force (zones)`; "" without verdicts."""
    judged = [p for p in plans if p.verdict is not None]
    if not judged:
        return ""
    unsafe = sorted(p.display_name for p in judged if not p.safe)
    if not unsafe:
        return "Safe"
    forced = all(p.forced for p in judged if not p.safe)
    verb = "applied with --force" if forced else "need --force"
    return f"UNSAFE: {len(unsafe)} zone(s) {verb} ({', '.join(unsafe)})"
