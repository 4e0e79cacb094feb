"""`--zonefile-create-zone` zones are created on first use: a caller that arrives while another thread is
creating them must see them (the DNSRecord controller's workers list the zones at the same time at start-up:
a worker that listed the directory before the file was written got no zone, planned its record against an
empty zone '' outside the zone's lock and failed with 'record already exists' instead of the ownership
conflict; tests/controller/dnsrecord/test_concurrent_batches.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from external_dns.providers.zonefile import ZoneFileProvider


def _creating_slowly(provider: ZoneFileProvider) -> tuple[threading.Event, threading.Event]:
    """The provider's zone creation waits (up to 0.5 s) for the other caller to finish once it started: the
    window between taking the zones to create and writing them, made wide."""
    entered, other_done = threading.Event(), threading.Event()
    create = provider.create_zone

    def slow(zone: str) -> bool:
        entered.set()
        other_done.wait(0.5)
        return create(zone)

    provider.create_zone = slow  # type: ignore[method-assign]
    return entered, other_done


@pytest.mark.parametrize("call", ["zones", "zone_snapshot", "get_domain_filter"])
def test_a_caller_during_the_zone_creation_sees_the_zone(tmp_path: Path, call: str) -> None:
    provider = ZoneFileProvider(str(tmp_path / "zones"), create_zones=("example.com",))
    entered, other_done = _creating_slowly(provider)
    creator = threading.Thread(target=provider.zones)
    creator.start()
    assert entered.wait(5.0)
    try:
        if call == "zones":
            assert list(provider.zones()) == ["example.com"]
        elif call == "zone_snapshot":
            assert provider.zone_snapshot("example.com").get("example.com")  # its SOA's NS record
        else:
            assert provider.get_domain_filter().match("shared.example.com")
    finally:
        other_done.set()
        creator.join(5.0)
    assert list(provider.zones()) == ["example.com"]
