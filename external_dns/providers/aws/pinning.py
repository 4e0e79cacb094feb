"""`aws/hosted-zone-id`: pinning a record to one Route53 hosted zone, as external-dns.

A name can fall into several hosted zones (every private zone holding it and the longest public one); a record
with the provider-specific property `aws/hosted-zone-id` (annotation `external-dns.alpha.kubernetes.io/aws-
hosted-zone-id`, or a DNSEndpoint's providerSpecific) is written to that zone only. Its ownership TXT record
follows it (found through the TXT's `ownedRecord` label).

The pin is a write directive, not something Route53 stores: `take()` removes it from the desired records in
`adjust_endpoints` (so they compare equal to what `records()` reads back, and a pinned record plans no update
every sync) and remembers it by (name, set identifier); `restrict()` applies it when changes are written.
A pin naming a zone that does not hold the name is logged and the record is not written anywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import structlog

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.names import name_key
from external_dns.providers.aws.zones import HostedZone, bare_zone_id

log = structlog.get_logger(__name__)

HOSTED_ZONE_ID = "aws/hosted-zone-id"


def _key(name: str, set_identifier: str) -> tuple[str, str]:
    return name_key(name), set_identifier


class ZonePins:
    """(name, set identifier) -> bare hosted zone id, replaced on every `take()` (one per sync)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pins: dict[tuple[str, str], str] = {}

    def take(self, endpoints: Sequence[Endpoint]) -> list[Endpoint]:
        """The endpoints without the pin property (copies where it was set); the pins are remembered."""
        pins: dict[tuple[str, str], str] = {}
        out: list[Endpoint] = []
        for ep in endpoints:
            value = ep.get_provider_specific_property(HOSTED_ZONE_ID)
            if value is None:
                out.append(ep)
                continue
            copy = ep.copy()
            copy.delete_provider_specific_property(HOSTED_ZONE_ID)
            if value.strip():
                pins[_key(ep.dns_name, ep.set_identifier)] = bare_zone_id(value.strip())
            out.append(copy)
        with self._lock:
            self._pins = pins
        return out

    def pinned(self, ep: Endpoint) -> str | None:
        name = ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name
        with self._lock:
            return self._pins.get(_key(name, ep.set_identifier))

    def restrict(self, ep: Endpoint, zones: list[HostedZone]) -> list[HostedZone]:
        """The zones `ep` is written to: the pinned one only, when pinned (nothing if it does not hold it)."""
        zone_id = self.pinned(ep)
        if zone_id is None:
            return zones
        chosen = [z for z in zones if z.id == zone_id]
        if not chosen:
            log.warning(f"{HOSTED_ZONE_ID}={zone_id} names no managed hosted zone holding {ep.dns_name}; "
                        "record not written", dns_name=ep.dns_name, hosted_zone_id=zone_id,
                        zones=[z.id for z in zones])
        return chosen
