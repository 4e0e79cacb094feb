"""The TXT registry's ownership maps, kept per zone and brought up to date name by name from the provider's
zone snapshots (providers/snapshot.py) instead of re-reading the zones.

`ZoneOwners.refresh()` asks its zone's snapshot which names changed since the version it last saw and redoes
only those: the ownership TXTs at a changed name give or take labels (`OwnershipIndex.labels`, shared by
every zone of the registry: with a `--txt-prefix` the TXT of a zone's apex record sits in the parent zone),
and every record at an affected name, in whichever zone it lives, is labelled again with the registry's own
rule (`TXTRegistry._attach_labels`). The result equals a full read. A new snapshot object or a journal that
no longer reaches back rebuilds that zone; the first or last ownership TXT of the registry relabels
everything (the forced-update rule looks at whether any exists). Callers refresh ancestor zones before their
children (`OwnershipIndex.refresh`).

Not thread-safe on its own: the registry calls it under its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Protocol, runtime_checkable

import structlog

from external_dns.endpoint.endpoint import OWNER_LABEL_KEY, RECORD_TYPE_TXT, Endpoint
from external_dns.endpoint.names import name_key
from external_dns.plan.fingerprint import fingerprint
from external_dns.plan.safety import CountedRecords, is_ownership_txt
from external_dns.providers.provider import zone_for_name
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.registry.encrypted import UNDECRYPTABLE_LABELS

log = structlog.get_logger(__name__)

LabelKey = tuple[str, str, str]  # (endpoint name lower-case, record type or "", set identifier)
TxtKey = tuple[str, str]  # (TXT name lower-case, set identifier)
# An ownership TXT's values as the registry stores them: the string alone for one value (the usual), else a
# tuple (a one-element tuple costs 64 bytes: 6 MiB for 100k records).
StoredTxt = str | tuple[str, ...]


def stored_txt(values: Iterable[str]) -> StoredTxt:
    """How `values` are stored (see `StoredTxt`)."""
    held = tuple(values)
    return held[0] if len(held) == 1 else held


def stored_values(stored: StoredTxt) -> tuple[str, ...]:
    """The values `stored` stands for."""
    return (stored,) if isinstance(stored, str) else stored


# What the ownership TXTs at one snapshot name gave: the label key alone for the usual one TXT stored under
# (that name, the key's set identifier); else ((label key, TXT key stored), ...). Saves two tuples a record.
_FromTxt = LabelKey | tuple[tuple[LabelKey, TxtKey], ...]
# an ownership TXT of a first read: (name key, TXT name as spelled, set identifier, values, labels)
_Taken = tuple[str, str, str, tuple[str, ...], dict[str, str]]


class Labeller(Protocol):
    """What the maps need from the registry."""

    def _ownership_labels(self, record: Endpoint) -> dict[str, str] | None: ...

    def _labels_at(self, txt_name: str, text: str) -> dict[str, str] | None: ...

    def _is_ownership_txt(self, record: Endpoint) -> bool: ...

    def _count_undecryptable(self, names: Iterable[str], zone: str | None = None) -> None: ...

    def _attach_labels(self, ep: Endpoint, label_map: dict[LabelKey, dict[str, str]],
                       txt_names: set[str], holds: Callable[[str, str | None, str], bool] | None = None) -> None: ...


@runtime_checkable
class HandsOverTxts(Protocol):
    """A zone snapshot whose first read can hand over TXT record sets without building them (the zone-file
    view): `items_taking(take)` is `items()`, except that a TXT record set whose values `take(name key, name,
    values)` claims is left out of the records."""

    def items_taking(self, take: Callable[[str, str, tuple[str, ...]], bool]
                     ) -> list[tuple[str, tuple[Endpoint, ...]]]: ...


class OwnershipIndex:
    """Every zone's map and the tables they share."""

    def __init__(self, registry: Labeller, to_endpoint_name: Callable[[str], tuple[str, str]],
                 wildcard_replacement: str, stored_txts: dict[TxtKey, StoredTxt]) -> None:
        self.registry = registry
        self.to_endpoint_name = to_endpoint_name
        self.wildcard = wildcard_replacement
        self.stored_txts = stored_txts  # the registry's table of TXT values, kept in step
        self.labels: dict[LabelKey, dict[str, str]] = {}
        self.txt_names: set[str] = set()
        self.zones: dict[str, ZoneOwners] = {}
        self.zone_list: list[str] = []

    def refresh(self, zone: str, snapshot_of: Callable[[str], ZoneSnapshot], zone_list: list[str]) -> ZoneOwners:
        """The zone's map, up to date, after its ancestor zones' maps (their TXTs may label its apex)."""
        self.zone_list = zone_list
        chain = sorted((z for z in zone_list if _inside(zone, z)), key=lambda z: len(name_key(z)))
        owners: ZoneOwners | None = None
        for z in chain or [zone]:
            snap = snapshot_of(z)
            owners = self.zones.get(z)
            if owners is None or owners.snapshot is not snap:
                if owners is not None:
                    owners.drop()
                owners = ZoneOwners(z, snap, self)
                self.zones[z] = owners
            owners.refresh()
        assert owners is not None
        return owners

    def relabel(self, names: set[str]) -> None:
        """Label the records at `names` again, each in its own zone's map."""
        for name in list(names):
            first, dot, rest = name.partition(".")
            if self.wildcard and first == self.wildcard:
                names.add("*" + dot + rest)
            elif self.wildcard and first == "*":  # `*.b` and `star.b` share ownership TXTs: both are labelled again
                names.add(self.wildcard + dot + rest)
        by_zone: dict[str | None, set[str]] = {}
        for name in names:
            by_zone.setdefault(zone_for_name(name, self.zone_list or [""]), set()).add(name)
        for zone, part in by_zone.items():
            owners = self.zones.get(zone) if zone is not None else None
            if owners is not None:
                owners.relabel(part)

    def holds(self, name: str, rtype: str | None, set_id: str) -> bool:
        """Whether the zone holding `name` has a record there of `rtype` (None: of any type) and set identifier
        (ownership TXTs aside), in its current snapshot: for the wildcard replacement's twins."""
        zone = zone_for_name(name, self.zone_list or [""])
        owners = self.zones.get(zone) if zone is not None else None
        if owners is None:
            return False
        is_ownership = self.registry._is_ownership_txt
        return any(r.set_identifier == set_id and (rtype is None or r.record_type == rtype)
                   and not (r.record_type == RECORD_TYPE_TXT and r.targets and is_ownership(r))
                   for r in owners.snapshot.get(name_key(name)))

    def relabel_all(self, read: dict[str, dict[str, tuple[Endpoint, ...]]] | None = None) -> None:
        """Label every zone's records again (`read`: zone -> its records by name key, just read)."""
        for zone, owners in self.zones.items():
            records_of = read.get(zone) if read is not None else None
            if records_of is None:
                records_of = dict(owners.snapshot.items())
            owners.relabel(records_of.keys() | owners._summary.keys() if owners._summary else records_of, records_of)

    def clear(self) -> None:
        for owners in list(self.zones.values()):
            owners.drop()
        self.zones.clear()


