"""The RFC2136 provider's by-name zone snapshot (`zone_snapshot`, providers/snapshot.py) against BIND: it
equals a fresh transfer after our own writes, after outside writes caught up by IXFR and after a fallback
AXFR, and its journal names exactly the names that moved; the TXT registry's per-zone map follows it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest

from external_dns.plan.changes import Changes
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration


ep = partial(endpoints.ep, ttl=60)


def by_name(p: RFC2136Provider, zone: str) -> set[tuple[str, str, int, tuple[str, ...]]]:
    return {(e.dns_name.lower(), e.record_type, e.record_ttl, tuple(sorted(e.targets)))
            for e in p.zone_snapshot(zone).endpoints()}


def fresh(make_provider: Callable[..., RFC2136Provider], zone: str) -> set[tuple[str, str, int, tuple[str, ...]]]:
    return {(e.dns_name.lower(), e.record_type, e.record_ttl, tuple(sorted(e.targets)))
            for e in make_provider().zone_records(zone)}


def test_by_name_snapshot_follows_own_and_outside_writes(make_provider: Callable[..., RFC2136Provider],
                                                        clean_bind: BindServer) -> None:
    p = make_provider()
    p.apply_changes(Changes(create=[ep(f"h{i}.example.org", "A", f"10.3.0.{i}") for i in range(10)]))
    snap = p.zone_snapshot("example.org")
    assert by_name(p, "example.org") == fresh(make_provider, "example.org")
    v0 = snap.version

    p.apply_changes(Changes(create=[ep("mine.example.org", "A", "10.3.1.1")]))
    assert p.zone_snapshot("example.org") is snap
    assert snap.changed_since(v0) == {"mine.example.org"}  # our own write: that name only
    v1 = snap.version

    upd = clean_bind.update("example.org")
    upd.delete("h3.example.org.", "A")
    upd.add("outside.example.org.", 300, "A", "192.0.2.77")
    clean_bind.send(upd)
    assert by_name(p, "example.org") == fresh(make_provider, "example.org")  # caught up by IXFR
    assert snap.changed_since(v1) == {"h3.example.org", "outside.example.org"}
    assert by_name(p, "example.com") == fresh(make_provider, "example.com")


def test_registry_zone_map_sees_an_outside_takeover(make_provider: Callable[..., RFC2136Provider],
                                                    clean_bind: BindServer) -> None:
    p = make_provider()
    reg = TXTRegistry(p, owner_id="me")
    reg.apply_changes(Changes(create=[ep("app.example.org", "A", "10.4.0.1")]))
    [app] = reg.zone_records("example.org", ["app.example.org"])
    assert app.labels["owner"] == "me"
    # another owner rewrites the ownership TXT behind our back
    upd = clean_bind.update("example.org")
    upd.replace("a-app.example.org.", 0, "TXT", '"heritage=external-dns,external-dns/owner=other"')
    clean_bind.send(upd)
    [app] = reg.zone_records("example.org", ["app.example.org"])
    assert app.labels["owner"] == "other"
    full = [e for e in TXTRegistry(make_provider(), owner_id="me")._read() if e.dns_name == "app.example.org"]
    assert [e.labels for e in full] == [app.labels]
