"""`aws/hosted-zone-id` pins a record (and its ownership TXT) to one hosted zone, against a real moto server;
the pin plans no update on the next sync; a pin naming a zone that does not hold the name writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import structlog

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.aws import AWSProvider
from external_dns.providers.aws.pinning import HOSTED_ZONE_ID
from external_dns.registry.txt import TXTRegistry
from tests.helpers.sources import StaticSource
from tests.providers.aws.conftest import E, by_name_type, create_zone

pytestmark = pytest.mark.integration
MANAGED = ("A", "AAAA", "CNAME", "TXT")


def controller(provider: AWSProvider, endpoints: list[Endpoint]) -> Controller:
    registry = TXTRegistry(provider, owner_id="default", managed_record_types=MANAGED)
    return Controller(StaticSource(endpoints), registry, "sync", managed_record_types=list(MANAGED))


def test_pinned_record_goes_to_its_zone_only(r53: Any, make_provider: Callable[..., AWSProvider]) -> None:
    public = create_zone(r53, "example.com")
    private = create_zone(r53, "example.com", private=True)
    provider = make_provider()
    desired = [E("pinned.example.com", "A", ["10.0.0.1"]).with_provider_specific(HOSTED_ZONE_ID, private),
               E("both.example.com", "A", ["10.0.0.2"])]
    assert controller(provider, desired).run_once().applied
    in_public, in_private = by_name_type(r53, public), by_name_type(r53, private)
    assert ("pinned.example.com", "A", "") in in_private and ("a-pinned.example.com", "TXT", "") in in_private
    assert ("pinned.example.com", "A", "") not in in_public and ("a-pinned.example.com", "TXT", "") not in in_public
    assert ("both.example.com", "A", "") in in_public and ("both.example.com", "A", "") in in_private
    # The pin is a write directive: reading back plans nothing.
    assert not controller(provider, desired).run_once().changes.has_changes()


def test_pin_to_a_zone_not_holding_the_name_writes_nothing(r53: Any,
                                                           make_provider: Callable[..., AWSProvider]) -> None:
    zone = create_zone(r53, "example.com")
    other = create_zone(r53, "example.org")
    provider = make_provider()
    desired = [E("web.example.com", "A", ["10.0.0.1"]).with_provider_specific(HOSTED_ZONE_ID, f"/hostedzone/{other}")]
    with structlog.testing.capture_logs() as logs:
        controller(provider, desired).run_once()
    assert ("web.example.com", "A", "") not in by_name_type(r53, zone)
    assert any("names no managed hosted zone holding web.example.com" in e["event"] for e in logs
               if e["log_level"] == "warning"), logs
