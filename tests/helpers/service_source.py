"""A minimal in-cluster Service source for tests and benchmarks that must not depend on `--source=service`:
the shared Service informer's cache through the Service object logic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.informers import SERVICES, ResourceEventHandlerFuncs
from external_dns.sources.objects.service import service_endpoints
from external_dns.sources.options import SourceOptions
from external_dns.sources.source import Source


class ServiceInformerSource(Source):
    """Endpoints of every Service in the factory's Service informer; every informer event calls the
    registered handlers."""

    def __init__(self, factory: Any) -> None:
        self.informer = factory.informer_for(SERVICES)
        self.options = SourceOptions()
        self.handlers: list[Callable[[], None]] = []
        self.informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=lambda _o: self._notify(), on_update=lambda _o, _n: self._notify(),
            on_delete=lambda _o: self._notify()))

    def _notify(self) -> None:
        for handler in self.handlers:
            handler()

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.handlers.append(handler)

    def endpoints(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        for svc in self.informer.get_store().list():
            out.extend(service_endpoints(svc, self.options).endpoints)
        return out
