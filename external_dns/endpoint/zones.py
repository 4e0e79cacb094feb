"""Zone names: which zone holds a DNS name, and the one normal form zone names are compared in."""

from __future__ import annotations

from collections.abc import Callable, Sequence

# name_key is names.py's; re-exported for the code (controller/, branches in flight) that imports it from here
from external_dns.endpoint.names import name_key as name_key


def normalize_zone(zone: str) -> str:
    """Lower-case, blanks and one trailing dot removed ("" stays "": the provider's one zone holding
    everything)."""
    z = zone.strip().lower()
    return z[:-1] if z.endswith(".") else z


def log_zone(zone: str | None) -> str:
    """The zone as the `zone=` field of log lines names it, in every mode: without the trailing dot (`.` for
    the catch-all zone, never an empty field)."""
    return normalize_zone(zone or "") or "."


def display_zone(zone: str | None) -> str:
    """The zone as octoDNS prints it: fully qualified with a trailing dot (`.` for the catch-all zone)."""
    z = normalize_zone(zone or "")
    return z + "." if z else "."


def zone_for_name(name: str, zones: Sequence[str]) -> str | None:
    """The zone (one of `zones`, as given) that holds `name`: the longest zone name equal to `name` or a
    suffix of it on a label boundary (`www.example.org` is in `example.org`, `badexample.org` is not). A
    zone named "" holds every name. None when no zone fits. Case-insensitive; trailing dots ignored."""
    bare = name.strip().lower()
    if bare.endswith("."):
        bare = bare[:-1]
    best: str | None = None
    best_len = -1
    forms = _zone_forms
    for zone in zones:
        z = forms.get(zone)
        if z is None:
            z = normalize_zone(zone)
            if len(forms) < _MAX_ZONE_FORMS:
                forms[zone] = z
        if (not z or bare == z or bare.endswith("." + z)) and len(z) > best_len:
            best, best_len = zone, len(z)
    return best


def zone_finder(zones: Sequence[str]) -> Callable[[str], str | None]:
    """`zone_for_name(name, zones)` as a function of the name, for asking about many names against the same
    zones: the zones' normal forms are worked out once and tried longest first (the first given of equal
    length, as there), so one name costs its own normal form and a suffix test per zone up to the match."""
    order = sorted(((normalize_zone(z), z) for z in zones), key=lambda pair: -len(pair[0]))
    forms = tuple((z, "." + z, zone) for z, zone in order)
    if len(forms) == 1 and forms[0][0]:
        only, dotted, given = forms[0]

        def find_one(name: str) -> str | None:
            bare = name.strip().lower()
            if bare.endswith("."):
                bare = bare[:-1]
            return given if bare == only or bare.endswith(dotted) else None

        return find_one

    def find(name: str) -> str | None:
        bare = name.strip().lower()
        if bare.endswith("."):
            bare = bare[:-1]
        for z, dotted, zone in forms:
            if not z or bare == z or bare.endswith(dotted):
                return zone
        return None

    return find


# Zone names are few and asked about for every record: their normal forms are remembered (bounded; a dict's
# get/set are atomic, so threads may share it).
_MAX_ZONE_FORMS = 4096
_zone_forms: dict[str, str] = {}
