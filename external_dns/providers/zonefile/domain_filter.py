"""The zonefile provider's domain filter: the names whose closest zone file parsed."""

from __future__ import annotations

from collections.abc import Iterable

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.zones import normalize_zone

_FEW_ZONES = 8  # up to this many zones a name is matched against each zone, beyond by its suffixes


class ZoneDomainFilter(DomainFilter):
    """Names whose closest zone file parsed (names under a broken zone file are out of scope)."""

    def __init__(self, good: Iterable[str], broken: Iterable[str] = ()) -> None:
        super().__init__(include=list(good))
        self.good = frozenset(normalize_zone(z) for z in good)
        self._all = sorted(self.good | {normalize_zone(z) for z in broken})
        # zone in the form `zone_for_name` compares -> its file parsed (the first of a form wins, as there)
        self._usable: dict[str, bool] = {}
        for zone in self._all:
            self._usable.setdefault(normalize_zone(zone), zone in self.good)
        # few zones (the common case): each zone's form tried longest first, (form, "." + form, usable)
        few = tuple(sorted(((z, "." + z, ok) for z, ok in self._usable.items() if z), key=lambda t: -len(t[0])))
        self._few: tuple[tuple[str, str, bool], ...] | None = few if len(few) <= _FEW_ZONES else None
        self._rest = self._usable.get("", False)  # what a name in none of them gets (the catch-all zone's)

    def match(self, domain: str) -> bool:
        """`zone_for_name(domain, zones)` names a good zone: with few zones, the zones' forms tried longest
        first; else the name's suffixes looked up, longest first (one dict lookup per label, whatever the
        number of zones; a plan asks for every record)."""
        name = domain.strip().lower()
        if name.endswith("."):
            name = name[:-1]
        few = self._few
        if few is not None:
            for form, dotted, ok in few:
                if name.endswith(dotted) or name == form:
                    return ok
            return self._rest
        usable = self._usable
        while True:
            found = usable.get(name)
            if found is not None:
                return found
            dot = name.find(".")
            if dot < 0:
                return usable.get("", False) if name else False
            name = name[dot + 1 :]

    def is_configured(self) -> bool:
        return True
