"""Plan safety verdicts (pure): per-zone update/delete thresholds, the root-NS guard and the wipe guard (a plan
deleting every record this owner holds in a zone, whatever the zone's size: what a source reading as empty
produces), as octoDNS's `Plan.raise_if_unsafe` with its pitfalls fixed. `check_zone`/`assess` return a
`Verdict` (the delete threshold and the wipe guard can be waived for deletes that are the point of a plan:
`deletes_exempt`, `guard_wipe=False`); the denominator is
`count_existing` of the zone's records, or of its `CountedRecords` (counts per record type and owner, kept
by the TXT registry). Refusing, logging, counting and Events are the controller's
(controller/safety_gate.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, RECORD_TYPE_NS, RECORD_TYPE_TXT, Endpoint
from external_dns.endpoint.zones import display_zone, normalize_zone
from external_dns.plan.changes import Changes

DEFAULT_UPDATE_THRESHOLD = 0.3
DEFAULT_DELETE_THRESHOLD = 0.3
DEFAULT_MIN_EXISTING_RECORDS = 10

REASON_TOO_MANY_UPDATES = "too-many-updates"
REASON_TOO_MANY_DELETES = "too-many-deletes"
REASON_ROOT_NS_CHANGE = "root-ns-change"
REASON_DELETES_ALL = "deletes-all"


# -- errors ---------------------------------------------------------------------------------------------------
class UnsafePlanError(Exception):
    """A zone's plan needs `--force`. `zone` (as given), `reason` (a metric label value) and the message."""

    def __init__(self, zone: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.zone = zone
        self.reason = reason


class TooMuchChangeError(UnsafePlanError):
    """Updates or deletes over the threshold; carries the figures of the message."""

    def __init__(self, zone: str, reason: str, change_count: int, existing_count: int, threshold: float) -> None:
        why = "Too many updates" if reason == REASON_TOO_MANY_UPDATES else "Too many deletes"
        pcent = change_count / existing_count * 100.0
        super().__init__(zone, reason, f"[{display_zone(zone)}] {why}, {pcent:.2f}% is over "
                                       f"{threshold * 100.0:.2f}% ({change_count}/{existing_count}), force required")
        self.change_count = change_count
        self.existing_count = existing_count
        self.threshold = threshold
        self.percent = pcent


class RootNsChangeError(UnsafePlanError):
    """A create, update or delete of the apex NS record of an existing zone."""

    def __init__(self, zone: str) -> None:
        super().__init__(zone, REASON_ROOT_NS_CHANGE, f"[{display_zone(zone)}] Root NS record change, force required")


class DeletesAllError(UnsafePlanError):
    """Every record this owner holds in the zone deleted and nothing created: the mark of a source that reads as
    empty (wrong annotation prefix, namespace or label filter, a missing CRD), refused whatever the zone's size
    (the thresholds spare zones under --min-existing-records)."""

    def __init__(self, zone: str, deletes: int, existing: int) -> None:
        super().__init__(zone, REASON_DELETES_ALL,
                         f"[{display_zone(zone)}] The plan deletes every record this owner holds in the zone "
                         f"({deletes}/{existing}) and creates none, force required (check that the sources "
                         f"still see their objects: --annotation-prefix, --namespace, filters)")
        self.change_count = deletes
        self.existing_count = existing


class UnsafePlansError(Exception):
    """Several zones refused at once (once mode, full syncs): `errors` holds one UnsafePlanError per zone."""

    def __init__(self, errors: Sequence[UnsafePlanError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = list(errors)


# -- configuration --------------------------------------------------------------------------------------------
def check_fraction(value: float, what: str) -> float:
    """`value` when it is a number in [0, 1]; ValueError naming `what` and the value otherwise."""
    if not (0.0 <= value <= 1.0):  # also rejects NaN
        raise ValueError(f"{what} must be a fraction between 0 and 1, got {value!r}")
    return value


@dataclass(frozen=True)
class ZoneThreshold:
    """A per-zone override; None = use the global value."""

    update: float | None = None
    delete: float | None = None


@dataclass(frozen=True)
class Thresholds:
    """The limits that apply to one zone."""

    update: float = DEFAULT_UPDATE_THRESHOLD
    delete: float = DEFAULT_DELETE_THRESHOLD
    min_existing: int = DEFAULT_MIN_EXISTING_RECORDS


def parse_zone_threshold(text: str) -> tuple[str, ZoneThreshold]:
    """`example.com=update:0.2,delete:0.1` -> ("example.com", ZoneThreshold(0.2, 0.1)).
    ValueError naming the value and what is wrong with it."""
    where = f"--zone-threshold {text!r}"
    zone, sep, spec = text.partition("=")
    zone = normalize_zone(zone)
    if not sep or not zone or not spec.strip():
        raise ValueError(f"{where}: expected ZONE=update:FRACTION,delete:FRACTION")
    values: dict[str, float] = {}
    for part in spec.split(","):
        key, colon, raw = part.strip().partition(":")
        key = key.strip().lower()
        if not colon or key not in ("update", "delete"):
            raise ValueError(f"{where}: {part.strip()!r} is not update:FRACTION or delete:FRACTION")
        if key in values:
            raise ValueError(f"{where}: {key} given twice")
        try:
            number = float(raw.strip())
        except ValueError:
            raise ValueError(f"{where}: {key} value {raw.strip()!r} is not a number") from None
        values[key] = check_fraction(number, f"{where}: {key}")
    return zone, ZoneThreshold(update=values.get("update"), delete=values.get("delete"))


@dataclass(frozen=True)
class SafetyConfig:
    """Global thresholds, per-zone overrides (keys: normalised zone names) and `force`."""

    update: float = DEFAULT_UPDATE_THRESHOLD
    delete: float = DEFAULT_DELETE_THRESHOLD
    min_existing: int = DEFAULT_MIN_EXISTING_RECORDS
    zones: Mapping[str, ZoneThreshold] = field(default_factory=dict)
    force: bool = False

    def __post_init__(self) -> None:
        check_fraction(self.update, "--update-threshold")
        check_fraction(self.delete, "--delete-threshold")
        if self.min_existing < 0:
            raise ValueError(f"--min-existing-records must not be negative, got {self.min_existing}")
        object.__setattr__(self, "zones", {normalize_zone(k): v for k, v in self.zones.items()})

    def for_zone(self, zone: str | None) -> Thresholds:
        """The thresholds of `zone`: its override where it sets a value, else the global ones."""
        override = self.zones.get(normalize_zone(zone or ""), ZoneThreshold())
        return Thresholds(
            update=self.update if override.update is None else override.update,
            delete=self.delete if override.delete is None else override.delete,
            min_existing=self.min_existing,
        )

    def unknown_zones(self, zones: Iterable[str]) -> list[str]:
        """Overridden zones that are not among `zones` (a likely typo; the override cannot apply)."""
        known = {normalize_zone(z) for z in zones}
        return sorted(z for z in self.zones if z not in known)


# -- the check ------------------------------------------------------------------------------------------------
def is_ownership_txt(ep: Endpoint) -> bool:
    """A TXT registry marker (`"heritage=external-dns,..."`), never counted as an existing record."""
    return ep.record_type == RECORD_TYPE_TXT and any("heritage=external-dns" in t for t in ep.targets)


class CountedRecords(Sequence[Endpoint]):
    """A zone's records held as counts: how many records of each (record type, owner label) the zone holds
    (the TXT registry's `zone_view`, kept in step name by name), which `count_existing` reads in O(pairs)
    instead of record by record. As a sequence, each item is a shared stand-in Endpoint with only the record
    type and the owner label of a record (no name, no targets), pairs in turn. For counting only."""

    def __init__(self, counts: dict[tuple[str, str], int]) -> None:
        self._counts = counts
        self._len = sum(counts.values())
        self._standins: dict[tuple[str, str], Endpoint] = {}

    def type_owner_counts(self) -> dict[tuple[str, str], int]:
        """(record type, owner label or "") -> number of records."""
        return dict(self._counts)

    def standin(self, pair: tuple[str, str]) -> Endpoint:
        ep = self._standins.get(pair)
        if ep is None:
            ep = self._standins[pair] = Endpoint("", pair[0], labels={OWNER_LABEL_KEY: pair[1]} if pair[1] else {})
        return ep

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Endpoint: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Endpoint]: ...

    def __getitem__(self, index: int | slice) -> Endpoint | Sequence[Endpoint]:
        if isinstance(index, slice):
            return list(self)[index]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("CountedRecords index out of range")
        for pair, n in self._counts.items():
            if i < n:
                return self.standin(pair)
            i -= n
        raise IndexError("CountedRecords index out of range")  # pragma: no cover (counts sum to _len)

    def __iter__(self) -> Iterator[Endpoint]:
        for pair, n in self._counts.items():
            ep = self.standin(pair)
            for _ in range(n):
                yield ep


def count_existing(current: Iterable[Endpoint], owner_id: str = "",
                   managed_record_types: Iterable[str] | None = None) -> int:
    """The safety denominator: existing records we own (all of them without an owner ID), of the managed
    types when given, never the ownership TXT markers."""
    managed = frozenset(managed_record_types) if managed_record_types is not None else None
    if isinstance(current, CountedRecords):
        # each (record type, owner label) pair judged as one of its records would be (a stand-in: no name, no
        # targets, so never an ownership TXT)
        return sum(count for pair, count in current.type_owner_counts().items()
                   if count and _counts(current.standin(pair), managed, owner_id))
    n = 0
    for ep in current:
        if is_ownership_txt(ep):  # markers would dilute the churn, as octoDNS's ownership records do
            continue
        if managed is not None and ep.record_type not in managed:
            continue
        if owner_id and not ep.is_owned_by(owner_id):
            continue
        n += 1
    return n


def _counts(ep: Endpoint, managed: frozenset[str] | None, owner_id: str) -> bool:
    """`count_existing`'s rule for one record."""
    if is_ownership_txt(ep):
        return False
    if managed is not None and ep.record_type not in managed:
        return False
    return not owner_id or ep.is_owned_by(owner_id)


def _is_apex(name: str, zone: str) -> bool:
    return bool(zone) and normalize_zone(name) == zone


def touches_root_ns(zone: str | None, changes: Changes) -> bool:
    """True when any change (create, either side of an update, delete) is the apex NS of `zone`."""
    z = normalize_zone(zone or "")
    return any(ep.record_type == RECORD_TYPE_NS and _is_apex(ep.dns_name, z) for ep in changes.all_endpoints())


@dataclass(frozen=True)
class Verdict:
    """The outcome of one zone's check: every problem found (first = the one raised), and the counts."""

    zone: str
    creates: int
    updates: int
    deletes: int
    existing: int
    thresholds: Thresholds
    problems: tuple[UnsafePlanError, ...] = ()
    forced: bool = False

    @property
    def safe(self) -> bool:
        return not self.problems

    def raise_if_unsafe(self) -> None:
        if self.problems:
            raise self.problems[0]


def assess(zone: str | None, changes: Changes, existing_count: int, thresholds: Thresholds, *,
           force: bool = False, zone_exists: bool = True, deletes_exempt: bool = False,
           guard_wipe: bool = True) -> Verdict:
    """Check one zone's plan (pure: no logging, no metrics). `existing_count` is `count_existing(...)` of
    the zone's current records. With `force` the problems are not looked for; with `deletes_exempt` the
    deletes are not held against the delete threshold (they are the point of the plan: a DNSRecord removing
    its own records as it is deleted); `guard_wipe` False: a plan deleting every record it counts is no
    wipe (a DNSRecord's plan counts its own records only)."""
    name = zone or ""
    updates, deletes = len(changes.update_new), len(changes.delete)
    problems: list[UnsafePlanError] = []
    if not force:
        # Small zones are not percentage-checked; creates never count; the comparison is strictly greater,
        # and updates are reported before deletes (octoDNS's order).
        if existing_count > 0 and existing_count >= thresholds.min_existing:
            if updates / existing_count > thresholds.update:
                problems.append(TooMuchChangeError(name, REASON_TOO_MANY_UPDATES, updates, existing_count,
                                                   thresholds.update))
            if not deletes_exempt and deletes / existing_count > thresholds.delete:
                problems.append(TooMuchChangeError(name, REASON_TOO_MANY_DELETES, deletes, existing_count,
                                                   thresholds.delete))
        # The apex NS of an existing zone is refused whatever the zone's size.
        if zone_exists and touches_root_ns(name, changes):
            problems.append(RootNsChangeError(name))
        # So is a plan that leaves none of our records in the zone (deletes are our records only: the plan
        # filters them by owner), unless it also creates some: a source that reads as empty creates none.
        if guard_wipe and not deletes_exempt and 0 < existing_count <= deletes and not changes.create:
            problems.append(DeletesAllError(name, deletes, existing_count))
    return Verdict(zone=name, creates=len(changes.create), updates=updates, deletes=deletes,
                   existing=existing_count, thresholds=thresholds, problems=tuple(problems), forced=force)


def check_zone(config: SafetyConfig, zone: str | None, changes: Changes, current: Iterable[Endpoint], *,
               owner_id: str = "", managed_record_types: Iterable[str] | None = None,
               zone_exists: bool = True, deletes_exempt: bool = False, guard_wipe: bool = True) -> Verdict:
    """`assess` with the zone's thresholds from `config` and the denominator counted from `current`."""
    existing = count_existing(current, owner_id, managed_record_types)
    return assess(zone, changes, existing, config.for_zone(zone), force=config.force, zone_exists=zone_exists,
                  deletes_exempt=deletes_exempt, guard_wipe=guard_wipe)
