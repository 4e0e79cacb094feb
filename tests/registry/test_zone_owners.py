"""The TXT registry's per-zone ownership maps (registry/zone_owners.py) against full reads.

Random sequences of our own writes (creates, updates, deletes through the registry, several owners, prefix
and wildcard names), outside edits straight at the provider (records and ownership TXTs added, changed and
removed, ordinary TXTs) and failing writes: after every step the incrementally kept `zone_records(zone)` of a
long-lived registry equals a full read of the zone by a registry made just then.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.labels import serialize_labels
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.providers.provider import Provider
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.registry import zone_owners
from external_dns.registry.txt import TXTRegistry

ZONES = ("example.org", "sub.example.org")
NAMES = ("a.example.org", "b.example.org", "*.example.org", "wild.example.org", "x.sub.example.org",
         "sub.example.org", "c.sub.example.org")
OWNERS = ("me", "other")


def canon(eps: list[Endpoint]) -> list[tuple[Any, ...]]:
    return sorted((e.dns_name.lower(), e.record_type, e.set_identifier, tuple(sorted(e.targets)), e.record_ttl,
                   tuple(sorted(e.labels.items())), tuple(sorted((p.name, p.value) for p in e.provider_specific)))
                  for e in eps)


def full_read(provider: Provider, zone: str, **kw: Any) -> list[Endpoint]:
    """What the registry's original full read gives for the zone."""
    reg = TXTRegistry(provider, owner_id="me", **kw)
    return [e for e in reg._read() if provider.zone_records(zone) and _in_zone(e.dns_name, zone)]


def _in_zone(name: str, zone: str) -> bool:
    from external_dns.providers.provider import zone_for_name

    return zone_for_name(name, ZONES) == zone


def _ep(name: str, rtype: str, target: str, **kw: Any) -> Endpoint:
    return Endpoint(dns_name=name, record_type=rtype, targets=Targets([target]), record_ttl=300, **kw)


def _held(provider: InMemoryProvider, name: str, rtype: str) -> Endpoint | None:
    for e in provider.records():
        if e.dns_name == name and e.record_type == rtype:
            return e
    return None


step = st.one_of(
    st.tuples(st.just("create"), st.sampled_from(NAMES), st.sampled_from(("A", "CNAME")), st.integers(1, 9)),
    st.tuples(st.just("update"), st.sampled_from(NAMES), st.sampled_from(("A", "CNAME")), st.integers(1, 9)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.sampled_from(("A", "CNAME")), st.integers(1, 9)),
    st.tuples(st.just("outside-record"), st.sampled_from(NAMES), st.sampled_from(("A", "AAAA")), st.integers(1, 9)),
    st.tuples(st.just("outside-owner"), st.sampled_from(NAMES), st.sampled_from(("A", "CNAME", "")),
              st.integers(0, 1)),
    st.tuples(st.just("outside-drop"), st.sampled_from(NAMES), st.sampled_from(("A", "CNAME", "AAAA", "TXT")),
              st.integers(0, 1)),
    st.tuples(st.just("plain-txt"), st.sampled_from(NAMES), st.just("TXT"), st.integers(1, 9)),
    st.tuples(st.just("failing-write"), st.sampled_from(NAMES), st.just("A"), st.integers(1, 9)),
)


def _run(reg: TXTRegistry, provider: InMemoryProvider, op: str, name: str, rtype: str, n: int) -> None:
    target = f"10.0.0.{n}" if rtype in ("A", "") else (f"::{n}" if rtype == "AAAA" else f"t{n}.example.net")
    held = _held(provider, name, rtype) if rtype else None
    try:
        if op == "create" and held is None:
            reg.apply_changes(Changes(create=[_ep(name, rtype, target)]))
        elif op == "update" and held is not None:
            owned = [e for e in reg.zone_records(_zone(name)) if e.dns_name == name and e.record_type == rtype]
            if owned:
                new = owned[0].copy()
                new.targets = type(new.targets)([target])
                reg.apply_changes(Changes(update_old=owned, update_new=[new]))
        elif op == "delete" and held is not None:
            reg.apply_changes(Changes(delete=[e for e in reg.zone_records(_zone(name))
                                              if e.dns_name == name and e.record_type == rtype]))
        elif op == "outside-record":
            if held is None:
                provider.apply_changes(Changes(create=[_ep(name, rtype, target)]))
            else:
                new = held.copy()
                new.targets = type(new.targets)([target])
                provider.apply_changes(Changes(update_old=[held], update_new=[new]))
        elif op == "outside-owner":
            txt_name = reg.mapper.to_txt_name(name, rtype or "A") if rtype else _old_format(reg, name)
            value = serialize_labels({"owner": OWNERS[n], "resource": "x"}, with_quotes=True)
            old = _held(provider, txt_name, "TXT")
            if old is None:
                provider.apply_changes(Changes(create=[_ep(txt_name, "TXT", value)]))
            else:
                provider.apply_changes(Changes(update_old=[old], update_new=[_ep(txt_name, "TXT", value)]))
        elif op == "outside-drop" and held is not None:
            provider.apply_changes(Changes(delete=[held]))
        elif op == "plain-txt" and held is None:
            provider.apply_changes(Changes(create=[_ep(name, "TXT", f'"v=spf{n}"')]))
        elif op == "failing-write":
            # the in-memory provider refuses deleting a record it does not hold: nothing is written
            reg.apply_changes(Changes(create=[_ep(name, "A", target)],
                                      delete=[_ep("nope." + _zone(name), "A", "10.9.9.9",
                                                  labels={"owner": "me"})]))
    except Exception:
        pass


