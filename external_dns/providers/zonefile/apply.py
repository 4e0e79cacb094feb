"""A batch of changes applied to zone files' record sets: `route_changes` splits the batch by zone file,
`validate_and_apply` checks a zone's part with the in-memory provider's rules and messages (`record already
exists`, `record not found`, `invalid batch request`; a CNAME never shares its name with other data), then
applies it to a copy of the zone's record sets. Nothing here touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import structlog

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.zones import normalize_zone
from external_dns.plan.changes import Changes
from external_dns.providers.errors import InvalidBatchRequestError, ProviderError, RecordNotFoundError
from external_dns.providers.provider import zone_for_name
from external_dns.providers.zonefile.targets import ZONEFILE_RECORD_TYPES, canonical_target, presentation_name
from external_dns.providers.zonetext import NAME_TERMINATED, Key, ZoneData

log = structlog.get_logger(__name__)


def describe(ep: Endpoint) -> str:
    return f"{ep.dns_name} {ep.record_type}"


@dataclass
class ZoneChanges:
    create: list[Endpoint]
    update_new: list[Endpoint]
    update_old: list[Endpoint]
    delete: list[Endpoint]

    def all(self) -> list[Endpoint]:
        return [*self.create, *self.update_new, *self.update_old, *self.delete]


def route_changes(changes: Changes, zones: list[str]) -> dict[str, ZoneChanges]:
    out: dict[str, ZoneChanges] = {}
    for attr in ("create", "update_new", "update_old", "delete"):
        for ep in getattr(changes, attr):
            if ep.set_identifier:
                raise InvalidBatchRequestError(f"{describe(ep)}: zone files have no set identifiers")
            zone = zone_for_name(ep.dns_name, zones)
            if zone is None:
                if attr == "create":
                    raise ProviderError(f"no zone file holds {ep.dns_name} (zones: {', '.join(zones) or 'none'})")
                raise RecordNotFoundError(f"{describe(ep)} (no zone file holds it)")
            zc = out.setdefault(zone, ZoneChanges([], [], [], []))
            getattr(zc, attr).append(ep)
    return out


def _new_rrset(ep: Endpoint, ttl: int, display: str) -> tuple[str, int, tuple[str, ...]]:
    try:
        targets = [canonical_target(ep.record_type, t) for t in ep.targets]
    except ValueError as exc:
        raise ProviderError(f"{describe(ep)}: {exc}") from None
    if not targets:
        raise ProviderError(f"{describe(ep)}: no targets")
    unique: dict[str, str] = {}
    for t in targets:
        # rdata equality: names compare case-insensitively, everything else exactly
        unique.setdefault(t.lower() if ep.record_type in NAME_TERMINATED else t, t)
    return (display, ep.record_ttl or ttl, tuple(unique.values()))


def validate_and_apply(data: ZoneData, zc: ZoneChanges, default_ttl: int, path: str) -> list[str]:
    """Check the zone's part of the batch (inmemory rules), then apply it to `data` (a copy). A record that
    would join, replace or sit beside a record this owner did not write (a create where its name and type are
    taken, a CNAME beside other data, data beside a CNAME) is refused with a warning, with the changes it
    travels with (its name's and its ownership TXT's: `_group_of`); the rest is applied. Returns the refused
    records (`<name> <type>`)."""
    rrsets = data.rrsets

    def key_of(ep: Endpoint) -> Key:
        return (normalize_zone(ep.dns_name), ep.record_type)

    def first_target_differs(targets: tuple[str, ...], ep: Endpoint) -> bool:
        if not ep.targets:
            return False
        have = {t.lower() for t in targets}
        try:
            return canonical_target(ep.record_type, ep.targets[0]).lower() not in have
        except ValueError:
            return True

    mesh: set[Key] = set()

    def once(ep: Endpoint) -> None:
        key = key_of(ep)
        if key in mesh:
            raise InvalidBatchRequestError(f"{describe(ep)} appears more than once")
        mesh.add(key)

    for ep in zc.create:
        if ep.record_type not in ZONEFILE_RECORD_TYPES:
            raise ProviderError(f"{describe(ep)}: record type not supported by the zonefile provider")
        once(ep)
    for ep in zc.update_new:
        if key_of(ep) not in rrsets:
            raise RecordNotFoundError(describe(ep))
        once(ep)
    for ep in [*zc.update_old, *zc.delete]:
        stored = rrsets.get(key_of(ep))
        if stored is None or first_target_differs(stored[2], ep):
            raise RecordNotFoundError(describe(ep))
    for ep in zc.delete:
        once(ep)

    refused = _refused_groups(data, zc, default_ttl, path, key_of)
    if refused:
        zc = ZoneChanges(*([ep for ep in eps if _group_of(ep) not in refused]
                           for eps in (zc.create, zc.update_new, zc.update_old, zc.delete)))
    for ep in zc.delete:
        data.delete(key_of(ep))
    every_type = data.types() | set(ZONEFILE_RECORD_TYPES)
    for ep, creating in _adds(zc):
        name, rtype = key_of(ep)
        if creating and (name, rtype) in rrsets:
            continue  # in place already (anything else was refused): left byte for byte as it is
        others = [t for t in every_type if t != rtype and (name, t) in rrsets]
        # a name keeps the spelling it has in the file
        display = rrsets[(name, others[0])][0] if others else presentation_name(ep.dns_name)
        display = name if display == name else display  # one string for key and spelling (20 MiB at 200k)
        old = rrsets.get((name, rtype))
        data.put((name, rtype), _new_rrset(ep, default_ttl, old[0] if old is not None else display))
    return sorted(refused_records for group in refused.values() for refused_records in group)


def _adds(zc: ZoneChanges) -> list[tuple[Endpoint, bool]]:
    """(endpoint, whether it is a create) of every change that writes a record set."""
    return [*((ep, False) for ep in zc.update_new), *((ep, True) for ep in zc.create)]


def _group_of(ep: Endpoint) -> str:
    """The changes that stand or fall together: a record, everything at its name and its ownership TXT."""
    return normalize_zone(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)


def _refused_groups(data: ZoneData, zc: ZoneChanges, default_ttl: int, path: str,
                    key_of: Callable[[Endpoint], Key]) -> dict[str, list[str]]:
    """group -> its records refused because the zone holds, at their names, records this owner did not write
    (each warned about); a create already in place is no conflict."""
    rrsets = data.rrsets
    gone = {key_of(ep) for ep in zc.delete}
    every_type = data.types() | set(ZONEFILE_RECORD_TYPES)
    refused: dict[str, list[str]] = {}
    added: dict[str, set[str]] = {}  # name -> types the batch's accepted writes put there (another group's)
    for ep, creating in _adds(zc):
        name, rtype = key_of(ep)
        others = sorted({t for t in every_type if t != rtype and (name, t) in rrsets and (name, t) not in gone}
                        | {t for t in added.get(name, ()) if t != rtype})
        why = ""
        if rtype == "CNAME" and others:
            why = f"the name also holds {', '.join(others)} (a CNAME must be alone; not written by this record)"
        elif "CNAME" in others:
            why = "the name holds a CNAME"
        elif creating and (name, rtype) in rrsets and (name, rtype) not in gone:
            old = rrsets[(name, rtype)]
            if sorted(old[2]) != sorted(_new_rrset(ep, default_ttl, old[0])[2]):
                why = f"a {rtype} record set of that name exists with other values"
        elif creating and rtype in added.get(name, ()):
            why = f"another record of this batch writes a {rtype} record set of that name"
        if not why:
            added.setdefault(name, set()).add(rtype)
            continue
        refused.setdefault(_group_of(ep), []).append(describe(ep))
        if not ep.labels.get(OWNED_RECORD_LABEL_KEY):
            log.warning(f"{path}: not writing {describe(ep)}: {why}; left as it is (with the changes at that name "
                        "and its ownership record)", record=describe(ep))
    return refused
