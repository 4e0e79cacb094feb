"""TXTRegistry cycles over the real in-memory provider (strict: a create of an existing record, an update of a
missing one and a delete with another value are refused, and one bad change fails the whole batch)."""

from __future__ import annotations

import threading
from datetime import timedelta

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.labels import parse_labels
from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from external_dns.registry.txt import PROVIDER_SPECIFIC_FORCE_UPDATE
from tests.registry.fakes import ep, owner_txt, txt

KEY = "passphrasewhichneedstobe32bytes!"


def cycle(reg: TXTRegistry, desired: list[Endpoint], old_owner: str = "", zone: str = "") -> bool:
    """One controller cycle; with `zone`, current records are restricted to it (as per-zone reconciles do)."""
    current = [e for e in reg.records() if not zone or e.dns_name.endswith("." + zone)]
    plan = Plan(current=current, desired=desired, policies=["sync"], owner_id=reg.owner_id(),
                old_owner_id=old_owner).calculate()
    if not plan.changes.has_changes():
        return False
    reg.apply_changes(plan.changes)
    return True


def contents(p: InMemoryProvider) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): list(e.targets) for e in p.records()}


def test_lifecycle_plain_and_encrypted() -> None:
    for kwargs in ({}, {"txt_encrypt_enabled": True, "txt_encrypt_aes_key": KEY}):
        p = InMemoryProvider(["example.com"])
        reg = TXTRegistry(p, owner_id="c1", **kwargs)  # type: ignore[arg-type]
        want = [ep("app.example.com", "A", "1.2.3.4", resource="service/default/nginx")]
        assert cycle(reg, want)
        assert not cycle(reg, want)  # steady state
        assert cycle(reg, [ep("app.example.com", "A", "4.4.4.4", resource="service/default/nginx")])
        assert contents(p)[("app.example.com", "A")] == ["4.4.4.4"]
        assert not cycle(reg, [ep("app.example.com", "A", "4.4.4.4", resource="service/default/nginx")])
        assert cycle(reg, [])
        assert contents(p) == {}


def test_forced_update_and_owner_takeover_on_strict_provider() -> None:
    p = InMemoryProvider(["example.com"])
    p.apply_changes(Changes(create=[
        ep("old.example.com", "A", "9.9.9.9"), txt("old.example.com", owner_txt("c1", "ingress/default/old")),
        ep("moved.example.com", "A", "8.8.8.8"), txt("a-moved.example.com", owner_txt("c0", "service/a/b")),
    ]))
    reg = TXTRegistry(p, owner_id="c1", old_owner_id="c0")
    current = {e.dns_name: e for e in reg.records()}
    assert current["old.example.com"].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    assert current["moved.example.com"].get_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE) == "true"
    desired = [ep("old.example.com", "A", "9.9.9.9", resource="ingress/default/old"),
               ep("moved.example.com", "A", "8.8.8.8", resource="service/a/b")]
    assert cycle(reg, desired, old_owner="c0")
    got = contents(p)
    assert parse_labels(got[("a-old.example.com", "TXT")][0]) == {"owner": "c1", "resource": "ingress/default/old"}
    assert parse_labels(got[("a-moved.example.com", "TXT")][0]) == {"owner": "c1", "resource": "service/a/b"}
    assert ("old.example.com", "TXT") in got  # old format left in place
    assert not cycle(reg, desired, old_owner="c0")
    assert not cycle(reg, desired)


def test_two_clusters_share_a_zone() -> None:
    p = InMemoryProvider(["example.com"])
    c1 = TXTRegistry(p, owner_id="c1")
    c2 = TXTRegistry(p, owner_id="c2", txt_encrypt_enabled=True, txt_encrypt_aes_key=KEY)
    assert cycle(c1, [ep("api.example.com", "A", "3.3.3.3", resource="service/shop/api")])
    # c2 wants the same name: first writer wins; its other record is created.
    assert cycle(c2, [ep("api.example.com", "A", "5.5.5.5", resource="service/x/y"),
                      ep("web.example.com", "A", "6.6.6.6")])
    assert contents(p)[("api.example.com", "A")] == ["3.3.3.3"]
    assert contents(p)[("web.example.com", "A")] == ["6.6.6.6"]
    # c2 deleting everything it desires removes only its own record and TXT.
    cycle(c2, [])
    assert set(contents(p)) == {("api.example.com", "A"), ("a-api.example.com", "TXT")}
    # c1 still owns and can delete its record.
    assert cycle(c1, [])
    assert contents(p) == {}


def test_concurrent_zone_cycles_share_one_registry() -> None:
    p = InMemoryProvider(["a.example.com", "b.example.com"])
    reg = TXTRegistry(p, owner_id="c1", cache_interval=timedelta(seconds=30))
    errors: list[BaseException] = []

    def worker(zone: str) -> None:
        try:
            for i in range(30):
                want = [ep(f"r{j}.{zone}", "A", f"10.0.0.{i + 1}") for j in range(i % 6)]
                assert cycle(reg, want, zone=zone) or i == 0
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(z,)) for z in ("a.example.com", "b.example.com")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    # Each zone's records are created, updated and deleted by its own worker; the registry's shared TXT
    # table and cache must keep every write acceptable to the strict provider.
    assert errors == []
    got = contents(p)
    for zone in ("a.example.com", "b.example.com"):
        for j in range(5):  # last round: i = 29 -> 5 records with 10.0.0.30
            assert got[(f"r{j}.{zone}", "A")] == ["10.0.0.30"]
            assert parse_labels(got[(f"a-r{j}.{zone}", "TXT")][0]) == {"owner": "c1"}
    assert len(got) == 20
