"""Per-zone snapshots (providers/snapshot.py): records by name key, a version that moves only on a real change, and
a journal naming exactly the names that changed since a version (None once it no longer reaches back)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from external_dns.endpoint.names import name_key
from external_dns.plan.changes import Changes
from external_dns.providers import snapshot as snapshot_module
from external_dns.providers.snapshot import ZoneSnapshot
from tests.helpers.endpoints import ep, keys


def test_records_by_name_key_in_any_spelling() -> None:
    snap = ZoneSnapshot("a.test", [ep("WWW.a.test", "AAAA", "::1"), ep("www.a.test.", "A", "10.0.0.1"),
                                   ep("api.a.test", "A", "10.0.0.2")])
    assert [e.record_type for e in snap.get("www.A.test.")] == ["A", "AAAA"]  # sorted by type
    assert snap.get("missing.a.test") == ()
    assert sorted(snap.names()) == ["api.a.test", "www.a.test"] and len(snap) == 3 and snap.version == 0
    assert keys(snap.endpoints()) == keys([ep("WWW.a.test", "AAAA", "::1"), ep("www.a.test.", "A", "10.0.0.1"),
                                           ep("api.a.test", "A", "10.0.0.2")])


def test_the_version_moves_only_on_a_real_change() -> None:
    snap = ZoneSnapshot("a.test", [ep("www.a.test", "A", "10.0.0.1")])
    assert not snap.set_name("www.a.test", [ep("www.a.test", "A", "10.0.0.1")])  # equal: no change
    assert snap.version == 0 and snap.changed_since(0) == set()
    assert snap.set_name("WWW.a.test.", [ep("www.a.test", "A", "10.0.0.9")])
    assert snap.set_name("new.a.test", [ep("new.a.test", "TXT", "x")])
    assert snap.set_name("www.a.test", [])  # removed
    assert snap.version == 3 and len(snap) == 1 and snap.names() == ["new.a.test"]
    assert snap.changed_since(0) == {"www.a.test", "new.a.test"}
    assert snap.changed_since(2) == {"www.a.test"}
    assert snap.changed_since(3) == set()
    assert snap.changed_since(4) is None  # a version from the future (another snapshot): rebuild


def test_replace_all_diffs_by_name() -> None:
    snap = ZoneSnapshot("a.test", [ep("keep.a.test", "A", "10.0.0.1"), ep("gone.a.test", "A", "10.0.0.2"),
                                   ep("moved.a.test", "A", "10.0.0.3")])
    changed = snap.replace_all([ep("keep.a.test", "A", "10.0.0.1"), ep("moved.a.test", "A", "10.0.0.4"),
                                ep("new.a.test", "A", "10.0.0.5")])
    assert changed == 3 and snap.changed_since(0) == {"gone.a.test", "moved.a.test", "new.a.test"}


def test_apply_folds_a_write_in_by_type_and_set_identifier() -> None:
    snap = ZoneSnapshot("a.test", [ep("www.a.test", "A", "10.0.0.1"), ep("www.a.test", "TXT", "t"),
                                   ep("lb.a.test", "A", "10.0.0.2", set_id="eu")])
    created = ep("lb.a.test", "A", "10.0.0.3", set_id="us")
    snap.apply(Changes(create=[created], update_old=[ep("www.a.test", "A", "10.0.0.1")],
                       update_new=[ep("www.a.test", "A", "10.0.0.8")], delete=[ep("www.a.test", "TXT", "t")]))
    assert keys(snap.endpoints()) == {("www.a.test", "A", "", ("10.0.0.8",)), ("lb.a.test", "A", "eu", ("10.0.0.2",)),
                                      ("lb.a.test", "A", "us", ("10.0.0.3",))}
    created.targets[0] = "10.9.9.9"
    assert ("lb.a.test", "A", "us", ("10.0.0.3",)) in keys(snap.endpoints())  # a copy was kept


def test_a_reader_behind_the_journal_must_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot_module, "JOURNAL", 3)
    snap = ZoneSnapshot("a.test")
    for i in range(5):
        snap.set_name(f"n{i}.a.test", [ep(f"n{i}.a.test", "A", "10.0.0.1")])
    assert snap.changed_since(2) == {"n2.a.test", "n3.a.test", "n4.a.test"}
    assert snap.changed_since(1) is None


NAMES = st.sampled_from(["a.z.test", "b.z.test", "C.z.test", "d.z.test."])
RECORDS = st.lists(st.tuples(st.sampled_from(["A", "TXT"]), st.sampled_from(["10.0.0.1", "10.0.0.2"])),
                   max_size=2, unique_by=lambda t: t[0])


@given(st.lists(st.tuples(NAMES, RECORDS), max_size=12), st.lists(st.tuples(NAMES, RECORDS), max_size=12))
def test_changed_since_names_what_changed_and_nothing_unwritten(before: list[tuple[str, list[tuple[str, str]]]],
                                                                after: list[tuple[str, list[tuple[str, str]]]]) -> None:
    snap = ZoneSnapshot("z.test")

    def put(ops: list[tuple[str, list[tuple[str, str]]]]) -> None:
        for name, records in ops:
            snap.set_name(name, [ep(name, rtype, target) for rtype, target in records])

    def state() -> dict[str, set[tuple[str, str]]]:
        return {n: {(e.record_type, e.targets[0]) for e in snap.get(n)} for n in ("a.z.test", "b.z.test", "c.z.test",
                                                                                   "d.z.test")}

    put(before)
    version, old = snap.version, state()
    put(after)
    new = state()
    changed = snap.changed_since(version)
    assert changed is not None
    # every name whose records differ, and only names written since (one changed and changed back may be named)
    assert {n for n in new if new[n] != old[n]} <= changed <= {name_key(n) for n, _ in after}
