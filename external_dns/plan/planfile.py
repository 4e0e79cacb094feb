"""The two-phase plan file: what `external-dns plan --plan-file PATH` writes and `external-dns apply PATH`
runs (JSON, sorted keys: kind, version, created, owner_id, provider, registry, zones, plan_checksum), with
a checksum over the plan and one over each zone's provider state, so the reviewed plan is exactly what
runs or nothing does."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.plan.changes import Changes

MAX_PLAN_FILE_CHARS = 256 * 1024 * 1024  # a plan file is read whole: bound it

KIND = "external-dns-plan"
VERSION = 1
_PREFIX = "sha256:"


class PlanFileError(Exception):
    """The plan file cannot be used: unreadable, malformed, modified, or made for another owner/provider."""


class StalePlanError(Exception):
    """A zone's provider records changed since the plan was made."""

    def __init__(self, zone: str, expected: str, actual: str) -> None:
        super().__init__(f"zone {zone or '(all)'} changed since the plan was made (provider state {actual}, "
                         f"plan was computed from {expected}): make a new plan")
        self.zone = zone
        self.expected = expected
        self.actual = actual


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _digest(data: Any) -> str:
    return _PREFIX + hashlib.sha256(_canonical(data)).hexdigest()


_STATE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _endpoint_state(ep: Endpoint) -> str:
    """One record as a canonical JSON array: name (lower-case, no trailing dot), type, set identifier, TTL,
    sorted targets, sorted labels, sorted provider-specific properties."""
    return _STATE_ENCODER.encode([
        name_key(ep.dns_name), ep.record_type, ep.set_identifier, ep.record_ttl, sorted(ep.targets),
        sorted(ep.labels.items()), sorted((p.name, p.value) for p in ep.provider_specific),
    ])


def state_checksum(records: Iterable[Endpoint]) -> str:
    """The SHA-256 of a zone's provider records as read when the plan was made (every record, ownership TXT
    included), independent of listing and target order. `apply` refuses a zone whose checksum moved."""
    lines = sorted(_endpoint_state(ep) for ep in records)
    return _PREFIX + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@dataclass
class PlannedZone:
    """One zone of a plan file: its `changes` (external-dns Changes JSON, exactly what the registry will be
    given), the `existing` count of the safety check, and the zone's `state_checksum`."""

    changes: Changes
    existing: int
    state_checksum: str


@dataclass
class PlanFile:
    """A plan as written by `plan` and read by `apply`."""

    owner_id: str
    provider: str
    registry: str
    zones: dict[str, PlannedZone] = field(default_factory=dict)
    created: str = ""

    def body(self) -> dict[str, Any]:
        """Every checksummed field."""
        return {
            "kind": KIND,
            "version": VERSION,
            "owner_id": self.owner_id,
            "provider": self.provider,
            "registry": self.registry,
            "zones": {
                name: {"changes": z.changes.to_json(), "existing": z.existing, "state_checksum": z.state_checksum}
                for name, z in sorted(self.zones.items())
            },
        }

    def plan_checksum(self) -> str:
        """SHA-256 of the canonical JSON of every field but `created` and the checksum itself: an edited
        file fails to load. A checksum, not a signature: it catches edits and corruption, not someone who
        recomputes it."""
        return _digest(self.body())

    def dumps(self) -> str:
        created = self.created or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = self.body()
        doc = {**body, "created": created, "plan_checksum": _digest(body)}
        return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"

    def check_identity(self, owner_id: str, provider: str) -> None:
        """PlanFileError when the plan was made for another owner ID or provider."""
        if self.owner_id != owner_id:
            raise PlanFileError(f"plan file was made for owner ID {self.owner_id!r}, not {owner_id!r} "
                                f"(--txt-owner-id)")
        if self.provider != provider:
            raise PlanFileError(f"plan file was made for provider {self.provider!r}, not {provider!r} (--provider)")

    def check_state(self, current_by_zone: Mapping[str, Iterable[Endpoint]]) -> None:
        """StalePlanError for the first zone (by name) whose records no longer match the plan's state."""
        for name, zone in sorted(self.zones.items()):
            actual = state_checksum(current_by_zone.get(name, ()))
            if actual != zone.state_checksum:
                raise StalePlanError(name, zone.state_checksum, actual)


def _require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PlanFileError(f"{where}: field {key!r} is missing or not a {kind.__name__}")
    return value


def loads(text: str, where: str = "plan file") -> PlanFile:
    """Parse and verify a plan file's text; PlanFileError naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanFileError(f"{where} is not valid JSON: {exc}") from None
    except RecursionError:  # hostile nesting: the decoder recurses once per level
        raise PlanFileError(f"{where} is not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise PlanFileError(f"{where} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PlanFileError(f"{where} is not a JSON object")
    if data.get("kind") != KIND:
        raise PlanFileError(f"{where} is not an external-dns plan (kind {data.get('kind')!r}, expected {KIND!r})")
    if data.get("version") != VERSION:
        raise PlanFileError(f"{where} has unsupported version {data.get('version')!r} (expected {VERSION})")
    zones_raw = _require(data, "zones", dict, where)
    zones: dict[str, PlannedZone] = {}
    for name, raw in zones_raw.items():
        zwhere = f"{where}: zone {name!r}"
        if not isinstance(raw, dict):
            raise PlanFileError(f"{zwhere} is not a JSON object")
        try:
            changes = Changes.from_json(_require(raw, "changes", dict, zwhere))
        except (ValueError, TypeError, KeyError) as exc:
            raise PlanFileError(f"{zwhere}: invalid changes: {exc}") from None
        if len(changes.update_old) != len(changes.update_new):
            raise PlanFileError(f"{zwhere}: updateOld and updateNew differ in length")
        zones[name] = PlannedZone(changes=changes, existing=_require(raw, "existing", int, zwhere),
                                  state_checksum=_require(raw, "state_checksum", str, zwhere))
    plan = PlanFile(owner_id=_require(data, "owner_id", str, where), provider=_require(data, "provider", str, where),
                    registry=_require(data, "registry", str, where), zones=zones,
                    created=str(data.get("created", "")))
    stored = data.get("plan_checksum")
    if stored != plan.plan_checksum():
        raise PlanFileError(f"{where} was modified after it was made (plan_checksum {stored!r} does not match "
                            f"its contents): make a new plan")
    return plan


def load(path: str) -> PlanFile:
    """Read and verify the plan file at `path`; PlanFileError naming the path."""
    try:
        if not os.path.isfile(path) and os.path.exists(path):  # a FIFO or device would block or never end
            raise OSError("not a regular file")
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_PLAN_FILE_CHARS + 1)
        if len(text) > MAX_PLAN_FILE_CHARS:
            raise OSError(f"larger than {MAX_PLAN_FILE_CHARS} characters")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanFileError(f"cannot read plan file {path}: {exc}") from None
    return loads(text, f"plan file {path}")
