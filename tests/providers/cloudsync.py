"""What the SaaS provider tests (cloudflare/, google/, azure/) share: endpoints with a resource label, and one
sync through the real TXT registry and controller (as the CLI runs it)."""

from __future__ import annotations

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.registry.txt import TXTRegistry
from tests.helpers.endpoints import ep as _ep
from tests.helpers.sources import StaticSource

MANAGED = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS"]
HERITAGE = '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web"'


def ep(name: str, rtype: str, *targets: str, ttl: int = 0, props: dict[str, str] | None = None) -> Endpoint:
    """An endpoint of the Service default/web, with provider-specific properties `props`."""
    return _ep(name, rtype, *targets, ttl=ttl, resource="service/default/web",
               provider_specific=(props or {}).items())


def sync(provider: Provider, desired: list[Endpoint], owner: str = "default") -> Changes:
    """One run_once of `desired` against `provider`; raises RunOnceError when the provider failed."""
    registry = TXTRegistry(provider, owner_id=owner, managed_record_types=MANAGED)
    controller = Controller(StaticSource(desired), registry, "sync", managed_record_types=MANAGED,
                            domain_filter=provider.get_domain_filter())
    return controller.run_once().changes
