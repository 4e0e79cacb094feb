"""TargetNetFilter: which targets are in scope by CIDR (`--target-net-filter` / `--exclude-target-net`).

As external-dns `endpoint/target_filter.go`: invalid CIDRs are logged and ignored (empty strings, the CLI
default, are skipped silently); host bits are allowed (`10.0.0.1/8` means `10.0.0.0/8`); a target matches
only when it parses as an IP, so a hostname never matches an include list (and is never excluded).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

import structlog

from external_dns.endpoint.targets import parse_ip

log = structlog.get_logger(__name__)

_Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def _prepare(cidrs: Iterable[str]) -> list[_Net]:
    nets: list[_Net] = []
    for raw in cidrs:
        cidr = raw.strip()
        if not cidr:
            continue
        try:
            nets.append(ipaddress.ip_network(cidr, strict=False))
        except ValueError:
            log.error("Invalid target net filter", filter=cidr)
    return nets


def _match(nets: list[_Net], target: str, empty_default: bool) -> bool:
    if not nets:
        return empty_default
    addr = parse_ip(target)
    if addr is None:
        return False
    return any(addr.version == n.version and addr in n for n in nets)


class TargetNetFilter:
    """CIDR include/exclude lists for endpoint targets."""

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self.include = _prepare(include)
        self.exclude = _prepare(exclude)

    def is_enabled(self) -> bool:
        return bool(self.include or self.exclude)

    def match(self, target: str) -> bool:
        """True when `target` is inside an include net (or there are none) and inside no exclude net."""
        return _match(self.include, target, True) and not _match(self.exclude, target, False)
