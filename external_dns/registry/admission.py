"""Admission of desired endpoints by the TXT registry: a record is created only when its ownership record can
exist too.

A record written without its ownership TXT is an orphan nobody can clean up later (no owner is ever read for
it). `admit_owned(endpoints, mapper, zones)` drops, with a warning naming the object, the field and why,
every endpoint whose ownership TXT name (from the `AffixNameMapper`)
- is not a usable DNS name: a label over 63 octets (`a-` + a 62-63 character label) or a name over 253 octets
  (a 252-character name plus the `a-` type prefix), or
- falls outside the record's own zone and every other managed zone: the apex `example.org` maps to
  `a-example.org`, which is in the parent zone. A `--txt-prefix` ending with `.` and carrying `%{record_type}` (`%{record_type}.`) keeps the
  apex's ownership record inside the zone.
The noop registry keeps no ownership records and admits everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import ascii_name_problem, describe, endpoint_ref, short
from external_dns.endpoint.zones import normalize_zone, zone_finder, zone_for_name
from external_dns.registry.mapper import AffixNameMapper

log = structlog.get_logger(__name__)


def ownership_problem(ep: Endpoint, mapper: AffixNameMapper, zones: Sequence[str],
                      find: Callable[[str], str | None] | None = None) -> str | None:
    """Why the ownership record of `ep` cannot exist (None when it can). `find`: `zone_finder(zones)`, for
    callers asking about many endpoints."""
    txt_name = mapper.to_txt_name(ep.dns_name, ep.record_type)
    problem = ascii_name_problem(txt_name, "ownership TXT name", star_in_labels=True)
    if problem is not None:
        return f"{problem}; the record would be created without an owner, so it is not created"
    zone = find(ep.dns_name) if find is not None else zone_for_name(ep.dns_name, zones)
    if zone is None or not zone:
        return None
    bare, zone_key = normalize_zone(txt_name), normalize_zone(zone)
    if bare == zone_key or bare.endswith("." + zone_key):
        return None  # in the record's own zone (the common case): no search of the other zones needed
    if (find(txt_name) if find is not None else zone_for_name(txt_name, zones)) is None:  # in another managed zone (the parent's) it can still be written
        return (f"its ownership TXT record {short(txt_name)} would fall outside the zone {zone!r}; the record would "
                "be created without an owner, so it is not created (a --txt-prefix such as '%{record_type}.' "
                "keeps apex ownership records inside the zone)")
    return None


def affix_problem(prefix: str, suffix: str, wildcard_replacement: str = "") -> str | None:
    """Why `--txt-prefix` / `--txt-suffix` / `--txt-wildcard-replacement` cannot make valid ownership names
    (None when they can): tried on `www.example.org` and `*.example.org` records of every type; and names that
    two records would share (`AffixNameMapper.collision`: a record's ownership would be read back as another's)."""
    mapper = AffixNameMapper(prefix, suffix, wildcard_replacement)
    shared = mapper.collision()
    if shared is not None:
        (name1, type1), (name2, type2), txt_name = shared
        flag, value = ("--txt-suffix", suffix) if suffix else ("--txt-prefix", prefix)
        return (f"{flag}={value!r} makes ownership record names that two records share ({name1} {type1} and "
                f"{name2} {type2} would both use {txt_name}, so one's ownership would be read as the other's): "
                f"put a character that no record type holds between %{{record_type}} and the name, e.g. "
                f"{'%{record_type}-' if not suffix else '-%{record_type}'}")
    for name in ("www.example.org", "*.example.org"):
        for rtype in ("A", "CNAME"):
            txt_name = mapper.to_txt_name(name, rtype)
            problem = ascii_name_problem(txt_name, "ownership TXT name", star_in_labels=True)
            if problem is not None:
                flag = "--txt-wildcard-replacement" if name.startswith("*") and wildcard_replacement else (
                    "--txt-suffix" if suffix else "--txt-prefix")
                return f"{flag} makes invalid ownership record names: {problem}"
    return None


def admit_owned(endpoints: Iterable[Endpoint], mapper: AffixNameMapper, zones: Sequence[str]) -> list[Endpoint]:
    """`endpoints` without those whose ownership record cannot exist (each logged once per call)."""
    out: list[Endpoint] = []
    find = zone_finder(zones)
    for ep in endpoints:
        problem = ownership_problem(ep, mapper, zones, find)
        if problem is None:
            out.append(ep)
            continue
        log.warning(f"Skipping endpoint {describe(ep)}: {problem}", object=endpoint_ref(ep), field="dnsName",
                    reason=problem)
    return out