def _old_format(reg: TXTRegistry, name: str) -> str:
    """The old-format ownership TXT name (no record type in it): the name with only the affix."""
    if reg.mapper.prefix:
        return reg.mapper.prefix + name
    return name


def _zone(name: str) -> str:
    return "sub.example.org" if name.endswith("sub.example.org") else "example.org"


@pytest.mark.parametrize("kw", [{}, {"prefix": "pre-"}, {"wildcard_replacement": "wild"}])
def test_incremental_zone_records_equal_a_full_read(kw: dict[str, Any]) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(step, min_size=1, max_size=25))
    def run(steps: list[tuple[str, str, str, int]]) -> None:
        provider = InMemoryProvider(ZONES)
        reg = TXTRegistry(provider, owner_id="me", **kw)
        for op, name, rtype, n in steps:
            _run(reg, provider, op, name, rtype, n)
            for zone in ZONES:
                assert canon(reg.zone_records(zone)) == canon(full_read(provider, zone, **kw)), (op, name, zone)
            assert canon(reg.records()) == canon(TXTRegistry(provider, owner_id="me", **kw)._read())

    run()


def test_an_unchanged_zone_is_not_redone() -> None:
    provider = InMemoryProvider(["example.org"])
    reg = TXTRegistry(provider, owner_id="me")
    reg.apply_changes(Changes(create=[_ep(f"h{i}.example.org", "A", "10.0.0.1") for i in range(50)]))
    assert len(reg.zone_records("example.org")) == 50
    owners = reg._owners.zones["example.org"]
    assert owners.refresh() == 0
    reg.apply_changes(Changes(create=[_ep("new.example.org", "A", "10.0.0.2")]))
    assert owners.refresh() == 2  # the record's name and its TXT's name, nothing else
    assert [e.dns_name for e in reg.zone_records("example.org", ["new.example.org"])] == ["new.example.org"]
    assert reg.zone_records("example.org", ["new.example.org"])[0].labels["owner"] == "me"


def test_snapshot_journal_and_replace_all() -> None:
    snap = ZoneSnapshot("example.org", [_ep("a.example.org", "A", "10.0.0.1")])
    v0 = snap.version
    assert snap.replace_all([_ep("a.example.org", "A", "10.0.0.1")]) == 0 and snap.version == v0
    assert snap.replace_all([_ep("A.example.org.", "A", "10.0.0.2"), _ep("b.example.org", "A", "1.1.1.1")]) == 2
    assert snap.changed_since(v0) == {"a.example.org", "b.example.org"}
    assert snap.changed_since(snap.version) == set()
    assert snap.changed_since(snap.version + 5) is None
    snap.apply(Changes(delete=[_ep("b.example.org", "A", "1.1.1.1")]))
    assert snap.get("b.example.org") == () and len(snap) == 1


def test_records_are_fresh_objects_on_every_read() -> None:
    """The records a refresh built are handed out once: a caller changing them never changes the next read."""
    provider = InMemoryProvider(["example.org"])
    reg = TXTRegistry(provider, owner_id="me")
    reg.apply_changes(Changes(create=[_ep(f"h{i}.example.org", "A", "10.0.0.1") for i in range(3)]))
    first = reg.zone_records("example.org")
    for ep in first:
        ep.labels["owner"] = "someone-else"
        ep.targets[:] = ["10.9.9.9"]
    second = reg.zone_records("example.org")
    assert not {id(e) for e in first} & {id(e) for e in second}
    assert canon(second) == canon(full_read(provider, "example.org"))
    assert all(e.labels["owner"] == "me" and list(e.targets) == ["10.0.0.1"] for e in second)
    reg.apply_changes(Changes(create=[_ep("new.example.org", "A", "10.0.0.2")]))
    assert canon(reg.zone_records("example.org")) == canon(full_read(provider, "example.org"))


