"""Validation of DNS names and record targets, with messages that name what is wrong.

Two families:
- name checks (`dns_name_problem`, `validate_dns_name`, `is_valid_dns_name`): every label <= 63 octets, the
  whole name <= 253 octets (one trailing dot not counted), no empty label, `*` only as the whole first label.
  Sources and registries use them to reject bad input with a clear error instead of failing at the provider.
- target checks used by `Endpoint.check_endpoint` (external-dns `CheckEndpoint`): A/AAAA
  targets are IPv4/IPv6 addresses, MX `"<prio uint16> <host>"`, SRV `"<prio> <weight> <port> <host.>"`
  (uint16 numbers, host ends with `.`), PTR names under `.in-addr.arpa` / `.ip6.arpa` with hostname targets.
  Each returns None when valid, else a one-line reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from external_dns.endpoint.names import IPV4, PLAIN_NAME
from external_dns.endpoint.targets import parse_ip

MAX_LABEL_LENGTH = 63
MAX_NAME_LENGTH = 253

_UINT = re.compile(r"[0-9]+\Z")


class InvalidDNSNameError(ValueError):
    """A DNS name breaks a length or wildcard rule; the message names the name and the rule."""




def dns_name_problem(name: str) -> str | None:
    """None when `name` is a usable DNS name, else why not."""
    if len(name) <= MAX_NAME_LENGTH and PLAIN_NAME.fullmatch(name) is not None:
        return None  # most names, at a glance: they pass every rule below
    if not name or not name.strip():
        return "DNS name is empty"
    if name != name.strip():
        return f"DNS name {name!r} has leading or trailing whitespace"
    body = name[:-1] if name.endswith(".") else name
    if not body:
        return "DNS name is only the root '.'"
    if len(body.encode("utf-8", "surrogatepass")) > MAX_NAME_LENGTH:
        return f"DNS name {name!r} is longer than {MAX_NAME_LENGTH} characters"
    labels = body.split(".")
    for i, label in enumerate(labels):
        if not label:
            return f"DNS name {name!r} has an empty label"
        if len(label.encode("utf-8", "surrogatepass")) > MAX_LABEL_LENGTH:
            return f"label {label!r} in {name!r} is longer than {MAX_LABEL_LENGTH} characters"
        if "*" in label and (i != 0 or label != "*"):
            return f"DNS name {name!r}: '*' is only allowed as the whole first label"
    return None


def is_valid_dns_name(name: str) -> bool:
    return dns_name_problem(name) is None


def validate_dns_name(name: str, what: str = "dnsName") -> str:
    """Returns `name` when valid, else raises InvalidDNSNameError prefixed with `what` (e.g. the field or
    annotation the name came from)."""
    problem = dns_name_problem(name)
    if problem is not None:
        raise InvalidDNSNameError(f"{what}: {problem}")
    return name


# -- record targets ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MXTarget:
    """One parsed MX target."""

    priority: int
    host: str


@dataclass(frozen=True)
class SRVTarget:
    """One parsed SRV target."""

    priority: int
    weight: int
    port: int
    host: str


def _uint16(value: str) -> int | None:
    if not _UINT.match(value):
        return None
    n = int(value)
    return n if n <= 0xFFFF else None


def new_mx_record(target: str) -> MXTarget:
    """Parse `"<priority> <host>"` (Go `NewMXRecord`); ValueError on bad input."""
    parts = target.split()
    if len(parts) != 2:
        raise ValueError(
            f"invalid MX record target: {target}. MX records must have a preference value and a host, "
            "e.g. '10 example.com'"
        )
    prio = _uint16(parts[0])
    if prio is None:
        raise ValueError(f"invalid integer value in target: {target}")
    return MXTarget(prio, parts[1])


def new_srv_record(target: str) -> SRVTarget:
    """Parse `"<priority> <weight> <port> <host.>"`; ValueError on bad input."""
    parts = target.split()
    if len(parts) != 4:
        raise ValueError(
            f"invalid SRV record target: {target}. SRV records must have a priority, weight, a port value "
            "and a target host, e.g. '10 5 5060 example.com.'"
        )
    if not parts[3].endswith("."):
        raise ValueError(f"invalid SRV record target: {target}. Target host does not end with a dot.")
    nums = [_uint16(p) for p in parts[:3]]
    if any(n is None for n in nums):
        raise ValueError(f"invalid SRV record target: {target}. Invalid integer value in target.")
    prio, weight, port = (int(n or 0) for n in nums)
    return SRVTarget(prio, weight, port, parts[3])


def ip_targets_problem(record_type: str, targets: Sequence[str]) -> str | None:
    for t in targets:
        if record_type == "A" and IPV4.fullmatch(t) is not None:
            continue  # an IPv4 address: nothing to report
        addr = parse_ip(t)
        if addr is None:
            return f"invalid {record_type} record target: {t} is not a valid IP address"
        if record_type == "A" and addr.version == 6:
            return f"invalid A record target: {t} is an IPv6 address"
        if record_type == "AAAA" and addr.version == 4:
            return f"invalid AAAA record target: {t} is an IPv4 address"
    return None


def mx_targets_problem(targets: Sequence[str]) -> str | None:
    for t in targets:
        try:
            new_mx_record(t)
        except ValueError as exc:
            return str(exc)
    return None


def srv_targets_problem(targets: Sequence[str]) -> str | None:
    for t in targets:
        try:
            new_srv_record(t)
        except ValueError as exc:
            return str(exc)
    return None


def ptr_problem(dns_name: str, targets: Sequence[str]) -> str | None:
    name = dns_name.lower()
    ok = False
    for suffix in (".in-addr.arpa", ".ip6.arpa"):
        if name.endswith(suffix):
            prefix = name[: -len(suffix)]
            ok = bool(prefix) and not prefix.startswith(".")
            break
    if not ok:
        return f"invalid PTR record: DNSName {dns_name!r} must be a reverse DNS name under .in-addr.arpa or .ip6.arpa"
    if not targets:
        return f"invalid PTR record: at least one target is required for {dns_name}"
    for t in targets:
        if not t.strip():
            return f"invalid PTR record: target must not be empty for {dns_name}"
        if parse_ip(t) is not None:
            return f"invalid PTR record: target {t!r} for {dns_name} must be a hostname, not an IP address"
    return None
