"""Endpoint list helpers shared by sources, registries and the plan (external-dns `endpoint/utils.go` and
the list functions of `endpoint/endpoint.go`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import structlog

from external_dns.endpoint.endpoint import (
    OWNER_LABEL_KEY,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_DNAME,
    RESOURCE_LABEL_KEY,
    Endpoint,
    ProviderSpecificProperty,
    new_endpoint,
)
from external_dns.endpoint.targets import Targets, parse_ip

log = structlog.get_logger(__name__)


def suitable_type(target: str) -> str:
    """A for an IPv4 address, AAAA for an IPv6 address, CNAME for anything else."""
    addr = parse_ip(target)
    if addr is None:
        return RECORD_TYPE_CNAME
    return RECORD_TYPE_A if addr.version == 4 else RECORD_TYPE_AAAA


def endpoints_for_hostname(
    hostname: str,
    targets: Iterable[str],
    ttl: int = 0,
    provider_specific: Sequence[ProviderSpecificProperty] = (),
    set_identifier: str = "",
    resource: str = "",
) -> list[Endpoint]:
    """One endpoint per record type (in order A, AAAA, CNAME) holding the targets suitable for it, each with
    the provider-specific properties (copied), set identifier and, when given, the `resource` label."""
    by_type: dict[str, list[str]] = {}
    for t in targets:
        by_type.setdefault(suitable_type(t), []).append(t)
    out: list[Endpoint] = []
    for rtype in (RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_CNAME):
        if not by_type.get(rtype):
            continue
        ep = new_endpoint(hostname, rtype, *by_type[rtype], ttl=ttl)
        if ep is None:
            continue
        ep.provider_specific = [ProviderSpecificProperty(p.name, p.value) for p in provider_specific]
        ep.set_identifier = set_identifier
        if resource:
            ep.labels[RESOURCE_LABEL_KEY] = resource
        out.append(ep)
    return out


def filter_endpoints_by_owner_id(owner_id: str, endpoints: Iterable[Endpoint]) -> list[Endpoint]:
    """The endpoints whose `owner` label exists and equals `owner_id` (others are debug-logged)."""
    out: list[Endpoint] = []
    for ep in endpoints:
        owner = ep.labels.get(OWNER_LABEL_KEY)
        if owner is None:
            log.debug(f'Skipping endpoint {ep} because of missing owner label (required: "{owner_id}")')
        elif owner != owner_id:
            log.debug(
                f'Skipping endpoint {ep} because owner id does not match (found: "{owner}", required: "{owner_id}")'
            )
        else:
            out.append(ep)
    return out


def remove_duplicates(endpoints: Iterable[Endpoint]) -> list[Endpoint]:
    """The first endpoint per key (dns_name, record_type, set_identifier); targets are not compared."""
    seen: set[tuple[str, str, str]] = set()
    out: list[Endpoint] = []
    for ep in endpoints:
        key = (ep.dns_name, ep.record_type, ep.set_identifier)
        if key in seen:
            log.debug(f"Skipping duplicated endpoint: {ep}")
            continue
        seen.add(key)
        out.append(ep)
    return out


def merge_endpoints(endpoints: Iterable[Endpoint], copy: bool = True) -> list[Endpoint]:
    """Merge endpoints sharing (dns_name, record_type, set_identifier, record_ttl) into one whose targets
    are the sorted, de-duplicated union; the first endpoint's metadata wins and ref_objects accumulate.

    CNAME and DNAME endpoints are additionally keyed by their first target (never merged: one canonical
    name per owner name), empty ones are skipped and a second, different target for the same name logs a
    warning. Output keeps first-seen order (Go: map order). Inputs are not modified, unless `copy=False`: the
    caller hands over endpoints it built for this call and never uses again, and the first of each key is
    then reused instead of copied.
    """
    merged: dict[tuple[str, str, str, int, str], Endpoint] = {}
    single_targets: dict[tuple[str, str, str], str] = {}
    for ep in endpoints:
        target_key = ""
        if ep.record_type in (RECORD_TYPE_CNAME, RECORD_TYPE_DNAME):
            if not ep.targets:
                log.debug(f"Skipping {ep.record_type} endpoint {ep.dns_name} with no targets")
                continue
            target_key = ep.targets[0]
            skey = (ep.dns_name, ep.record_type, ep.set_identifier)
            first = single_targets.get(skey)
            if first is not None and first != target_key:
                log.warning(
                    f"Only one {ep.record_type} per name — {ep.dns_name} {ep.record_type} {first} and "
                    f"{ep.dns_name} {ep.record_type} {target_key} is invalid DNS. A resolver wouldn't know "
                    "which canonical name to follow."
                )
            single_targets[skey] = target_key
        key = (ep.dns_name, ep.record_type, ep.set_identifier, ep.record_ttl, target_key)
        existing = merged.get(key)
        if existing is None:
            merged[key] = ep.copy() if copy else ep
        else:
            existing.targets.extend(ep.targets)
            for ref in ep.ref_objects:
                if not any(ref is r for r in existing.ref_objects):
                    existing.ref_objects.append(ref)
    out = list(merged.values())
    for ep in out:
        ep.targets = Targets(sorted(set(ep.targets)))
    return out