class ZoneOwners:
    """One zone's labelled records and the ownership TXTs read from it (see the module docstring)."""

    def __init__(self, zone: str, snapshot: ZoneSnapshot, index: OwnershipIndex) -> None:
        self.zone = zone
        self.snapshot = snapshot
        self.index = index
        self.version = -1
        # snapshot name -> what its ownership TXTs gave (`_FromTxt`: read with `_pairs`)
        self._from_txt: dict[str, _FromTxt] = {}
        # name holding labelled records -> (record type, owner label) of each but ownership markers: what the
        # safety gate counts, without building the records (`view`); its keys are the names holding records
        self._summary: dict[str, tuple[tuple[str, str], ...]] = {}
        # (record type, owner label) -> how many records `_summary` holds with it: what `view` hands the gate,
        # kept in step name by name by `relabel` once counted (None: not counted since the last rebuild; the
        # next `view` counts `_summary` once), so an event run's gate reads the zone in O(distinct pairs)
        self._counts: dict[tuple[str, str], int] | None = None
        # name holding records -> digest of its labelled records, taken only while someone asks which names
        # changed (`take_changed`): names labelled before that (a first read, e.g. a --once run, never asks)
        # have none, and count as changed when they are next labelled (in `_summary` without a digest: no set
        # of them is kept, ~4 MiB at 100k names)
        self._digests: dict[str, bytes] = {}
        # names whose labelled records were redone since `take_changed` (None: the whole zone)
        self._changed: set[str] | None = None
        # the records `relabel` just built, handed out by the next `records` instead of building them again
        # (a first read builds each name once, not twice); emptied by every `records`, so between reads the
        # zone is still held once
        self._built: dict[str, list[Endpoint]] = {}

    # -- refresh ---------------------------------------------------------------------------------------------
    def refresh(self) -> int:
        """Bring the map up to the snapshot's version; returns the names redone."""
        version = self.snapshot.version
        changed = self.snapshot.changed_since(self.version) if self.version >= 0 else None
        records_of: dict[str, tuple[Endpoint, ...]] | None = None
        if changed is None:  # a rebuild: every name, read in one pass over the snapshot
            self.drop()
            taken: list[_Taken] | None = None
            if not isinstance(self.snapshot, HandsOverTxts):
                records_of = dict(self.snapshot.items())
            else:  # the ownership TXTs handed over as they are read, without an endpoint each
                taken = []
                labels_at, keep = self.index.registry._labels_at, taken.append

                def take(key: str, name: str, values: tuple[str, ...]) -> bool:
                    labels = labels_at(name, values[0])
                    if labels is None:
                        return False
                    keep((key, name, "", values, labels))
                    return True

                records_of = dict(self.snapshot.items_taking(take))
            had_txt = bool(self.index.txt_names)
            labelled = self._take_read_txts(records_of, taken)
            if had_txt != bool(self.index.txt_names):
                self.index.relabel_all({self.zone: records_of})
            else:
                self.index.relabel(labelled.union(records_of))
            self.version = version
            return len(records_of)
        if changed:
            had_txt = bool(self.index.txt_names)
            affected = self._take_txts(changed, records_of)
            if had_txt != bool(self.index.txt_names):
                # the records just read serve the relabelling too (a snapshot building them per read would
                # build them twice)
                self.index.relabel_all({self.zone: records_of} if records_of is not None else None)
            else:
                self.index.relabel(affected)
        self.version = version
        return len(changed)

    def drop(self) -> None:
        """Forget the zone's TXTs (their labels and stored values) and its labelled records' digests."""
        affected: set[str] = set()
        for name, held in self._from_txt.items():
            for key, tkey in _pairs(name, held):
                self.index.labels.pop(key, None)
                affected.add(key[0])
                self.index.stored_txts.pop(tkey, None)
        for name in self._from_txt:
            self.index.txt_names.discard(name)
        self._from_txt.clear()
        self._digests.clear()
        self._summary.clear()
        self._counts = None
        self._built.clear()
        self.version = -1
        self._changed = None
        if self.index.zones.get(self.zone) is self:
            foreign = {n for n in affected if zone_for_name(n, self.index.zone_list or [""]) != self.zone}
            if foreign:
                self.index.relabel(foreign)

    def _take_txts(self, names: Collection[str], records_of: dict[str, tuple[Endpoint, ...]] | None = None) -> set[str]:
        """Re-read the ownership TXTs at `names` (their records from `records_of` when given, the snapshot's
        records by name key); returns the names whose records need labelling again."""
        index = self.index
        labels_of, stored_txts, txt_names = index.labels, index.stored_txts, index.txt_names
        ownership_labels, to_endpoint_name = index.registry._ownership_labels, index.to_endpoint_name
        from_txt = self._from_txt
        snapshot_get = self.snapshot.get
        affected: set[str] = set(names)
        undecryptable: list[str] = []
        held_before = bool(from_txt) and records_of is None  # a rebuild starts from nothing (`drop`)
        for name in names:
            if held_before:
                for key, tkey in _pairs(name, from_txt.pop(name, ())):
                    labels_of.pop(key, None)
                    affected.add(key[0])
                    stored_txts.pop(tkey, None)
            txt_names.discard(name)
            for record in snapshot_get(name) if records_of is None else records_of.get(name, ()):
                if record.record_type != RECORD_TYPE_TXT or not record.targets:
                    continue
                labels = ownership_labels(record)
                if labels is None:
                    continue
                ep_name, rtype = to_endpoint_name(record.dns_name)
                key = (ep_name, rtype, record.set_identifier)
                labels_of[key] = labels
                low = record.dns_name.lower()
                tkey = (name if low == name else low, record.set_identifier)  # the key's string when equal
                stored_txts[tkey] = stored_txt(record.targets)
                _hold(from_txt, name, key, tkey)
                txt_names.add(name)
                affected.add(ep_name)
                if labels is UNDECRYPTABLE_LABELS:
                    undecryptable.append(ep_name)
        if undecryptable:
            index.registry._count_undecryptable(undecryptable, self.zone)
        return affected

    def _take_read_txts(self, records_of: dict[str, tuple[Endpoint, ...]], taken: list[_Taken] | None = None
                        ) -> set[str]:
        """`_take_txts` for a rebuild (`drop` just emptied the zone's part): the ownership TXTs of every name of
        the zone just read (`taken`: those the snapshot handed over instead of building them, in the order
        read; else found in `records_of`); returns the endpoint names they label (the caller adds the zone's
        names)."""
        index = self.index
        labels_of, stored_txts, txt_names = index.labels, index.stored_txts, index.txt_names
        to_endpoint_name = index.to_endpoint_name
        from_txt = self._from_txt
        if taken is None:
            ownership_labels = index.registry._ownership_labels
            taken = []
            for name, records in records_of.items():
                for record in records:
                    if record.record_type != RECORD_TYPE_TXT or not record.targets:
                        continue
                    labels = ownership_labels(record)
                    if labels is not None:
                        taken.append((name, record.dns_name, record.set_identifier, tuple(record.targets), labels))
        labelled: set[str] = set()
        txt_names.difference_update(records_of)  # as `_take_txts` discards each name before reading it
        for name, dns_name, set_id, values, labels in taken:
            low = dns_name.lower()
            ep_name, rtype = to_endpoint_name(low)
            key = (ep_name, rtype, set_id)
            labels_of[key] = labels
            tkey = (name if low == name else low, set_id)  # the key's string when equal
            stored_txts[tkey] = stored_txt(values)
            _hold(from_txt, name, key, tkey)
            txt_names.add(name)
            labelled.add(ep_name)
        undecryptable = [name for name, _n, _s, _v, labels in taken if labels is UNDECRYPTABLE_LABELS]
        if undecryptable:
            index.registry._count_undecryptable(undecryptable, self.zone)
        return labelled

    def relabel(self, names: Iterable[str], records_of: dict[str, tuple[Endpoint, ...]] | None = None) -> None:
        """Label the records at `names` (of this zone) again from the shared label map (their records from
        `records_of` when given: the snapshot's records by name key, and then `names` are name keys too); a
        name whose labelled records changed is remembered for `take_changed`."""
        built, digests, summary = self._built, self._digests, self._summary
        changed = self._changed
        if changed is None and records_of is not None:
            self._label_read(names, records_of)
            return
        counts = self._counts
        snapshot_get, build = self.snapshot.get, self._build
        for name in names:
            key = name_key(name) if records_of is None else name  # `records_of` comes with name keys
            out = build(snapshot_get(key) if records_of is None else records_of.get(key, ()))
            before = digests.pop(key, None)
            unknown = before is None and key in summary  # labelled before digests were taken
            after: bytes | None = None
            if counts is not None:
                _uncount(counts, summary.get(key, ()))
            if out:
                built[key] = out
                pairs = tuple([(e.record_type, e.labels.get(OWNER_LABEL_KEY, "")) for e in out
                               if e.record_type != RECORD_TYPE_TXT or not is_ownership_txt(e)])
                summary[key] = _shared(pairs) if len(pairs) == 1 else pairs
                if counts is not None:
                    for pair in pairs:
                        counts[pair] = counts.get(pair, 0) + 1
                if changed is not None:  # else nobody asks what changed yet: no digest (see `_digests`)
                    after = digests[key] = fingerprint(out)
            else:
                built.pop(key, None)
                summary.pop(key, None)
            if changed is not None and (unknown or before != after):
                changed.add(key)

    def _label_read(self, names: Iterable[str], records_of: dict[str, tuple[Endpoint, ...]]) -> None:
        """`relabel` of names just read (`records_of`, by name key) while nobody asks what changed (no
        digests: see `_digests`): `_build` inline, one pass."""
        built, summary = self._built, self._summary
        self._counts = None  # counted again by the next `view` (a rebuild, or every name relabelled)
        index = self.index
        registry = index.registry
        label_map, txt_names = index.labels, index.txt_names
        is_ownership, attach = registry._is_ownership_txt, registry._attach_labels
        holds = index.holds if index.wildcard else None
        fresh = self.snapshot.fresh_records
        for key in names:
            out: list[Endpoint] = []
            for record in records_of.get(key, ()):
                if record.record_type == RECORD_TYPE_TXT and (not record.targets or is_ownership(record)):
                    continue
                ep = record if fresh else record.copy()
                attach(ep, label_map, txt_names, holds)
                out.append(ep)
            if out:
                built[key] = out
                if len(out) == 1:
                    ep = out[0]
                    summary[key] = (() if ep.record_type == RECORD_TYPE_TXT and is_ownership_txt(ep) else
                                    _shared(((ep.record_type, ep.labels.get(OWNER_LABEL_KEY, "")),)))
                else:
                    summary[key] = tuple([(e.record_type, e.labels.get(OWNER_LABEL_KEY, "")) for e in out
                                          if e.record_type != RECORD_TYPE_TXT or not is_ownership_txt(e)])
            else:
                built.pop(key, None)
                summary.pop(key, None)

    def _build(self, records: Iterable[Endpoint]) -> list[Endpoint]:
        """`records` (of one name, from the snapshot) with their labels, ownership TXTs left out: copies, or
        the records themselves when the snapshot built them for this read (`fresh_records`)."""
        index = self.index
        registry = index.registry
        label_map, txt_names = index.labels, index.txt_names
        fresh = self.snapshot.fresh_records  # records built for this read are ours to label: no copy
        holds = index.holds if index.wildcard else None
        out: list[Endpoint] = []
        for record in records:
            if record.record_type == RECORD_TYPE_TXT:
                if not record.targets:
                    continue  # logged by the full read; never an ordinary record
                if registry._is_ownership_txt(record):
                    continue
            ep = record if fresh else record.copy()
            registry._attach_labels(ep, label_map, txt_names, holds)
            out.append(ep)
        return out

    def take_changed(self) -> set[str] | None:
        """The names whose records changed since the last call (None: the whole zone may have), then forget."""
        changed, self._changed = self._changed, set()
        return changed

    def view(self) -> CountedRecords:
        """Every labelled record as the safety gate counts it (type and owner), without building the records:
        the zone's counts per (type, owner), counted once after a rebuild and kept in step by `relabel`."""
        counts = self._counts
        if counts is None:
            counts = self._counts = {}
            for pairs in self._summary.values():
                for pair in pairs:
                    counts[pair] = counts.get(pair, 0) + 1
        return CountedRecords({pair: n for pair, n in counts.items() if n})

    def full_counts(self) -> dict[tuple[str, str], int]:
        """`view`'s counts counted from scratch (tests: the kept counts equal these)."""
        counts: dict[tuple[str, str], int] = {}
        for pairs in self._summary.values():
            for pair in pairs:
                counts[pair] = counts.get(pair, 0) + 1
        return counts

    # -- reading ---------------------------------------------------------------------------------------------
    def records(self, names: Iterable[str] | None = None) -> list[Endpoint]:
        """The labelled records (of `names` only, when given), fresh objects. Only a digest per name is kept
        between reads, so the zone is held once (in the provider's snapshot)."""
        keys = list(self._summary) if names is None else [k for k in {name_key(n) for n in names}
                                                          if k in self._summary]
        built, self._built = self._built, {}
        get = self.snapshot.get
        return [ep for key in keys for ep in (built.get(key) or self._build(get(key)))]

    def owned_count(self, owner_id: str, managed: Callable[[str], bool]) -> int:
        """Records of this owner of managed types (the safety gate's denominator)."""
        return sum(n for (rtype, owner), n in self.view().type_owner_counts().items()
                   if owner and owner == owner_id and managed(rtype))


