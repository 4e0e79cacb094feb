"""Fixtures for the RFC2136 tests: a provider bound to the session's BIND, zones emptied before each test; `cfg`, a
configuration for the tests that need no server."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.rfc2136.provider import UPDATE_MESSAGES
from tests.servers.bind import BindServer

SECRET = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="


def cfg(**kw: object) -> RFC2136Config:
    base: dict[str, object] = {"hosts": ("127.0.0.1",), "port": 53, "zones": ("example.org",),
                               "tsig_keyname": "k", "tsig_secret": SECRET}
    base.update(kw)
    return RFC2136Config(**base)  # type: ignore[arg-type]


def make_config(srv: BindServer, **overrides: Any) -> RFC2136Config:
    base: dict[str, Any] = {
        "hosts": (srv.host,),
        "port": srv.port,
        "zones": srv.zones,
        "tsig_keyname": srv.key_name,
        "tsig_secret": srv.key_secret,
        "tsig_secret_alg": srv.key_algorithm,
        "axfr": True,
        "timeout": 5.0,
    }
    base.update(overrides)
    return RFC2136Config(**base)


@pytest.fixture
def clean_bind(bind_server: BindServer) -> Generator[BindServer, None, None]:
    bind_server.reset()
    yield bind_server


@pytest.fixture
def make_provider(clean_bind: BindServer) -> Callable[..., RFC2136Provider]:
    def factory(**overrides: Any) -> RFC2136Provider:
        return RFC2136Provider(make_config(clean_bind, **overrides))

    return factory


@pytest.fixture
def provider(make_provider: Callable[..., RFC2136Provider]) -> RFC2136Provider:
    return make_provider()


def sent_messages() -> float:
    """UPDATE messages sent so far (all zones, all answer codes)."""
    total = 0.0
    for metric in UPDATE_MESSAGES.collect():
        for sample in metric.samples:
            if sample.name.endswith("_total"):
                total += sample.value
    return total
