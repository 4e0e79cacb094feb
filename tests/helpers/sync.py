"""One `--once`-style sync through the real pipeline (static desired endpoints -> TXT registry -> plan ->
provider), as the tests of records the owner did not write run it, with the log lines it wrote."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

from structlog.testing import capture_logs

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.provider import Provider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.wrappers import MultiSource
from tests.helpers.sources import StaticSource

Logs = list[MutableMapping[str, Any]]


def sync(provider: Provider, desired: Sequence[Endpoint], managed: Sequence[str] = ("A", "AAAA", "CNAME"),
         owner_id: str = "owner-27") -> Logs:
    """Sync `desired` (copies) with policy `sync` and the TXT registry; raises RunOnceError as `--once` fails."""
    registry = TXTRegistry(provider, owner_id=owner_id, managed_record_types=managed)
    controller = Controller(MultiSource([StaticSource([ep.copy() for ep in desired])]), registry, "sync",
                            managed_record_types=list(managed))
    with capture_logs() as logs:
        controller.run_once()
    return logs