def _pairs(name: str, held: _FromTxt) -> tuple[tuple[LabelKey, TxtKey], ...]:
    """The (label key, TXT key) pairs `held` at snapshot name `name` stands for."""
    if held and isinstance(held[0], str):
        key: LabelKey = held
        return ((key, (name, key[2])),)
    return held


def _hold(from_txt: dict[str, _FromTxt], name: str, key: LabelKey, tkey: TxtKey) -> None:
    """Note at `name` that an ownership TXT stored at `tkey` gave `key`."""
    held = from_txt.get(name)
    if held is None and tkey[0] == name and tkey[1] == key[2]:
        from_txt[name] = key
    else:
        from_txt[name] = (*(_pairs(name, held) if held is not None else ()), (key, tkey))


def _uncount(counts: dict[tuple[str, str], int], pairs: tuple[tuple[str, str], ...]) -> None:
    for pair in pairs:
        left = counts[pair] - 1
        if left:
            counts[pair] = left
        else:
            del counts[pair]


_SHARED: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
_MAX_SHARED = 4096


def _shared(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """One tuple per distinct summary of a one-record name (a zone has few (type, owner) pairs; bounded)."""
    held = _SHARED.get(pairs)
    if held is None:
        if len(_SHARED) >= _MAX_SHARED:
            _SHARED.clear()
        held = _SHARED[pairs] = pairs
    return held


def _inside(zone: str, ancestor: str) -> bool:
    """`zone` is `ancestor` or below it (zones as the provider names them; "" holds everything)."""
    z, a = name_key(zone), name_key(ancestor)
    return not a or z == a or z.endswith("." + a)