def _by_name(eps: list[Endpoint]) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[Endpoint]] = {}
    for e in eps:
        out.setdefault(e.dns_name.lower().rstrip("."), []).append(e)
    return {k: canon(v) for k, v in out.items()}


@pytest.mark.parametrize("kw", [{}, {"prefix": "pre-"}, {"wildcard_replacement": "wild"}])
def test_zone_changes_name_every_name_whose_records_changed(kw: dict[str, Any]) -> None:
    """`zone_changes` after each step names at least every name whose labelled records differ from the step
    before (a full read each time); names labelled before anyone asked (no digest taken) may be named too."""
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(step, min_size=1, max_size=25), st.booleans())
    def run(steps: list[tuple[str, str, str, int]], read_first: bool) -> None:
        provider = InMemoryProvider(ZONES)
        reg = TXTRegistry(provider, owner_id="me", **kw)
        if read_first:  # a first read nobody asks about (as --once): no digests taken, names count as changed
            reg.records()
        before = {zone: _by_name(full_read(provider, zone, **kw)) for zone in ZONES}
        for zone in ZONES:
            reg.zone_changes(zone)
        for op, name, rtype, n in steps:
            _run(reg, provider, op, name, rtype, n)
            for zone in ZONES:
                moved = reg.zone_changes(zone)
                now = _by_name(full_read(provider, zone, **kw))
                truly = {k for k in now.keys() | before[zone].keys() if now.get(k) != before[zone].get(k)}
                if moved is not None:
                    assert truly <= moved, (op, name, zone, truly - moved)
                before[zone] = now

    run()


def test_a_read_nobody_asks_about_takes_no_digests() -> None:
    """A first read (a --once run) labels the records without digesting them; once `zone_changes` is asked,
    a name labelled again is digested and, having no digest to compare with, counted as changed."""
    provider = InMemoryProvider(["example.org"])
    TXTRegistry(provider, owner_id="me").apply_changes(
        Changes(create=[_ep(f"h{i}.example.org", "A", "10.0.0.1") for i in range(20)]))
    reg = TXTRegistry(provider, owner_id="me")
    assert len(reg.records()) == 20
    owners = reg._owners.zones["example.org"]
    assert not owners._digests and len(owners._summary) == 20  # in the summary without a digest
    assert reg.zone_changes("example.org") is None  # the first ask: the whole zone may have changed
    assert reg.zone_changes("example.org") == set()
    reg.apply_changes(Changes(create=[_ep("new.example.org", "A", "10.0.0.2")]))
    assert reg.zone_changes("example.org") == {"new.example.org"}
    assert set(owners._digests) == {"new.example.org"} and len(set(owners._summary) - set(owners._digests)) == 20
    assert canon(reg.zone_records("example.org")) == canon(full_read(provider, "example.org"))


def test_items_of_a_snapshot_keeping_its_records_elsewhere() -> None:
    """A snapshot subclass answering `get`/`names` from its own storage (as RFC2136's view over its rrsets)
    hands its records to the registry's first read through those, not through the base class's table."""
    held = {"a.example.org": (_ep("a.example.org", "A", "10.0.0.1"),)}

    class View(ZoneSnapshot):
        def get(self, name: str) -> tuple[Endpoint, ...]:
            return held.get(name.lower().rstrip("."), ())

        def names(self) -> list[str]:
            return list(held)

    view = View("example.org")
    assert view.items() == [("a.example.org", held["a.example.org"])]
    base = ZoneSnapshot("example.org", [_ep("A.example.org.", "A", "10.0.0.1")])
    assert [(k, [e.dns_name for e in v]) for k, v in base.items()] == [("a.example.org", ["A.example.org."])]


class _FreshView(ZoneSnapshot):
    """A snapshot handing out new endpoints on every read (as RFC2136's view over its rrsets)."""

    fresh_records = True

    def __init__(self, inner: ZoneSnapshot) -> None:
        super().__init__(inner.zone)
        self.inner = inner
        self.handed: list[Endpoint] = []

    @property
    def version(self) -> int:
        return self.inner.version

    @version.setter
    def version(self, _value: int) -> None:
        pass

    def get(self, name: str) -> tuple[Endpoint, ...]:
        out = tuple(e.copy() for e in self.inner.get(name))
        self.handed.extend(out)
        return out

    def names(self) -> list[str]:
        return self.inner.names()

    def changed_since(self, version: int) -> set[str] | None:
        return self.inner.changed_since(version)


