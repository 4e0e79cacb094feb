"""A tiny dict-backed provider for registry tests: strict like real DNS servers (a create of an existing
record fails; a delete or update-old must name the record with exactly its stored targets)."""

from __future__ import annotations

from collections.abc import Callable

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.provider import Provider, ProviderError
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints

Key = tuple[str, str, str]


class DictProvider(Provider):
    def __init__(self, records: list[Endpoint] | None = None) -> None:
        self.store: dict[Key, Endpoint] = {}
        self.reads = 0
        self.applied: list[Changes] = []
        self.fail_next = False
        for ep in records or []:
            self.store[self._key(ep)] = ep.copy()

    @staticmethod
    def _key(ep: Endpoint) -> Key:
        return (ep.dns_name.lower(), ep.record_type, ep.set_identifier)

    def records(self) -> list[Endpoint]:
        self.reads += 1
        return [ep.copy() for ep in self.store.values()]

    def apply_changes(self, changes: Changes) -> None:
        self.applied.append(changes)
        if self.fail_next:
            self.fail_next = False
            raise ProviderError("injected failure")
        for ep in [*changes.delete, *changes.update_old]:
            stored = self.store.get(self._key(ep))
            if stored is None or list(stored.targets) != list(ep.targets):
                raise ProviderError(f"record not found (value mismatch): {ep}")
        for ep in changes.create:
            if self._key(ep) in self.store:
                raise ProviderError(f"record already exists: {ep}")
        for ep in [*changes.delete, *changes.update_old]:
            self.store.pop(self._key(ep), None)
        for ep in [*changes.create, *changes.update_new]:
            self.store[self._key(ep)] = ep.copy()

    def get(self, name: str, rtype: str, set_id: str = "") -> Endpoint | None:
        return self.store.get((name.lower(), rtype, set_id))

    def names(self, rtype: str) -> set[str]:
        return {k[0] for k in self.store if k[1] == rtype}


def ep(name: str, rtype: str, *targets: str, owner: str | None = None, resource: str | None = None,
       set_id: str = "", **props: str) -> Endpoint:
    """An endpoint with optional owner / resource labels and provider-specific properties (`alias="true"`;
    `__` in a name stands for `/`)."""
    return endpoints.ep(name, rtype, *targets, set_id=set_id, owner=owner, resource=resource,
                        provider_specific=[(k.replace("__", "/"), v) for k, v in props.items()])


def txt(name: str, value: str, set_id: str = "") -> Endpoint:
    return Endpoint(dns_name=name, record_type="TXT", targets=Targets([value]), set_identifier=set_id)


def owner_txt(owner: str, resource: str | None = None) -> str:
    value = f"heritage=external-dns,external-dns/owner={owner}"
    if resource:
        value += f",external-dns/resource={resource}"
    return f'"{value}"'


def plan_cycle(reg: TXTRegistry, desired: list[Endpoint], read: Callable[[TXTRegistry], list[Endpoint]]) -> Changes:
    """One controller cycle over `reg`: `read` its records (all, or a zone's), plan `desired` (sync), apply."""
    plan = Plan(current=read(reg), desired=desired, policies=["sync"], owner_id=reg.owner_id()).calculate()
    if plan.changes.has_changes():
        reg.apply_changes(plan.changes)
    return plan.changes


def reads(zone: str) -> dict[str, Callable[[TXTRegistry], list[Endpoint]]]:
    """The registry's two ways of reading ownership: the full read and `zone`'s per-zone map."""
    return {"full": lambda reg: reg.records(), "zone": lambda reg: reg.zone_records(zone)}
