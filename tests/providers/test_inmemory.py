"""InMemoryProvider: the cases of external-dns `provider/inmemory/inmemory_test.go`, re-expressed."""

from __future__ import annotations

import pytest

from external_dns.cmd.build_providers import build_inmemory
from external_dns.cmd.config import parse_config
from external_dns.plan.changes import Changes
from external_dns.providers.errors import (
    ChangeError,
    InvalidBatchRequestError,
    RecordAlreadyExistsError,
    RecordNotFoundError,
)
from external_dns.providers.inmemory import InMemoryProvider, ZoneAlreadyExistsError, ZoneNotFoundError
from external_dns.providers.provider import zone_for_name
from tests.helpers.endpoints import ep, keys


@pytest.fixture
def provider() -> InMemoryProvider:
    """The fixture of the upstream ApplyChanges test: zones org and com with a few records."""
    p = InMemoryProvider(["org", "com"])
    p.apply_changes(Changes(create=[
        ep("example.org", "A", "8.8.8.8"),
        ep("example.org", "TXT", "txt"),
        ep("foo.org", "CNAME", "4.4.4.4"),
        ep("example.com", "CNAME", "another.example.com"),
        ep("multi.org", "A", "1.1.1.1", set_id="one"),
        ep("multi.org", "A", "2.2.2.2", set_id="two"),
    ]))
    return p


def test_error_strings_match_external_dns() -> None:
    assert str(ZoneAlreadyExistsError()) == "specified zone already exists"
    assert str(ZoneNotFoundError()) == "specified zone not found"


def test_create_zone_twice_fails() -> None:
    p = InMemoryProvider()
    p.create_zone("zone")
    with pytest.raises(ZoneAlreadyExistsError, match="specified zone already exists"):
        p.create_zone("zone")
    p.create_zone("another")
    assert list(p.zones()) == ["another", "zone"]


def test_zone_records_of_unknown_zone() -> None:
    p = InMemoryProvider(["org"])
    with pytest.raises(ZoneNotFoundError, match="specified zone not found"):
        p.zone_records("com")
    assert p.zone_records("org") == []


def test_records_are_copies(provider: InMemoryProvider) -> None:
    records = provider.records()
    assert len(records) == 6
    records[0].targets[0] = "9.9.9.9"
    records[0].labels["owner"] = "x"
    assert "9.9.9.9" not in {t for r in provider.records() for t in r.targets}
    assert all(not r.labels for r in provider.records())


def test_records_per_zone(provider: InMemoryProvider) -> None:
    assert keys(provider.zone_records("com")) == {("example.com", "CNAME", "", ("another.example.com",))}
    assert len(provider.zone_records("org")) == 5


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        pytest.param(Changes(), None, id="empty batch"),
        pytest.param(Changes(create=[ep("example.org", "A", "8.8.8.8")]), RecordAlreadyExistsError,
                     id="create existing record"),
        pytest.param(Changes(create=[ep("new.org", "A", "1.2.3.4")]), None, id="create new record"),
        pytest.param(Changes(create=[ep("new.org", "A", "1.2.3.4"), ep("new.org", "A", "1.2.3.5")]),
                     InvalidBatchRequestError, id="create same record twice"),
        pytest.param(Changes(update_old=[ep("nope.org", "A", "1.1.1.1")], update_new=[ep("nope.org", "A", "2.2.2.2")]),
                     RecordNotFoundError, id="update missing record"),
        pytest.param(Changes(update_old=[ep("example.org", "A", "1.1.1.1")],
                             update_new=[ep("example.org", "A", "2.2.2.2")]),
                     RecordNotFoundError, id="update old side with wrong target"),
        pytest.param(Changes(update_old=[ep("example.org", "A", "8.8.8.8")],
                             update_new=[ep("example.org", "A", "2.2.2.2")]), None, id="update existing"),
        pytest.param(Changes(delete=[ep("nope.org", "A", "8.8.8.8")]), RecordNotFoundError, id="delete missing"),
        pytest.param(Changes(delete=[ep("example.org", "A", "1.1.1.1")]), RecordNotFoundError,
                     id="delete with wrong target"),
        pytest.param(Changes(delete=[ep("example.org", "A", "8.8.8.8")]), None, id="delete existing"),
        pytest.param(Changes(update_old=[ep("example.org", "A", "8.8.8.8")],
                             update_new=[ep("example.org", "A", "2.2.2.2")],
                             delete=[ep("example.org", "A", "8.8.8.8")]),
                     InvalidBatchRequestError, id="update and delete the same record"),
        pytest.param(Changes(delete=[ep("example.org", "A", "8.8.8.8"), ep("example.org", "A", "8.8.8.8")]),
                     InvalidBatchRequestError, id="delete twice"),
        pytest.param(Changes(delete=[ep("multi.org", "A", "1.1.1.1", set_id="one")],
                             update_old=[ep("multi.org", "A", "2.2.2.2", set_id="two")],
                             update_new=[ep("multi.org", "A", "3.3.3.3", set_id="two")]),
                     None, id="set identifiers are separate keys"),
        pytest.param(Changes(create=[ep("elsewhere.net", "A", "1.2.3.4")]), None, id="no zone: dropped"),
    ],
)
def test_validate_change_batch(provider: InMemoryProvider, changes: Changes,
                               error: type[ChangeError] | None) -> None:
    before = keys(provider.records())
    if error is None:
        provider.apply_changes(changes)
        return
    with pytest.raises(error):
        provider.apply_changes(changes)
    assert keys(provider.records()) == before, "a refused batch must not change anything"


