"""Records derived from the sources' records, as external-dns's NAT64 and PTR source wrappers.

- `Nat64Source(source, networks)`: `--nat64-networks`. For an AAAA record with targets inside one of the
  NAT64 /96 prefixes, an A record of the same name (TTL, labels, set identifier, properties kept) whose
  targets are the IPv4 addresses embedded in the last 32 bits (RFC 6052). The AAAA record stays.
- `PtrSource(source, create_ptr, managed_types)`: `--create-ptr`. For every A/AAAA record with IP targets, a
  PTR record per address under in-addr.arpa / ip6.arpa pointing back at the name; the record-type
  annotation overrides the flag per object (`ptr`: create, empty: do not). Several names on one address
  give one PTR record with several targets. Wildcard names and alias records (host-name targets) get none.
  The PTR records reach a DNS server only in reverse zones the provider manages (`--domain-filter` must
  include them, as for any name). A `record-type` annotation that cannot be honoured (PTR not in
  `--managed-record-types`, a non-address record, an unknown value) is logged as a warning once per
  object and name, instead of being ignored silently, and with a `recorder` attached (`attach_recorder`)
  it is also a Warning Event on the object, as the sources' other problems.

Both forward `add_event_handler` to the wrapped source, expose its `problems` and name it in `wrapped()`.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Callable, Collection, Iterable, Sequence

import structlog

from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_ALIAS,
    PROVIDER_SPECIFIC_RECORD_TYPE,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_PTR,
    RESOURCE_LABEL_KEY,
    Endpoint,
    new_ptr_endpoint,
)
from external_dns.endpoint.targets import Targets
from external_dns.events import Recorder, emit_problem_events
from external_dns.sources.problems import Problem
from external_dns.sources.source import Source, pipeline_nodes, problems_of

log = structlog.get_logger(__name__)

PTR_VALUE = "ptr"
# Remembered (resource, name, value) warnings; cleared when it grows past this (then each warns once more).
_MAX_WARNED = 10_000


class Nat64Source(Source):
    """`--nat64-networks`: an A record beside each AAAA record pointing into a NAT64 /96 prefix."""

    def __init__(self, source: Source, networks: Sequence[str]) -> None:
        self.source = source
        self.networks = [ipaddress.IPv6Network(n.strip(), strict=False) for n in networks if n.strip()]
        for net in self.networks:
            if net.prefixlen != 96:
                raise ValueError(f"NAT64 network {net} must be a /96 prefix")

    @property
    def problems(self) -> list[Problem]:
        return problems_of([self.source])

    def wrapped(self) -> Sequence[Source]:
        return (self.source,)

    def _embedded_ipv4(self, target: str) -> str | None:
        try:
            ip = ipaddress.ip_address(target)
        except ValueError:
            return None
        if not isinstance(ip, ipaddress.IPv6Address) or not any(ip in net for net in self.networks):
            return None
        return str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))

    def endpoints(self) -> list[Endpoint]:
        return self._derive(self.source.endpoints())

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        eps = self.source.endpoints_for_names(names)  # the A records keep their AAAA's name
        return None if eps is None else self._derive(eps)

    def take_dirty_names(self) -> set[str] | None:
        return self.source.take_dirty_names()

    def _derive(self, eps: list[Endpoint]) -> list[Endpoint]:
        if not self.networks:
            return eps
        out = list(eps)
        for ep in eps:
            if ep.record_type != RECORD_TYPE_AAAA:
                continue
            v4 = [a for a in (self._embedded_ipv4(t) for t in ep.targets) if a is not None]
            if not v4:
                continue
            a = ep.copy()
            a.record_type = RECORD_TYPE_A
            a.targets = Targets(sorted(set(v4)))
            out.append(a)
        return out

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.source.add_event_handler(handler)


class PtrSource(Source):
    """`--create-ptr` and the record-type annotation: PTR records for A/AAAA records."""

    def __init__(self, source: Source, create_ptr: bool, managed_types: Iterable[str]) -> None:
        self.source = source
        self.create_ptr = create_ptr
        self.ptr_managed = RECORD_TYPE_PTR in {t.upper() for t in managed_types}
        self._warned: set[tuple[str, str, str]] = set()
        self.recorder: Recorder | None = None  # set by attach_recorder: problems also become Events

    @property
    def problems(self) -> list[Problem]:
        return problems_of([self.source])

    def wrapped(self) -> Sequence[Source]:
        return (self.source,)

    def _warn_once(self, ep: Endpoint, value: str, message: str) -> None:
        key = (ep.labels.get(RESOURCE_LABEL_KEY, ""), ep.dns_name, value)
        if key in self._warned:
            return
        if len(self._warned) >= _MAX_WARNED:
            self._warned.clear()
        self._warned.add(key)
        log.warning(message, dns_name=ep.dns_name, resource=key[0] or "unknown", record_type=value)
        if self.recorder is not None and ep.ref_objects:  # a Warning Event on the object, as other problems
            problem = Problem(key[0] or "unknown", "record-type", value, f"{ep.dns_name}: {message}",
                              obj=ep.ref_objects[0])
            with contextlib.suppress(Exception):  # an Event is best effort; the warning is logged already
                emit_problem_events(self.recorder, [problem])

    def _wanted(self, ep: Endpoint) -> bool:
        """Whether `ep` gets PTR records; the record-type directive is consumed (it is not a record property,
        and leaving it would make the record differ from what the provider reads back)."""
        value = ep.get_provider_specific_property(PROVIDER_SPECIFIC_RECORD_TYPE)
        if value is None:
            return self.create_ptr and ep.record_type in (RECORD_TYPE_A, RECORD_TYPE_AAAA)
        ep.delete_provider_specific_property(PROVIDER_SPECIFIC_RECORD_TYPE)
        wanted = value.strip().lower()
        if wanted not in ("", PTR_VALUE):
            self._warn_once(ep, value, f"record-type annotation value {value!r} is not supported (use 'ptr' or "
                                       "an empty value); ignored")
            return self.create_ptr and ep.record_type in (RECORD_TYPE_A, RECORD_TYPE_AAAA)
        if wanted == PTR_VALUE and ep.record_type not in (RECORD_TYPE_A, RECORD_TYPE_AAAA):
            self._warn_once(ep, value, f"record-type: ptr only applies to A and AAAA records, not "
                                       f"{ep.record_type}; no PTR record")
            return False
        return wanted == PTR_VALUE

    def endpoints(self) -> list[Endpoint]:
        eps = self.source.endpoints()
        by_reverse: dict[str, Endpoint] = {}
        for ep in eps:
            if not self._wanted(ep):
                continue
            if not self.ptr_managed:
                if not self.create_ptr:  # the flag's own start-up check covers --create-ptr
                    self._warn_once(ep, PTR_VALUE, "record-type: ptr cannot be honoured: PTR is not in "
                                                   "--managed-record-types; no PTR record")
                continue
            if ep.dns_name.startswith("*") or ep.get_provider_specific_property(PROVIDER_SPECIFIC_ALIAS) == "true":
                continue
            for target in ep.targets:
                try:
                    ptr = new_ptr_endpoint(target, ep.record_ttl, ep.dns_name)
                except ValueError:
                    continue  # not an address (e.g. an alias target)
                if ptr is None:
                    continue
                known = by_reverse.get(ptr.dns_name)
                if known is None:
                    # no labels from the forward record, as Go: its ownership TXT names no resource (the
                    # same TXT value as Go's, so a zone written by one is adopted unchanged by the other)
                    ptr.ref_objects = list(ep.ref_objects)
                    by_reverse[ptr.dns_name] = ptr
                else:
                    known.targets = Targets(sorted({*known.targets, ep.dns_name}))
                    known.record_ttl = min(known.record_ttl, ep.record_ttl)  # Go: the lowest TTL (unset wins)
                    known.ref_objects.extend(r for r in ep.ref_objects if all(r is not k for k in known.ref_objects))
        return eps + [by_reverse[name] for name in sorted(by_reverse)]

    def endpoints_for_names(self, names: Collection[str]) -> list[Endpoint] | None:
        if self.ptr_managed:
            return None  # PTR records live at reverse names that no forward name leads to
        eps = self.source.endpoints_for_names(names)
        if eps is not None:
            for ep in eps:
                self._wanted(ep)  # consumes the record-type directive, as `endpoints()` does
        return eps

    def take_dirty_names(self) -> set[str] | None:
        return None if self.ptr_managed else self.source.take_dirty_names()

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        self.source.add_event_handler(handler)


def attach_recorder(source: Source, recorder: Recorder | None) -> None:
    """Give every PtrSource in a pipeline of wrappers (`Source.wrapped`) the `recorder`."""
    for node in pipeline_nodes(source):
        if isinstance(node, PtrSource):
            node.recorder = recorder
