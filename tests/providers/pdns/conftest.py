"""Fixtures for the pdns provider tests: a provider pointed at the session's PowerDNS server (fast retries), and
`raw`: start misbehaving HTTP servers (tests/providers/pdns/rawhttp.py), stopped after the test; `sync` (one
TXT-registry run over given endpoints) and `patches` (the PATCH requests a server saw) for the provider tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from functools import partial

import pytest

from external_dns.controller.controller import Controller
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.pdns import PDNSConfig, PDNSProvider
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource
from tests.providers.pdns.rawhttp import Handler, RawServer
from tests.servers.pdns import PdnsServer

MANAGED = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA"]
ep = partial(endpoints.ep, resource="service/default/web")


def sync(provider: PDNSProvider, desired: list[Endpoint], owner: str = "default", **txt: str) -> Changes:
    registry = TXTRegistry(provider, owner_id=owner, managed_record_types=MANAGED, **txt)  # type: ignore[arg-type]
    controller = Controller(StaticSource(desired), registry, "sync", managed_record_types=MANAGED,
                            domain_filter=provider.get_domain_filter())
    return controller.run_once().changes


def patches(srv: PdnsServer, mark: int) -> list[tuple[str, str, int]]:
    return [r for r in srv.requests_since(mark) if r[0] == "PATCH"]


def make_provider(srv: PdnsServer, domain_filter: DomainFilter | None = None, **overrides: object) -> PDNSProvider:
    settings: dict[str, object] = {"server": srv.url, "api_key": srv.api_key, "retry_base": 0.01,
                                   "zones_cache_seconds": 0.0}
    settings.update(overrides)
    return PDNSProvider(PDNSConfig(domain_filter=domain_filter or DomainFilter(), **settings))  # type: ignore[arg-type]


@pytest.fixture
def provider(pdns: PdnsServer) -> Generator[PDNSProvider, None, None]:
    p = make_provider(pdns)
    yield p
    p.close()


@pytest.fixture
def raw() -> Generator[Callable[[Handler], RawServer], None, None]:
    servers: list[RawServer] = []

    def start(handler: Handler) -> RawServer:
        srv = RawServer(handler)
        t = threading.Thread(target=srv.serve, daemon=True)
        srv.threads.append(t)
        t.start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop.set()
        for t in srv.threads:
            t.join(5)
        srv.sock.close()
