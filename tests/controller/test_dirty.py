"""DirtyNames and the fingerprints (controller/dirty.py): plain per-zone state fed by the zone controller's
runs. The property test of the whole (event runs plan exactly the full plan) is test_incremental.py."""

from __future__ import annotations

from external_dns.controller.dirty import DirtyNames, name_fingerprints, names_of, without_names
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from tests.helpers import endpoints

ZONES = ["a.test", "b.test"]


def ep(name: str, target: str = "10.0.0.1", rtype: str = "A", **labels: str) -> Endpoint:
    return endpoints.ep(name, rtype, target, ttl=300, labels=labels)


def test_name_fingerprints_group_by_name_key() -> None:
    fps = name_fingerprints([ep("WWW.a.test."), ep("www.a.test", "10.0.0.2"), ep("api.a.test")])
    assert sorted(fps) == ["api.a.test", "www.a.test"]
    assert names_of(Changes(create=[ep("New.a.test")], delete=[ep("old.a.test.")])) == {"new.a.test", "old.a.test"}


def test_take_empties_what_an_event_run_plans_and_owe_gives_it_back() -> None:
    dirty = DirtyNames()
    dirty.add_events(["x.a.test", "y.b.test", "elsewhere.org"], ZONES)
    assert dirty.zones_with_events(ZONES) == ["a.test", "b.test"]
    dirty.owe("a.test", ["owed.a.test"])
    assert dirty.take("a.test", {"moved.a.test"}) == {"x.a.test", "owed.a.test", "moved.a.test"}
    assert dirty.take("a.test", ()) == set()
    dirty.owe("a.test", ["x.a.test"])  # the run failed
    assert dirty.take("a.test", ()) == {"x.a.test"}
    dirty.read_whole("b.test")  # a full run reads the whole source: its reported names are covered
    assert dirty.zones_with_events(ZONES) == []


def test_a_baseline_is_trusted_only_while_the_journal_was_followed() -> None:
    dirty = DirtyNames()
    assert not dirty.started() and dirty.baseline("a.test") is None
    now = name_fingerprints([ep("x.a.test"), ep("y.a.test")])
    dirty.full_synced("a.test", now, None)  # a registry without a journal: kept for skipping, not trusted
    assert dirty.started() and dirty.baseline("a.test") == now and not dirty.trusted("a.test")
    dirty.owe("a.test", ["stale.a.test"])
    dirty.full_synced("a.test", now, frozenset({"moved.a.test"}))
    assert dirty.trusted("a.test")
    assert dirty.take("a.test", ()) == {"moved.a.test"}  # a full run replaces what was owed before
    # an event run of x (changed) and z (new), y untouched; what moved during it is owed
    fresh = name_fingerprints([ep("x.a.test", "10.0.0.9"), ep("z.a.test")])
    dirty.names_synced("a.test", {"x.a.test", "z.a.test", "gone.a.test"}, fresh, frozenset({"m.a.test"}))
    expected = dict(now, **fresh)
    assert dirty.baseline("a.test") == expected
    assert dirty.changed("a.test", expected) == set()
    assert dirty.changed("a.test", name_fingerprints([ep("x.a.test")])) == {"x.a.test", "y.a.test", "z.a.test"}
    assert dirty.take("a.test", ()) == {"m.a.test"}
    dirty.names_synced("a.test", set(), {}, None)  # the registry lost track of the zone
    assert not dirty.trusted("a.test") and dirty.baseline("a.test") == expected


def test_a_source_that_cannot_name_its_changes_makes_trusted_zones_compare() -> None:
    dirty = DirtyNames()
    now = name_fingerprints([ep("x.a.test")])
    dirty.full_synced("a.test", now, frozenset())
    dirty.full_synced("b.test", name_fingerprints([ep("y.b.test")]), None)
    dirty.unnamed(ZONES)
    assert dirty.compare_due("a.test") and not dirty.compare_due("b.test")  # b runs in full anyway
    assert dirty.zones_with_events(ZONES) is None
    dirty.compared("a.test", now, frozenset())
    assert not dirty.compare_due("a.test") and dirty.zones_with_events(ZONES) == []
    dirty.forget("a.test")
    assert not dirty.trusted("a.test") and dirty.baseline("a.test") == now
    dirty.keep_only(["b.test"])
    assert dirty.baseline("a.test") is None and dirty.baseline("b.test") is not None


def test_names_event_runs_handle_during_a_full_run_are_left_to_them_and_stay_owed() -> None:
    dirty = DirtyNames()
    dirty.full_synced("a.test", name_fingerprints([ep("x.a.test")]), frozenset())
    dirty.take("a.test", ())  # nothing aside before a full run begins
    assert dirty.since_full("a.test") == set()
    dirty.begin_full("a.test")
    dirty.add_events(["x.a.test"], ZONES)
    assert dirty.take("a.test", {"moved.a.test"}) == {"x.a.test", "moved.a.test"}
    dirty.planning("a.test", ["changed.a.test"])
    dirty.owe("a.test", ["failed.a.test"])
    dirty.names_synced("a.test", {"x.a.test"}, {}, frozenset({"later.a.test"}))
    assert dirty.since_full("a.test") == {"x.a.test", "moved.a.test", "changed.a.test", "failed.a.test",
                                          "later.a.test"}
    dirty.full_synced("a.test", name_fingerprints([ep("x.a.test")]), frozenset({"outside.a.test"}))
    assert dirty.trusted("a.test") and dirty.since_full("a.test") == set()
    assert dirty.take("a.test", ()) == {"x.a.test", "moved.a.test", "changed.a.test", "failed.a.test",
                                        "later.a.test", "outside.a.test"}


def test_a_zone_lost_during_its_full_run_is_not_trusted_after_it() -> None:
    dirty = DirtyNames()
    dirty.full_synced("a.test", {}, frozenset())
    dirty.begin_full("a.test")
    dirty.forget("a.test")  # an event run found the registry lost track of the zone
    dirty.full_synced("a.test", {}, frozenset())
    assert not dirty.trusted("a.test")
    dirty.begin_full("a.test")
    dirty.end_full("a.test")  # a failed full run
    assert dirty.since_full("a.test") == set()


def test_without_names_drops_the_rows_of_names_and_whole_update_pairs() -> None:
    changes = Changes(create=[ep("new.a.test"), ep("Kept.a.test")], update_old=[ep("x.a.test"), ep("y.a.test")],
                      update_new=[ep("x.a.test", "10.0.0.2"), ep("y.a.test", "10.0.0.2")], delete=[ep("X.a.test.")])
    left = without_names(changes, {"new.a.test", "x.a.test"})
    assert [e.dns_name for e in left.create] == ["Kept.a.test"] and left.delete == []
    assert [e.dns_name for e in left.update_old] == [e.dns_name for e in left.update_new] == ["y.a.test"]
    assert without_names(changes, set()) is changes