def test_failed_batch_writes_nothing_in_any_zone(provider: InMemoryProvider) -> None:
    """Validation covers every zone before the first write (upstream would have applied `com` first)."""
    before = keys(provider.records())
    with pytest.raises(RecordAlreadyExistsError, match=r"example\.org A"):
        provider.apply_changes(Changes(create=[ep("new.com", "A", "1.2.3.4"), ep("example.org", "A", "8.8.8.8")]))
    assert keys(provider.records()) == before


def test_apply_changes_end_to_end(provider: InMemoryProvider) -> None:
    provider.apply_changes(Changes(
        create=[ep("foo.bar.org", "A", "4.8.8.4"), ep("foo.bar.com", "A", "4.8.8.4")],
        update_old=[ep("foo.org", "CNAME", "4.4.4.4")],
        update_new=[ep("foo.org", "CNAME", "bar.org", ttl=60)],
        delete=[ep("example.org", "TXT", "txt"), ep("elsewhere.net", "A", "1.1.1.1")],
    ))
    assert keys(provider.zone_records("com")) == {
        ("example.com", "CNAME", "", ("another.example.com",)),
        ("foo.bar.com", "A", "", ("4.8.8.4",)),
    }
    org = {(e.dns_name, e.record_type): e for e in provider.zone_records("org")}
    assert set(org) == {("example.org", "A"), ("foo.org", "CNAME"), ("foo.bar.org", "A"), ("multi.org", "A")}
    assert list(org[("foo.org", "CNAME")].targets) == ["bar.org"]
    assert org[("foo.org", "CNAME")].record_ttl == 60


def test_longest_zone_wins_on_label_boundary() -> None:
    p = InMemoryProvider(["example.org", "sub.example.org"])
    p.apply_changes(Changes(create=[ep("a.sub.example.org", "A", "1.1.1.1"), ep("b.example.org", "A", "2.2.2.2"),
                                    ep("badexample.org", "A", "3.3.3.3")]))
    assert keys(p.zone_records("sub.example.org")) == {("a.sub.example.org", "A", "", ("1.1.1.1",))}
    assert keys(p.zone_records("example.org")) == {("b.example.org", "A", "", ("2.2.2.2",))}
    assert zone_for_name("badexample.org", ["example.org"]) is None
    assert zone_for_name("Sub.Example.org.", ["example.org", "sub.example.org"]) == "sub.example.org"
    assert zone_for_name("anything", [""]) == ""


def test_domain_filter_follows_zones() -> None:
    p = InMemoryProvider(["example.org"])
    f = p.get_domain_filter()
    assert f.match("www.example.org")
    assert f.match("example.org")
    assert not f.match("www.example.com")


def test_builder_uses_flag() -> None:
    p = build_inmemory(parse_config(["--inmemory-zone=a.org", "--inmemory-zone=b.org"], {}))
    assert list(p.zones()) == ["a.org", "b.org"]