class _FreshProvider(InMemoryProvider):
    def __init__(self, zones: tuple[str, ...]) -> None:
        super().__init__(zones)
        self.views: dict[str, _FreshView] = {}

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        inner = super().zone_snapshot(zone)
        view = self.views.get(zone)
        if view is None or view.inner is not inner:
            view = self.views[zone] = _FreshView(inner)
        return view


def test_fresh_snapshot_records_are_labelled_without_a_copy() -> None:
    """Records a snapshot builds for the read are labelled as they are (no copy), with the same result as a
    full read, and no two reads share an object."""
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(step, min_size=1, max_size=20))
    def run(steps: list[tuple[str, str, str, int]]) -> None:
        provider = _FreshProvider(ZONES)
        reg = TXTRegistry(provider, owner_id="me")
        seen: set[int] = set()
        kept: list[list[Endpoint]] = []  # every read stays alive: ids are never reused
        for op, name, rtype, n in steps:
            _run(reg, provider, op, name, rtype, n)
            for zone in ZONES:
                got = reg.zone_records(zone)
                kept.append(got)
                assert canon(got) == canon(full_read(provider, zone)), (op, name, zone)
                ids = {id(e) for e in got}
                assert not ids & seen
                seen |= ids
                handed = {id(e) for e in provider.views[zone].handed} if zone in provider.views else set()
                assert ids <= handed  # the view's own objects, labelled, not copies

    run()


