"""A batch applied to a zone's record sets (providers/zonefile/apply.py), nothing on disk: the batch split by zone
file, the in-memory provider's rules and messages, records beside data this owner did not write refused with their
group and a warning, the rest applied (names keep the file's spelling, TTL 0 gets the default)."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.errors import InvalidBatchRequestError, ProviderError, RecordNotFoundError
from external_dns.providers.zonefile.apply import ZoneChanges, route_changes, validate_and_apply
from external_dns.providers.zonefile.files import new_zone_text
from external_dns.providers.zonetext import ZoneData, read_zone_text
from tests.helpers.endpoints import ep

ZONE = new_zone_text("example.org") + "WWW 300 IN A 10.0.0.1\nhand 300 IN CNAME elsewhere.example.net.\n"


def data() -> ZoneData:
    return read_zone_text(ZONE, "example.org")


def zc(**kw: list[Endpoint]) -> ZoneChanges:
    return ZoneChanges(kw.get("create", []), kw.get("update_new", []), kw.get("update_old", []), kw.get("delete", []))


def test_route_changes_by_zone_file() -> None:
    routed = route_changes(Changes(create=[ep("a.example.org", "A", "10.0.0.1"), ep("b.sub.example.org", "A", "10.0.0.2")],
                                   delete=[ep("c.example.org", "A", "10.0.0.3")]), ["example.org", "sub.example.org"])
    assert sorted(routed) == ["example.org", "sub.example.org"]
    assert [e.dns_name for e in routed["example.org"].all()] == ["a.example.org", "c.example.org"]


@pytest.mark.parametrize(("changes", "error", "message"), [
    (Changes(create=[ep("a.example.org", "A", "10.0.0.1", set_id="eu")]), InvalidBatchRequestError,
     "a.example.org A: zone files have no set identifiers"),
    (Changes(create=[ep("a.example.net", "A", "10.0.0.1")]), ProviderError,
     "no zone file holds a.example.net \\(zones: example.org\\)"),
    (Changes(delete=[ep("a.example.net", "A", "10.0.0.1")]), RecordNotFoundError,
     "record not found: a.example.net A \\(no zone file holds it\\)"),
])
def test_route_changes_refusals(changes: Changes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        route_changes(changes, ["example.org"])


@pytest.mark.parametrize(("changes", "error", "message"), [
    (zc(create=[ep("a.example.org", "A", "10.0.0.1"), ep("A.example.org.", "A", "10.0.0.2")]),
     InvalidBatchRequestError, "A.example.org. A appears more than once"),
    (zc(update_new=[ep("nope.example.org", "A", "10.0.0.1")]), RecordNotFoundError, "nope.example.org A"),
    (zc(delete=[ep("www.example.org", "A", "10.9.9.9")]), RecordNotFoundError, "www.example.org A"),
    (zc(create=[ep("a.example.org", "SOA", "x")]), ProviderError, "record type not supported"),
])
def test_the_in_memory_providers_rules(changes: ZoneChanges, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        validate_and_apply(data(), changes, 300, "example.org.zone")


def test_a_batch_is_applied_keeping_the_files_spelling() -> None:
    zone = data()
    refused = validate_and_apply(zone, zc(
        create=[ep("new.example.org", "TXT", "hello"), ep("www.example.org", "AAAA", "2001:DB8::1", ttl=60)],
        update_old=[ep("www.example.org", "A", "10.0.0.1")], update_new=[ep("www.example.org", "A", "10.0.0.2")],
    ), 300, "example.org.zone")
    assert refused == []
    assert zone.rrsets[("new.example.org", "TXT")] == ("new.example.org", 300, ('"hello"',))  # TTL 0: the default
    assert zone.rrsets[("www.example.org", "A")] == ("WWW.example.org", 300, ("10.0.0.2",))
    assert zone.rrsets[("www.example.org", "AAAA")] == ("WWW.example.org", 60, ("2001:db8::1",))
    deleted = data()
    validate_and_apply(deleted, zc(delete=[ep("www.example.org", "A", "10.0.0.1")]), 300, "example.org.zone")
    assert ("www.example.org", "A") not in deleted.rrsets


def test_writes_beside_data_this_owner_did_not_write_are_refused_with_their_group() -> None:
    zone = data()
    owned_txt = ep("a-hand.example.org", "TXT", '"heritage=external-dns"', labels={"ownedRecord": "hand.example.org"})
    with capture_logs() as logs:
        refused = validate_and_apply(zone, zc(create=[
            ep("hand.example.org", "A", "10.0.0.5"), owned_txt,  # beside a hand-made CNAME: refused, its TXT too
            ep("www.example.org", "A", "10.0.0.7"),  # a create over other values: refused
            ep("www.example.org", "CNAME", "x.example.net"),  # a CNAME beside data: refused (same group)
            ep("ok.example.org", "A", "10.0.0.8"),
        ]), 300, "example.org.zone")
    assert refused == ["hand.example.org A", "www.example.org A", "www.example.org CNAME"]
    assert ("ok.example.org", "A") in zone.rrsets and ("a-hand.example.org", "TXT") not in zone.rrsets
    assert zone.rrsets[("www.example.org", "A")][2] == ("10.0.0.1",)  # left as it is
    assert [e["record"] for e in logs if e["log_level"] == "warning"] == [
        "hand.example.org A", "www.example.org A", "www.example.org CNAME"]


def test_a_create_already_in_place_is_left_as_it_is() -> None:
    zone = data()
    assert validate_and_apply(zone, zc(create=[ep("www.example.org", "A", "10.0.0.1", ttl=999)]), 300, "z") == []
    assert zone.rrsets[("www.example.org", "A")] == ("WWW.example.org", 300, ("10.0.0.1",))
