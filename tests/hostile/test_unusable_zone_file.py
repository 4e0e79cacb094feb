"""A zone file that cannot be used fails its zone's syncs (never read as empty, never skipped in silence)
while the other zones of the directory keep syncing: the long-running controller's per-zone reconciles."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.controller.controller import Controller, RunOnceError
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.registry.txt import TXTRegistry
from external_dns.sources.source import Source

BROKEN = "$ORIGIN broken.test.\n@ 300 IN SOA ns hm 1 1 1 1 1\nbig 99999999999999 IN A 192.0.2.7\n"


class _Static(Source):
    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("www.good.org", "A", Targets(["192.0.2.1"])),
                Endpoint("www.broken.test", "A", Targets(["192.0.2.2"]))]


def test_broken_zone_fails_alone_and_is_never_written(tmp_path: Path) -> None:
    broken = tmp_path / "broken.test.zone"
    broken.write_text(BROKEN)
    provider = ZoneFileProvider(str(tmp_path), create_zones=["good.org"])
    controller = Controller(_Static(), TXTRegistry(provider, owner_id="o"), "sync")
    assert sorted(provider.zones()) == ["broken.test", "good.org"]  # the broken zone is synced (and fails)
    result = controller.run_once("good.org")
    assert result.applied
    assert {(e.dns_name, e.record_type) for e in provider.zone_records("good.org")} >= {
        ("www.good.org", "A"), ("a-www.good.org", "TXT")}
    for _ in range(2):  # every retry fails the same way, naming file and line
        with pytest.raises(RunOnceError, match=r"broken\.test\.zone:3: "):
            controller.run_once("broken.test")
    assert broken.read_text() == BROKEN
