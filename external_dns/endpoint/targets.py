"""Targets: the values of a record set, with external-dns's IP-aware, case-insensitive comparisons
(`endpoint/endpoint.go`). Departure from Go: `Same` / `IsLess` sort their arguments in place there; here
they compare sorted copies and never mutate their arguments.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterable
from functools import cmp_to_key

import cachetools

from external_dns.endpoint.names import IPV4

_IPAddr = ipaddress.IPv4Address | ipaddress.IPv6Address
_IP_FIRST_CHARS = frozenset("0123456789abcdefABCDEF:")

# Parsed-IP memo: target strings repeat across loops (same records every sync) and parsing is the costly part.
_ip_cache: cachetools.LRUCache[str, _IPAddr | None] = cachetools.LRUCache(maxsize=1 << 16)


@cachetools.cached(_ip_cache, lock=threading.Lock())
def _parse_ip(value: str) -> _IPAddr | None:
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def parse_ip(value: str) -> _IPAddr | None:
    """The address `value` denotes, or None when it is not an IPv4/IPv6 address (Go `netip.ParseAddr`)."""
    if not value or value[0] not in _IP_FIRST_CHARS or "/" in value:
        return None
    if IPV4.fullmatch(value):  # converted from its packed bytes: several times cheaper than ipaddress's parser,
        return ipaddress.IPv4Address(socket.inet_aton(value))  # no memo needed (100k records, 100k addresses)
    return _parse_ip(value)


def _canonical(addr: _IPAddr) -> str:
    return str(addr)


def _less(a: str, b: str) -> bool:
    """Go `Targets.Less`: canonical IP strings when both parse, else plain string order."""
    ia = parse_ip(a)
    if ia is None:
        return a < b
    ib = parse_ip(b)
    if ib is None:
        return a < b
    return _canonical(ia) < _canonical(ib)


def _cmp(a: str, b: str) -> int:
    if _less(a, b):
        return -1
    if _less(b, a):
        return 1
    return 0


_SORT_KEY = cmp_to_key(_cmp)


def sorted_targets(items: Iterable[str]) -> list[str]:
    """A stable sort by the `Less` order of external-dns's `Targets` (a copy; the input is not touched).

    `Less` is not a total order when IPs and hostnames mix, so the algorithm matters: lists of up to 20
    elements use the same insertion sort as Go's `sort.Stable` / `sort.Sort` do at that size, which gives
    identical results; longer lists use Python's stable sort.
    """
    lst = list(items)
    n = len(lst)
    if n < 2:
        return lst
    if n > 20:
        return sorted(lst, key=_SORT_KEY)
    for i in range(1, n):
        j = i
        while j > 0 and _less(lst[j], lst[j - 1]):
            lst[j], lst[j - 1] = lst[j - 1], lst[j]
            j -= 1
    return lst


def _ip_order(addr: _IPAddr) -> tuple[int, int]:
    # netip.Addr.Less: IPv4 before IPv6, then numeric.
    return (addr.version, int(addr))


class Targets(list[str]):
    """A list of target strings (IPs, hostnames, TXT values, ...): `Targets()`, `Targets(iterable)` (list's own
    constructor: no Python-level __init__, every endpoint copy builds one). Slotted: no per-list __dict__."""

    __slots__ = ()

    def __str__(self) -> str:
        return ";".join(self)

    def same(self, other: Iterable[str]) -> bool:
        """True when both lists hold the same targets (order-insensitive, case-insensitive, IP-canonical)."""
        return targets_same(self, other)

    def is_less(self, other: Iterable[str]) -> bool:
        """The 'smaller' target list as the conflict resolver sees it."""
        return targets_is_less(self, other)


def new_targets(*targets: str) -> Targets:
    """De-duplicated targets in plain string order (Go `NewTargets`)."""
    return Targets(sorted(set(targets)))


def targets_same(a: Iterable[str], b: Iterable[str]) -> bool:
    """Go `Targets.Same`: equal length, then element-wise after sorting, case-insensitive. Trailing dots are
    not normalised."""
    la = a if isinstance(a, list) else list(a)
    lb = b if isinstance(b, list) else list(b)
    if len(la) != len(lb):
        return False
    if la == lb:
        return True
    if len(la) > 1:
        la = sorted_targets(la)
        lb = sorted_targets(lb)
    for x, y in zip(la, lb, strict=True):
        if x == y or x.lower() == y.lower():
            continue
        ix = parse_ip(x)
        iy = parse_ip(y)
        if ix is not None and iy is not None:  # Go's quirk, kept: the first differing IP pair decides,
            return _canonical(ix) == _canonical(iy)  # the elements after it are not compared
        return False
    return True


def targets_is_less(a: Iterable[str], b: Iterable[str]) -> bool:
    """Go `Targets.IsLess`: the shorter list is less; at equal length the first differing element after
    sorting decides."""
    la = list(a)
    lb = list(b)
    if len(la) != len(lb):
        return len(la) < len(lb)
    la = sorted_targets(la)
    lb = sorted_targets(lb)
    for x, y in zip(la, lb, strict=True):
        if x == y:
            continue
        ix = parse_ip(x)
        iy = parse_ip(y)
        if ix is not None and iy is not None:  # IPs numerically, IPv4 before IPv6
            return _ip_order(ix) < _ip_order(iy)
        if ix is not None:  # an IP sorts before a hostname
            return True
        if iy is not None:
            return False
        return x < y  # otherwise byte-wise
    return False
