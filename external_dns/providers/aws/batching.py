"""Route53 change batches: one change (`Route53Change`) per record set, grouped so that a record and its
ownership TXT always travel together, and packed into batches under the three Route53 request limits
(changes, characters of values, number of values; an UPSERT counts twice for the last two).

A group that alone exceeds a limit can never be sent: it is returned in `dropped` with the reason, so the
caller can report it while every other group still goes out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.names import name_key
from external_dns.providers.aws.records import rrset_size

# Order inside a batch: string-descending action (UPSERT, DELETE, CREATE), then name, then type.
_ACTION_RANK = {"UPSERT": 0, "DELETE": 1, "CREATE": 2}


@dataclass
class Route53Change:
    """One Change of a ChangeResourceRecordSets request, with the endpoint it came from."""

    action: str
    rrset: dict[str, Any]
    endpoint: Endpoint
    group: str = ""
    size_bytes: int = field(init=False)
    size_values: int = field(init=False)

    def __post_init__(self) -> None:
        chars, values = rrset_size(self.rrset)
        factor = 2 if self.action == "UPSERT" else 1
        self.size_bytes = chars * factor
        self.size_values = values * factor
        if not self.group:
            self.group = group_key(self.endpoint)

    def to_api(self) -> dict[str, Any]:
        return {"Action": self.action, "ResourceRecordSet": self.rrset}

    def describe(self) -> str:
        return f"{self.action} {self.rrset['Name']} {self.rrset['Type']}"

    def sort_key(self) -> tuple[int, str, str, str]:
        return (_ACTION_RANK.get(self.action, 3), self.rrset["Name"], self.rrset["Type"],
                self.rrset.get("SetIdentifier", ""))


def group_key(ep: Endpoint) -> str:
    """Ownership group: the owned record's name for an ownership TXT, the record's own name otherwise."""
    return name_key(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)


@dataclass(frozen=True)
class Limits:
    changes: int = 1000
    size_bytes: int = 32000
    size_values: int = 1000


@dataclass
class Dropped:
    """A group that exceeds a limit on its own."""

    group: str
    changes: list[Route53Change]
    reason: str


def _totals(changes: Iterable[Route53Change]) -> tuple[int, int, int]:
    n = b = v = 0
    for c in changes:
        n += 1
        b += c.size_bytes
        v += c.size_values
    return n, b, v


def _over(limits: Limits, n: int, b: int, v: int) -> str:
    if n > limits.changes:
        return f"{n} changes > --aws-batch-change-size {limits.changes}"
    if b > limits.size_bytes:
        return f"{b} characters of values > --aws-batch-change-size-bytes {limits.size_bytes}"
    if v > limits.size_values:
        return f"{v} values > --aws-batch-change-size-values {limits.size_values}"
    return ""


def sort_batch(changes: list[Route53Change]) -> list[Route53Change]:
    return sorted(changes, key=Route53Change.sort_key)


def group_changes(changes: Sequence[Route53Change]) -> list[list[Route53Change]]:
    """The ownership groups, sorted by group name."""
    groups: dict[str, list[Route53Change]] = {}
    for change in changes:
        groups.setdefault(change.group, []).append(change)
    return [groups[k] for k in sorted(groups)]


def batch_changes(changes: Sequence[Route53Change], limits: Limits) -> tuple[list[list[Route53Change]], list[Dropped]]:
    """Pack `changes` into batches within `limits`, never splitting an ownership group."""
    if not changes:
        return [], []
    if not _over(limits, *_totals(changes)):
        return [sort_batch(list(changes))], []
    batches: list[list[Route53Change]] = []
    dropped: list[Dropped] = []
    current: list[Route53Change] = []
    cn = cb = cv = 0
    for group in group_changes(changes):
        gn, gb, gv = _totals(group)
        reason = _over(limits, gn, gb, gv)
        if reason:
            dropped.append(Dropped(group[0].group, group, reason))
            continue
        if current and _over(limits, cn + gn, cb + gb, cv + gv):
            batches.append(sort_batch(current))
            current, cn, cb, cv = [], 0, 0, 0
        current.extend(group)
        cn, cb, cv = cn + gn, cb + gb, cv + gv
    if current:
        batches.append(sort_batch(current))
    return batches, dropped
