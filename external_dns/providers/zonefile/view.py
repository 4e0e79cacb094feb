"""The kept view of a zone file by name (`ZoneView`, a `providers/snapshot.py` ZoneSnapshot): endpoints are
built when read, so the zone is held once, as the file's record sets; `follow` moves the view to another
version of the file and journals the names whose record sets changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot
from external_dns.providers.zonefile.files import ZoneFile
from external_dns.providers.zonetext import Rrset, ZoneData


class ZoneView(ByNameSnapshot):
    """A zone file's records by name (providers/snapshot.py) as a view over the parsed file: endpoints are built
    when read (`fresh_records`), so the zone is held once, as the file's record sets. `follow(zf, names)` moves
    the view to another version of the file and journals the names that changed: `names` when the caller knows
    them (our own writes), else the names whose record sets differ."""

    fresh_records = True

    def __init__(self, zone: str, zf: ZoneFile | None = None) -> None:
        super().__init__(zone)
        data = zf.data if zf is not None else None
        # (the file's record sets, name key -> record types there, sorted): one attribute, so a reader on
        # another thread always sees both of one version
        self._state = (data, _types_by_name(data))

    def follow(self, zf: ZoneFile | None, names: Iterable[str] | None = None) -> None:
        old, old_types = self._state
        new = zf.data if zf is not None else None
        # the names whose record sets differ: among `names` (our own writes) or, from another writer, all
        if names is None or new is None:
            new_types = _types_by_name(new)
            candidates = old_types.keys() | new_types.keys() if names is None else set(names)
        else:  # only `names` moved: their types looked up, the rest as they were (not a pass over the zone)
            candidates = set(names)
            new_types = dict(old_types)
            for name in candidates:
                held = _types_at(new, name)
                if held:
                    new_types[name] = held
                else:
                    new_types.pop(name, None)
        names = [n for n in candidates if _sets_at(old, old_types, n) != _sets_at(new, new_types, n)]
        with self._lock:
            self._state = (new, new_types)
            for name in names:
                self.version += 1
                self._journal.append((self.version, name))

    def get(self, name: str) -> tuple[Endpoint, ...]:
        key = name_key(name)
        data, types = self._state
        return _endpoints_at(data, key, types.get(key, ()))

    def names(self) -> list[str]:
        return list(self._state[1])

    def items(self) -> list[tuple[str, tuple[Endpoint, ...]]]:
        return self._items(None)

    def items_taking(self, take: Callable[[str, str, tuple[str, ...]], bool]) -> list[tuple[str, tuple[Endpoint, ...]]]:
        """`items()`, except that a TXT record set with values which `take(name key, name, values)` claims
        (returns True for) is not built: the TXT registry's first read takes its ownership TXTs so, without
        an endpoint each. Every name stays (with `()` when all of its record sets were taken)."""
        return self._items(take)

    def _items(self, take: Callable[[str, str, tuple[str, ...]], bool] | None
               ) -> list[tuple[str, tuple[Endpoint, ...]]]:
        data, types_of = self._state
        if data is None:
            return []
        rrsets, record = data.rrsets, Endpoint.record
        out: list[tuple[str, tuple[Endpoint, ...]]] = []
        for key, types in types_of.items():
            if len(types) == 1:  # most names: one record set, looked up inline
                rtype = types[0]
                rrset = rrsets.get((key, rtype)) or _rrset_at(data, key, rtype)
                if take is not None and rtype == "TXT" and rrset[2] and take(key, rrset[0], rrset[2]):
                    out.append((key, ()))
                else:
                    out.append((key, (record(rrset[0], rtype, Targets(rrset[2]), rrset[1]),)))
                continue
            eps: list[Endpoint] = []
            for rtype in types:
                rrset = _rrset_at(data, key, rtype)
                if take is not None and rtype == "TXT" and rrset[2] and take(key, rrset[0], rrset[2]):
                    continue
                eps.append(record(rrset[0], rtype, Targets(rrset[2]), rrset[1]))
            out.append((key, tuple(eps)))
        return out

    def endpoints(self) -> list[Endpoint]:
        return [ep for _key, eps in self.items() for ep in eps]

    def __len__(self) -> int:
        return sum(len(types) for types in self._state[1].values())


def _types_by_name(data: ZoneData | None) -> dict[str, tuple[str, ...]]:
    """name key -> the record types held there (sorted, as a by-name snapshot orders a name's records), in
    the order the names first appear."""
    if data is None:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for (name, rtype), rrset in data.rrsets.items():
        key = name if not name.endswith(".") else name_key(rrset[0])  # the root name: "." -> ""
        held = out.get(key)
        if held is None:
            out[key] = _one_type(rtype)
        else:
            out[key] = tuple(sorted((*held, rtype)))
    return out


def _types_at(data: ZoneData, key: str) -> tuple[str, ...]:
    """The record types held at the name key `key`, sorted (`_types_by_name` of one name)."""
    rrsets = data.rrsets
    held = [t for t in data.types() if (key, t) in rrsets or (not key and (".", t) in rrsets)]
    return _one_type(held[0]) if len(held) == 1 else tuple(sorted(held))


@lru_cache(maxsize=64)
def _one_type(rtype: str) -> tuple[str, ...]:
    return (rtype,)  # one shared 1-tuple per type: most names hold one record set


def _rrset_at(data: ZoneData, key: str, rtype: str) -> Rrset:
    """The record set of `rtype` at the name key `key` (rrsets are keyed by the name without its final dot,
    which differs from the name key only for the root name)."""
    rrset = data.rrsets.get((key, rtype))
    if rrset is not None:
        return rrset
    return next(r for (_n, t), r in data.rrsets.items() if t == rtype and name_key(r[0]) == key)


def _endpoints_at(data: ZoneData | None, key: str, types: tuple[str, ...]) -> tuple[Endpoint, ...]:
    if data is None:
        return ()
    record = Endpoint.record
    return tuple([record(rrset[0], rtype, Targets(rrset[2]), rrset[1])
                  for rtype in types for rrset in (_rrset_at(data, key, rtype),)])


def _sets_at(data: ZoneData | None, types: dict[str, tuple[str, ...]], key: str) -> list[tuple[str, Rrset]]:
    """(type, record set) of each record set at the name key `key`."""
    if data is None:
        return []
    return [(rtype, _rrset_at(data, key, rtype)) for rtype in types.get(key, ())]

