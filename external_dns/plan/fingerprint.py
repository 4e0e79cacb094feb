"""`fingerprint(endpoints)`: one digest of what a row's endpoints ask for or hold (names, types, set
identifiers, targets, TTLs, labels, provider-specific properties), whatever their order. The one answer to
"did this name's row change?": for the desired endpoints of event-sized reconciles (controller/dirty.py) and
for the labelled records of the TXT registry's zone journal (registry/zone_owners.py)."""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import blake2b

from external_dns.endpoint.endpoint import Endpoint


def fingerprint(endpoints: Sequence[Endpoint]) -> bytes:
    """A 16-byte digest of `endpoints` (order-independent)."""
    items = [(e.dns_name, e.record_type, e.set_identifier, tuple(e.targets), e.record_ttl,
              tuple(sorted(e.labels.items())), tuple([(p.name, p.value) for p in e.provider_specific]))
             for e in endpoints]
    if len(items) > 1:
        items.sort()
    return blake2b(repr(items).encode(), digest_size=16).digest()
