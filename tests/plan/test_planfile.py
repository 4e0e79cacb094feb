"""The two-phase plan file (plan/planfile.py) and the apply batching (controller/zone_plans.py): round trip,
checksums independent of listing order, tamper / identity / staleness errors, batches never split a name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from external_dns.controller.zone_plans import batches, change_count
from external_dns.endpoint.endpoint import Endpoint, ProviderSpecificProperty
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.planfile import (
    PlanFile,
    PlanFileError,
    PlannedZone,
    StalePlanError,
    load,
    loads,
    state_checksum,
)
from tests.helpers import endpoints


def ep(name: str, rtype: str = "A", *targets: str, ttl: int = 300) -> Endpoint:
    return endpoints.ep(name, rtype, *(targets or ("10.0.0.1",)), ttl=ttl, owner="o1", resource="service/default/web")


def provider_state() -> list[Endpoint]:
    return [ep("www.example.org", "A", "10.0.0.1", "10.0.0.2"), ep("a-www.example.org", "TXT", '"heritage=x"'),
            ep("example.org", "NS", "ns1.example.net")]


def sample() -> PlanFile:
    changes = Changes(create=[ep("new.example.org")], update_old=[ep("www.example.org", "A", "10.0.0.1", "10.0.0.2")],
                      update_new=[ep("www.example.org", "A", "10.0.0.3")], delete=[ep("old.example.org")])
    changes.create[0].provider_specific.append(ProviderSpecificProperty("alias", "false"))
    pf = PlanFile(owner_id="o1", provider="zonefile", registry="txt", created="2026-11-23T13:00:00Z")
    pf.zones["example.org"] = PlannedZone(changes=changes, existing=12, state_checksum=state_checksum(provider_state()))
    return pf


def test_round_trip_keeps_every_field() -> None:
    pf = sample()
    back = loads(pf.dumps())
    assert back.body() == pf.body()
    assert back.plan_checksum() == pf.plan_checksum()
    z = back.zones["example.org"]
    assert z.existing == 12
    assert z.changes.create[0].labels == {"owner": "o1", "resource": "service/default/web"}
    assert z.changes.create[0].provider_specific == [ProviderSpecificProperty("alias", "false")]
    assert [list(e.targets) for e in z.changes.update_new] == [["10.0.0.3"]]
    assert back.created == "2026-11-23T13:00:00Z"


def test_created_is_not_checksummed_but_everything_else_is() -> None:
    doc = json.loads(sample().dumps())
    doc["created"] = "1999-01-01T00:00:00Z"
    loads(json.dumps(doc))
    for path, value in ((("owner_id",), "o2"), (("provider",), "aws"), (("zones", "example.org", "existing"), 100),
                        (("zones", "example.org", "state_checksum"), "sha256:00")):
        doc = json.loads(sample().dumps())
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(PlanFileError, match="was modified after it was made"):
            loads(json.dumps(doc))
    doc = json.loads(sample().dumps())
    doc["zones"]["example.org"]["changes"]["delete"] = []
    with pytest.raises(PlanFileError, match="was modified"):
        loads(json.dumps(doc))


@pytest.mark.parametrize(("text", "needle"), [
    ("", "is not valid JSON"),
    ("[]", "is not a JSON object"),
    ('{"kind": "something"}', "is not an external-dns plan"),
    ('{"kind": "external-dns-plan", "version": 7}', "unsupported version 7"),
    ('{"kind": "external-dns-plan", "version": 1}', "field 'zones' is missing"),
    ('{"kind": "external-dns-plan", "version": 1, "zones": {"z": []}}', "zone 'z' is not a JSON object"),
    ('{"kind": "external-dns-plan", "version": 1, "zones": {"z": {"changes": {"create": 5}}}}',
     "zone 'z': invalid changes"),
    ('{"kind": "external-dns-plan", "version": 1, "zones": {"z": {"changes": {}, "existing": "3"}}}',
     "field 'existing' is missing or not a int"),
])
def test_malformed_files_are_named(text: str, needle: str) -> None:
    with pytest.raises(PlanFileError) as info:
        loads(text, "plan file p.json")
    assert "plan file p.json" in str(info.value) and needle in str(info.value)


def test_load_unreadable(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError, match=r"cannot read plan file .*nope\.json"):
        load(str(tmp_path / "nope.json"))
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PlanFileError, match="cannot read plan file"):
        load(str(tmp_path / "bin.json"))


def test_state_checksum_ignores_order_but_not_content() -> None:
    state = provider_state()
    shuffled = [e.copy() for e in reversed(state)]
    shuffled[-1].targets = Targets(["10.0.0.2", "10.0.0.1"])
    shuffled[-1].dns_name = "WWW.example.org."
    assert state_checksum(shuffled) == state_checksum(state)
    changed = [e.copy() for e in state]
    changed[0].record_ttl = 301
    assert state_checksum(changed) != state_checksum(state)
    assert state_checksum([*state, ep("extra.example.org")]) != state_checksum(state)
    assert state_checksum(state[1:]) != state_checksum(state)


def test_identity_and_state_checks() -> None:
    pf = sample()
    pf.check_identity("o1", "zonefile")
    with pytest.raises(PlanFileError, match="owner ID 'o1', not 'o2'"):
        pf.check_identity("o2", "zonefile")
    with pytest.raises(PlanFileError, match="provider 'zonefile', not 'aws'"):
        pf.check_identity("o1", "aws")
    pf.check_state({"example.org": provider_state()})
    with pytest.raises(StalePlanError, match=r"zone example\.org changed since the plan was made") as info:
        pf.check_state({"example.org": provider_state()[:2]})
    assert info.value.zone == "example.org"
    with pytest.raises(StalePlanError):
        pf.check_state({})


# -- batches --------------------------------------------------------------------------------------------------
def test_batches_keep_a_name_together_and_update_pairs_aligned() -> None:
    c = Changes()
    for i in range(10):
        c.create.append(ep(f"h{i}.example.org"))
    c.delete.append(ep("h3.example.org", "CNAME", "x.example.net"))  # replaced by the A create of h3
    c.update_old += [ep("u1.example.org", "A", "1.1.1.1"), ep("u2.example.org", "A", "2.2.2.2")]
    c.update_new += [ep("u1.example.org", "A", "1.1.1.2"), ep("u2.example.org", "A", "2.2.2.3")]
    parts = batches(c, 3)
    assert [change_count(p) for p in parts] == [3, 3, 3, 3, 1]
    assert sum(change_count(p) for p in parts) == change_count(c) == 13
    for p in parts:
        assert [e.dns_name for e in p.update_old] == [e.dns_name for e in p.update_new]
        names = {e.dns_name for e in p.all_endpoints()}
        if "h3.example.org" in names:
            assert len(p.delete) == 1 and any(e.dns_name == "h3.example.org" for e in p.create)
    seen = [e.dns_name for p in parts for e in p.all_endpoints()]
    assert sorted(seen) == sorted(e.dns_name for e in c.all_endpoints())
    assert batches(c, 0) == [c]
    assert batches(Changes(), 5) == []
    big = Changes(create=[ep("same.example.org", t) for t in ("A", "AAAA", "TXT", "MX")])
    assert [change_count(p) for p in batches(big, 2)] == [4], "one name is never split, even over the size"
