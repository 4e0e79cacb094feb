"""The per-record TXT registry: external-dns' `TXTRegistry`, configured with dns-operator's TXT names.

A DNSRecord's records are owned by its owner ID; the ownership TXT of `app.example.com A` is
`kuadrant-<base36hash(ownerID, 8)>-a-app.example.com` (prefix `kuadrant-<hash>-`, then the external-dns
`<type>-` on the first label; wildcard `*` replaced by `wildcard`). Another owner's TXT names carry another
hash, so they never parse as ours, and records owned by anyone else (other DNSRecords, the zone-wide
controller's `--txt-owner-id`) are never updated or deleted by the plan's owner filter.
"""

from __future__ import annotations

from external_dns.controller.dnsrecord.types import base36_hash
from external_dns.endpoint.endpoint import (
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_MX,
    RECORD_TYPE_NS,
    RECORD_TYPE_SRV,
    RECORD_TYPE_TXT,
)
from external_dns.providers.provider import Provider
from external_dns.registry.txt import TXTRegistry

TXT_PREFIX = "kuadrant-"
WILDCARD_REPLACEMENT = "wildcard"
# dns-operator manages A, AAAA, CNAME and NS; TXT, MX and SRV endpoints are served too.
MANAGED_RECORD_TYPES = (RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_CNAME, RECORD_TYPE_NS, RECORD_TYPE_TXT,
                        RECORD_TYPE_MX, RECORD_TYPE_SRV)


def txt_prefix(owner_id: str) -> str:
    """`kuadrant-<base36hash(owner_id, 8)>-`."""
    return f"{TXT_PREFIX}{base36_hash(owner_id, 8)}-"


def record_registry(provider: Provider, owner_id: str) -> TXTRegistry:
    """A TXT registry owned by `owner_id` with dns-operator's TXT name format (fresh per reconcile: it keeps
    the TXT values it read for the write that follows)."""
    return TXTRegistry(provider, prefix=txt_prefix(owner_id), owner_id=owner_id,
                       wildcard_replacement=WILDCARD_REPLACEMENT, managed_record_types=MANAGED_RECORD_TYPES)