def _slow_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first read through the generic paths (`_take_txts`, `relabel` asking for digests) instead of the
    one-pass `_take_read_txts` / `_label_read`, with what those leave behind (no digests)."""
    from external_dns.registry.zone_owners import ZoneOwners

    def take(self: ZoneOwners, records_of: dict[str, tuple[Endpoint, ...]], taken: Any = None) -> set[str]:
        assert taken is None  # a snapshot handing ownership TXTs over (`items_taking`) is tested against this
        return self._take_txts(set(records_of), records_of)

    def label(self: ZoneOwners, names: Any, records_of: dict[str, tuple[Endpoint, ...]]) -> None:
        names = list(names)
        self._changed = set()
        try:
            ZoneOwners.relabel(self, names, records_of)
        finally:
            self._changed = None
        self._digests.clear()

    monkeypatch.setattr(ZoneOwners, "_take_read_txts", take)
    monkeypatch.setattr(ZoneOwners, "_label_read", label)


def _state(reg: TXTRegistry) -> tuple[Any, ...]:
    index = reg._owners
    zones = {z: (o._from_txt, o._summary, o._digests, {k: canon(v) for k, v in o._built.items()},
                 o.version) for z, o in index.zones.items()}
    return index.labels, index.stored_txts, index.txt_names, zones


@pytest.mark.parametrize("kw", [{}, {"prefix": "pre-"}, {"wildcard_replacement": "wild"}])
@pytest.mark.parametrize("fresh", [False, True])
def test_one_pass_first_read_equals_the_generic_one(kw: dict[str, Any], fresh: bool) -> None:
    """A registry's first read of a zone (the --once read: `_take_read_txts` + `_label_read`) gives the same
    records and leaves the same maps as the generic per-name paths, whatever the zone holds; later reads of
    the maps it leaves agree too."""
    @settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(step, min_size=1, max_size=25), st.sampled_from([ZONES, ZONES[::-1]]))
    def run(steps: list[tuple[str, str, str, int]], order: tuple[str, ...]) -> None:
        provider = _FreshProvider(ZONES) if fresh else InMemoryProvider(ZONES)
        writer = TXTRegistry(provider, owner_id="me", **kw)
        for op, name, rtype, n in steps:
            _run(writer, provider, op, name, rtype, n)
        fast = TXTRegistry(provider, owner_id="me", **kw)
        fast_reads = [canon(fast.zone_records(zone)) for zone in order]
        with pytest.MonkeyPatch.context() as mp:
            _slow_first_read(mp)
            slow = TXTRegistry(provider, owner_id="me", **kw)
            slow_reads = [canon(slow.zone_records(zone)) for zone in order]
        assert fast_reads == slow_reads
        assert _state(fast) == _state(slow)
        # a rebuild of a zone whose neighbours are read already (its TXTs may label the child zone's apex)
        for zone in order:
            fast._owners.zones[zone].version = -1
            got = canon(fast.zone_records(zone))
            with pytest.MonkeyPatch.context() as mp:
                _slow_first_read(mp)
                slow._owners.zones[zone].version = -1
                assert got == canon(slow.zone_records(zone))
            assert _state(fast) == _state(slow)
        assert canon(fast.records()) == canon(slow.records()) == canon(TXTRegistry(provider, owner_id="me", **kw)._read())
        for zone in ZONES:
            assert fast.zone_changes(zone) == slow.zone_changes(zone)

    run()


@runtime_checkable
class _HandsOverNothing(Protocol):
    def no_snapshot_has_this(self) -> None: ...


@pytest.mark.parametrize("kw", [{}, {"prefix": "pre-"}, {"wildcard_replacement": "wild"}])
def test_zone_file_first_read_taking_ownership_txts_equals_building_them(kw: dict[str, Any]) -> None:
    """The zone-file view hands a first read its ownership TXTs without building them (`items_taking`): same
    records, same maps and same later changes as reading every record set as an endpoint (`items`), and as
    the generic per-name paths."""
    import tempfile

    from external_dns.providers.zonefile import ZoneFileProvider, ZoneView

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(step, min_size=1, max_size=20))
    def run(steps: list[tuple[str, str, str, int]]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            provider = ZoneFileProvider(tmp, create_zones=ZONES)
            writer = TXTRegistry(provider, owner_id="me", **kw)
            for op, name, rtype, n in steps:
                _run(writer, provider, op, name, rtype, n)  # type: ignore[arg-type]
            regs = [TXTRegistry(ZoneFileProvider(tmp), owner_id="me", **kw) for _ in range(3)]
            reads = [[canon(regs[0].zone_records(zone)) for zone in ZONES]]
            assert isinstance(regs[0]._owners.zones[ZONES[0]].snapshot, ZoneView)  # the path under test
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(zone_owners, "HandsOverTxts", _HandsOverNothing)  # the snapshot's items(), built
                reads.append([canon(regs[1].zone_records(zone)) for zone in ZONES])
                _slow_first_read(mp)
                reads.append([canon(regs[2].zone_records(zone)) for zone in ZONES])
            assert reads[0] == reads[1] == reads[2]
            assert _state(regs[0]) == _state(regs[1]) == _state(regs[2])
            full = canon(TXTRegistry(ZoneFileProvider(tmp), owner_id="me", **kw)._read())
            assert all(canon(reg.records()) == full for reg in regs)

    run()


@pytest.mark.parametrize("kw", [{}, {"prefix": "pre-"}, {"wildcard_replacement": "wild"}])
def test_the_gate_counts_kept_name_by_name_equal_a_full_count(kw: dict[str, Any]) -> None:
    """The counts per (record type, owner) each zone's map keeps for the safety gate (`zone_view`), once
    counted, follow every relabelled name: after random reads (`zone_records`, `zone_changes`, `records`,
    asked or not), our writes and outside edits, they equal the map's records counted from scratch, and
    `count_existing` of the view equals `count_existing` of a full read, for every owner and type filter."""
    from external_dns.plan.safety import count_existing

    managed_sets = (None, ("A", "CNAME"), ("A", "AAAA", "CNAME", "TXT"))
    read = st.sampled_from(("zone_records", "zone_changes", "records", "view", "none"))

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(step, read), min_size=1, max_size=25))
    def run(steps: list[tuple[tuple[str, str, str, int], str]]) -> None:
        provider = InMemoryProvider(ZONES)
        reg = TXTRegistry(provider, owner_id="me", **kw)
        for (op, name, rtype, n), how in steps:
            _run(reg, provider, op, name, rtype, n)
            for zone in ZONES:
                if how == "zone_records":
                    reg.zone_records(zone)
                elif how == "zone_changes":
                    reg.zone_changes(zone)
                elif how == "records":
                    reg.records()
                elif how == "view":
                    reg.zone_view(zone)
                owners = reg._owners.zones.get(zone)
                if owners is not None and owners._counts is not None:
                    assert owners._counts == owners.full_counts(), (op, name, zone)
            for zone in ZONES:
                records = reg.zone_records(zone)  # the refresh an event run does before the gate reads the view
                view = reg.zone_view(zone)
                full = full_read(provider, zone, **kw)
                assert len(view) == len(records)
                for owner in ("me", "other", ""):
                    for managed in managed_sets:
                        assert count_existing(view, owner, managed) == count_existing(full, owner, managed) \
                            == count_existing(list(view), owner, managed), (op, name, zone, owner, managed)

    run()
