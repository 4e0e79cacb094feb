"""What the SaaS provider tests (cloudflare/, google/, azure/) share: endpoints with a resource label, and one
sync through the real TXT registry and controller (as the CLI runs it)."""

from __future__ import annotations

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source

MANAGED = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS"]
HERITAGE = '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web"'


class StaticSource(Source):
    def __init__(self, endpoints: list[Endpoint]) -> None:
        self.items = endpoints

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self.items]


def ep(name: str, rtype: str, *targets: str, ttl: int = 0, props: dict[str, str] | None = None) -> Endpoint:
    out = Endpoint(dns_name=name, record_type=rtype, targets=Targets(targets), record_ttl=ttl,
                   labels={"resource": "service/default/web"})
    for key, value in (props or {}).items():
        out.set_provider_specific_property(key, value)
    return out


def sync(provider: Provider, desired: list[Endpoint], owner: str = "default") -> Changes:
    """One run_once of `desired` against `provider`; raises RunOnceError when the provider failed."""
    registry = TXTRegistry(provider, owner_id=owner, managed_record_types=MANAGED)
    controller = Controller(StaticSource(desired), registry, "sync", managed_record_types=MANAGED,
                            domain_filter=provider.get_domain_filter())
    return controller.run_once().changes
