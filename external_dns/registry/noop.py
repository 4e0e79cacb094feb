"""The noop registry: passes records and changes straight through to the provider, tracks no ownership.

`owner_id()` is "", which turns off the plan's owner filtering (external-dns `registry/noop`).
"""

from __future__ import annotations

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.registry.registry import Registry


class NoopRegistry(Registry):
    """A registry without ownership records."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def __repr__(self) -> str:
        return f"NoopRegistry(provider={type(self.provider).__name__})"

    def records(self) -> list[Endpoint]:
        return self.provider.records()

    def apply_changes(self, changes: Changes) -> None:
        self.provider.apply_changes(changes)

    def owner_id(self) -> str:
        return ""
