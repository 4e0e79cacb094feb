"""--txt-wildcard-replacement colliding with a real label (issue 27, item 4): `*.example.org` and a real
`star.example.org` of the same type would share one ownership TXT (`a-star.example.org`). Resolved exactly:
the TXT belongs to neither while both exist (nothing updated or deleted, a warning), a create that would make
them share it is refused; with only one of them the TXT is that one's. Both ways of reading ownership: the full
read (`records()`) and the per-zone maps that follow the provider's zone snapshots (`zone_records`)."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from external_dns.plan.changes import Changes
from external_dns.plan.plan import Plan
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.registry.fakes import ep, owner_txt, plan_cycle, reads, txt

ZONE = "example.org"
READS = reads(ZONE)


def contents(p: InMemoryProvider) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): list(e.targets) for e in p.records()}


@pytest.mark.parametrize("read", list(READS))
def test_a_hand_made_record_at_the_replacement_label_is_never_deleted(read: str) -> None:
    """Ours: `*.example.org` A with its TXT `a-star...`. A hand-made `star.example.org` A appears; a sync that
    no longer wants the wildcard must not delete the hand-made record (it did: the TXT labelled it ours)."""
    p = InMemoryProvider([ZONE])
    reg = TXTRegistry(p, owner_id="me", wildcard_replacement="star")
    plan_cycle(reg, [ep("*.example.org", "A", "192.0.2.1")], READS[read])
    assert ("a-star.example.org", "TXT") in contents(p)
    p.apply_changes(Changes(create=[ep("star.example.org", "A", "198.51.100.7")]))  # by hand
    with capture_logs() as logs:
        labelled = {e.dns_name: e.labels.get("owner") for e in READS[read](reg)}
        changes = plan_cycle(reg, [], READS[read])
    assert labelled["star.example.org"] is None and labelled["*.example.org"] is None
    assert not changes.has_changes()
    assert contents(p)[("star.example.org", "A")] == ["198.51.100.7"]
    assert any("would belong to both" in str(line["event"]) for line in logs)
    # the hand-made record goes: the TXT is the wildcard's again, and the wildcard can be deleted
    p.apply_changes(Changes(delete=[ep("star.example.org", "A", "198.51.100.7")]))
    plan_cycle(reg, [], READS[read])
    assert contents(p) == {}


@pytest.mark.parametrize("read", list(READS))
def test_a_create_that_would_share_an_ownership_txt_is_refused(read: str) -> None:
    p = InMemoryProvider([ZONE, "example.com"])
    p.apply_changes(Changes(create=[ep("star.example.org", "A", "198.51.100.7"),
                                    ep("*.example.com", "AAAA", "2001:db8::1")]))  # hand-made
    reg = TXTRegistry(p, owner_id="me", wildcard_replacement="star")
    desired = [ep("*.example.org", "A", "192.0.2.1"), ep("star.example.com", "AAAA", "2001:db8::2"),
               ep("ok.example.org", "A", "192.0.2.3")]
    with capture_logs() as logs:
        for zone in (ZONE, "example.com") if read == "zone" else ("",):  # zone by zone, or all at once
            plan = Plan(current=reg.zone_records(zone) if zone else reg.records(),
                        desired=[d.copy() for d in desired if d.dns_name.endswith(zone)],
                        policies=["sync"], owner_id="me").calculate()
            reg.apply_changes(plan.changes)
    held = contents(p)
    assert ("*.example.org", "A") not in held and ("star.example.com", "AAAA") not in held
    assert held[("star.example.org", "A")] == ["198.51.100.7"] and held[("*.example.com", "AAAA")] == ["2001:db8::1"]
    assert ("a-star.example.org", "TXT") not in held and ("aaaa-star.example.com", "TXT") not in held
    assert ("ok.example.org", "A") in held
    refused = {str(line["dns_name"]) for line in logs if str(line["event"]).startswith("Not creating")}
    assert refused == {"*.example.org", "star.example.com"}


def test_both_in_one_batch_are_refused_and_one_alone_is_owned() -> None:
    p = InMemoryProvider([ZONE])
    reg = TXTRegistry(p, owner_id="me", wildcard_replacement="star")
    plan_cycle(reg, [ep("*.example.org", "A", "192.0.2.1"), ep("star.example.org", "A", "192.0.2.2")], READS["full"])
    assert contents(p) == {}
    plan_cycle(reg, [ep("star.example.org", "A", "192.0.2.2")], READS["full"])
    assert {e.dns_name: e.labels.get("owner") for e in reg.records()} == {"star.example.org": "me"}


def test_an_old_format_txt_is_shared_by_any_type() -> None:
    """An old-format TXT at `star.example.org` names no type: a wildcard of any type beside a real `star`
    record makes it ambiguous too."""
    p = InMemoryProvider([ZONE])
    p.apply_changes(Changes(create=[ep("*.example.org", "CNAME", "x.example.net"),
                                    txt("star.example.org", owner_txt("me")),
                                    ep("star.example.org", "MX", "10 mail.example.net")]))
    reg = TXTRegistry(p, owner_id="me", wildcard_replacement="star", managed_record_types=["A", "CNAME", "MX"])
    labelled = {(e.dns_name, e.record_type): e.labels.get("owner") for e in reg.records()}
    assert labelled == {("*.example.org", "CNAME"): None, ("star.example.org", "MX"): None}
