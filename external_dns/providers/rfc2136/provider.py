"""The RFC2136 provider: DNS UPDATE (RFC 2136) with TSIG over TCP or TLS, reading back by AXFR.

Owns zone selection (the longest configured zone that contains the name on a label boundary), the mapping
of plan changes to UPDATE messages, and reading zones back into endpoints.

Writing: a record and its ownership TXT (`ownedRecord` label) stay in one message; an update pair is one
message that removes the old RRs and adds the new ones (so the name never goes missing); removals precede
additions inside a message; unchanged update pairs send nothing. Messages hold at most
`--rfc2136-batch-change-size` endpoints and stay under the 64 KiB DNS message limit. One TCP connection
carries all messages of a sync, one at a time as Go's; each is rendered and signed while the one before is
on the wire (between writing it and reading its answer), so the server's work overlaps ours. A failing message with several records is retried record by record, so one
bad record does not block the rest.

Records we did not write: a create carries UPDATE prerequisites (its record set does not exist, no CNAME at
the name; for a CNAME, the name is not in use), so it never joins someone else's record set nor is silently
dropped beside other data while its ownership TXT is written. A refused create is checked once against what
it would write (in place already: fine, the usual case of a re-sync without `--rfc2136-axfr`), else named in
a warning, with nothing of it written. A departure from Go, which adds the RRs whatever the zone holds.

Errors: a rejected TSIG key stops at once (nothing written) as a `ProviderError`; REFUSED / SERVFAIL / other
answers name the zone, records and rcode and are raised after every other batch was tried, as a `SoftError`
(the controller retries); an unreachable server set is a `SoftError`.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import dns.exception
import dns.message
import dns.name
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.update
import structlog
from prometheus_client import Counter

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.gcsettings import gc_paused
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, SoftError
from external_dns.providers.rfc2136 import wire
from external_dns.providers.rfc2136.config import RFC2136Config
from external_dns.providers.rfc2136.snapshot import Addition, ByNameView, Removal, ZoneSnapshot
from external_dns.providers.rfc2136.targets import (
    READ_TYPES,
    canonical_target,
    target_of,
    txt_targets,
)
from external_dns.providers.rfc2136.transport import (
    TRANSPORT_ERRORS,
    TSIG_ERRORS,
    AxfrLimitExceeded,
    AxfrRefused,
    DNSConnection,
    DNSTransport,
    Transport,
    TsigRejected,
    Unreachable,
)
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot

log = structlog.get_logger(__name__)

UPDATE_MESSAGES = Counter(
    "external_dns_rfc2136_update_messages_total",
    "DNS UPDATE messages sent by the RFC2136 provider, by zone and answer code.",
    ["zone", "rcode"],
)
ZONE_READS = Counter(
    "external_dns_rfc2136_zone_reads_total",
    "Zone reads by the RFC2136 provider: a full AXFR, or a snapshot kept because the SOA serial was unchanged.",
    ["zone", "kind"],
)
RR_CHANGES = Counter(
    "external_dns_rfc2136_rr_changes_total",
    "Resource records added or removed by the RFC2136 provider.",
    ["zone", "action"],
)

_READ_TYPES = frozenset(READ_TYPES)
_Message = tuple[dns.update.UpdateMessage, bytes]  # a signed UPDATE and its wire form
# A failed multi-record UPDATE is retried record by record; when the first ones all fail too and the zone
# refuses even a harmless update, the rest is reported without being sent (a zone-wide refusal would
# otherwise cost one message per record).
_PROBE_GROUPS = 3
# A message made ahead is signed again when it waited longer than this (a batch before it retried record by
# record against a slow server): its TSIG time must stay well inside the 300 s fudge.
_RESIGN_AFTER = 60.0
# Answer codes that mean our key is not accepted: retrying other records cannot help.
_AUTH_RCODES = {dns.rcode.NOTAUTH}
# Answer codes of a failed prerequisite (RFC 2136 3.2.5): the zone holds records we did not write.
_PREREQUISITE_RCODES = frozenset({"YXDOMAIN", "YXRRSET", "NXRRSET", "NXDOMAIN"})


@dataclass
class _Op:
    """The RR operations of one endpoint change: targets in read-back form (for the zone snapshot) and the
    rendered RRs (`remove_wire` / `add_wire`, filled in once the zone is known)."""

    label: str  # e.g. "create www.example.org A"
    name: str  # without the trailing dot
    rtype: str
    remove: list[str] = field(default_factory=list)
    remove_rrset: bool = False
    ttl: int = 0
    add: list[str] = field(default_factory=list)
    remove_rdata: list[bytes] = field(default_factory=list)
    add_rdata: list[bytes] = field(default_factory=list)
    remove_wire: bytes = b""
    add_wire: bytes = b""
    # A create adds a record set that must not exist yet: it never joins a record set (or sits beside a
    # CNAME) that someone else wrote, whether or not the zone was read back.
    create: bool = False
    ownership: bool = False  # an ownership TXT (the registry's `ownedRecord` label)
    prereq_wire: bytes = b""  # the create's prerequisites (RFC 2136 2.4), checked before any update
    prereq_count: int = 0
    owner_wire: bytes = b""

    def render(self, zone: str) -> None:
        owner = self.owner_wire = wire.name_wire(self.name, zone)
        code = wire.type_code(self.rtype)
        parts = [wire.rr(owner, code, wire.CLASS_ANY, 0, b"")] if self.remove_rrset else []
        parts.extend(wire.rr(owner, code, wire.CLASS_NONE, 0, rd) for rd in self.remove_rdata)
        self.remove_wire = b"".join(parts)
        self.add_wire = b"".join(wire.rr(owner, code, wire.CLASS_IN, self.ttl, rd) for rd in self.add_rdata)
        if not self.create:
            return
        if code == wire.TYPE_CNAME:
            # 2.4.5 "name is not in use": a server silently ignores a CNAME added beside other data (3.4.2.2)
            self.prereq_wire = wire.rr(owner, wire.TYPE_ANY, wire.CLASS_NONE, 0, b"")
            self.prereq_count = 1
        else:
            # 2.4.3 "RRset does not exist", for the type and for a CNAME (data added beside one is ignored)
            self.prereq_wire = (wire.rr(owner, code, wire.CLASS_NONE, 0, b"")
                                + wire.rr(owner, wire.TYPE_CNAME, wire.CLASS_NONE, 0, b""))
            self.prereq_count = 2

    def present_wire(self) -> bytes:
        """"Exactly these RRs exist" (RFC 2136 2.4.2, value dependent): the create is in place (made only for a
        refused create)."""
        code = wire.type_code(self.rtype)
        return b"".join(wire.rr(self.owner_wire, code, wire.CLASS_IN, 0, rd) for rd in self.add_rdata)

    def count(self) -> int:
        return int(self.remove_rrset) + len(self.remove_rdata) + len(self.add_rdata)

    def size(self) -> int:
        return len(self.remove_wire) + len(self.add_wire)


@dataclass
class _Group:
    """Operations that must travel in one message: a record and its ownership TXT, by owning name."""

    key: str
    ops: list[_Op] = field(default_factory=list)
    # Starts a new message: its creates' prerequisites must see the removals of the group before it.
    barrier: bool = False

    def size(self) -> int:
        return sum(op.size() + len(op.prereq_wire) for op in self.ops)

    def labels(self) -> list[str]:
        return [op.label for op in self.ops]


class _ZoneRefused(Exception):
    def __init__(self, rcode: str, groups: list[_Group]) -> None:
        super().__init__(rcode)
        self.rcode = rcode
        self.groups = groups


class _BatchFailed(Exception):
    def __init__(self, rcode: str) -> None:
        super().__init__(rcode)
        self.rcode = rcode


class RFC2136Provider(Provider):
    """DNS UPDATE + AXFR provider for BIND and other RFC2136 servers."""

    def record_default_ttl(self, zone: str) -> int:
        return self.config.min_ttl  # a record without a TTL is written with --rfc2136-min-ttl (default 0)

    def __init__(self, config: RFC2136Config, transport: DNSTransport | None = None) -> None:
        self.config = config
        self.transport: DNSTransport = transport if transport is not None else Transport(config)
        self._zones = config.zone_names
        self._origins = {z: dns.name.from_text(z) for z in self._zones}
        self._warned_no_axfr = False
        self._lock = threading.Lock()  # reads and writes of the zone snapshots are serialised
        self._snapshots: dict[str, ZoneSnapshot] = {}
        self._by_name: dict[str, ByNameView] = {}  # zone -> by-name view over its rrset snapshot

    # -- zones ----------------------------------------------------------------------------------------------
    def zones(self) -> Sequence[str]:
        return tuple(z for z in self._zones if z != ".") or ("",)

    def get_domain_filter(self) -> DomainFilter:
        return DomainFilter(include=[z for z in self._zones if z != "."])

    def zone_for(self, dns_name: str) -> str | None:
        """The longest configured zone holding the name (on a label boundary), or None."""
        name = dns_name.rstrip(".").lower()
        best: str | None = None
        for zone in self._zones:
            inside = zone == "." or name == zone or name.endswith("." + zone)
            if inside and (best is None or best == "." or (zone != "." and len(zone) > len(best))):
                best = zone
        return best

    # -- reading --------------------------------------------------------------------------------------------
    def _warn_no_axfr(self) -> None:
        """Said once, at the first read, whichever way the zones are read (all at once or zone by zone)."""
        if not self._warned_no_axfr:
            self._warned_no_axfr = True
            log.warning("RFC2136: --rfc2136-axfr is off, so no zone is read back: records are only created, never "
                        "updated or deleted (--policy=sync and upsert-only delete and update nothing), and a "
                        "record whose name and type already hold a record set, or whose name holds a CNAME, is "
                        "refused rather than merged into it; set --rfc2136-axfr (and allow the key to transfer "
                        "the zones) to manage records fully", zones=list(self._zones))

    def records(self) -> list[Endpoint]:
        if not self.config.axfr:
            self._warn_no_axfr()
            return []
        out: list[Endpoint] = []
        with self._lock, gc_paused():
            # Zones with more labels first, as external-dns does.
            for zone in sorted(self._zones, key=lambda z: (-len(self._origins[z]), z)):
                out.extend(self._zone_snapshot(zone).endpoints())
        return out

    cheap_snapshots = True  # zone_snapshot costs one SOA query while the zone has not moved

    def zone_snapshot(self, zone: str) -> ByNameSnapshot:
        """The zone by name (providers/snapshot.py), as exact as `records()`: an unchanged SOA serial costs one
        query; an IXFR or our own write journals only the names it touched; a new transfer is diffed by name.
        The view reads the rrset snapshot itself (snapshot.ByNameView): the zone is held once."""
        name = zone or "."
        with self._lock, gc_paused():
            view = self._by_name.get(name)
            if view is None:
                view = self._by_name[name] = ByNameView(zone)
            if not self.config.axfr or name not in self._origins:
                if not self.config.axfr:
                    self._warn_no_axfr()
                view.empty()
                return view
            view.follow(self._zone_snapshot(name))
            return view

    def _zone_snapshot(self, zone: str) -> ZoneSnapshot:
        """The zone's records: the snapshot when the SOA serial has not moved, else a fresh AXFR."""
        last_exc: BaseException | None = None
        hosts = list(self.transport.host_order())
        for i, host in enumerate(hosts):
            conn = self.transport.connect(host)
            try:
                snap = self._snapshots.pop(zone, None)
                if snap is not None and snap.fresh():
                    serial = _soa_serial(conn, self.transport, zone)
                    if serial == snap.serial:
                        ZONE_READS.labels(zone, "unchanged").inc()
                        self._snapshots[zone] = snap
                        return snap
                    caught_up = self._incremental(zone, conn, snap) if serial is not None else None
                    if caught_up is not None:
                        ZONE_READS.labels(zone, "ixfr").inc()
                        self._snapshots[zone] = caught_up
                        return caught_up
                snap = self._transfer(zone, conn)
                ZONE_READS.labels(zone, "axfr").inc()
                self._snapshots[zone] = snap
                return snap
            except TSIG_ERRORS as exc:
                raise self.transport.describe_tsig_failure(host, exc, f"AXFR of zone {zone}") from None
            except (AxfrRefused, AxfrLimitExceeded):
                raise
            except TRANSPORT_ERRORS as exc:
                log.warning("RFC2136 AXFR failed" + (", trying the next server" if i + 1 < len(hosts) else ""),
                            zone=zone, host=host, error=f"{type(exc).__name__}: {exc}")
                last_exc = exc
            finally:
                conn.close()
        raise Unreachable(f"RFC2136: could not read zone {zone} by AXFR from any of "
                          f"{', '.join(self.config.active_hosts)}:{self.config.port}: {last_exc}")

    def _incremental(self, zone: str, conn: DNSConnection, snap: ZoneSnapshot) -> ZoneSnapshot | None:
        """The snapshot brought up to date by IXFR (RFC 1995). A server may answer with the whole zone
        instead (AXFR style: BIND does when the differences are not much smaller than the zone): that
        answer becomes a new snapshot. None on anything unexpected: the caller then reads by AXFR."""
        stream = conn.ixfr(zone, snap.serial)
        try:
            first = next(stream, None)
            if first is None or first.rdtype != dns.rdatatype.SOA:
                return None
            target = int(first[0].serial)
            if target == snap.serial:
                return snap
            opening = next(stream, None)
            if opening is None:
                return None
            if opening.rdtype != dns.rdatatype.SOA:  # AXFR style: the whole zone follows
                fresh = ZoneSnapshot(zone, target)
                self._collect(zone, fresh, opening)
                for rrset in stream:
                    if rrset.rdtype == dns.rdatatype.SOA:
                        return fresh
                    self._collect(zone, fresh, rrset)
                return None
            if int(opening[0].serial) != snap.serial:
                return None
            adding = False
            for rrset in stream:
                if rrset.rdtype == dns.rdatatype.SOA:
                    if adding and int(rrset[0].serial) == target:
                        snap.serial = target
                        return snap
                    adding = not adding
                    continue
                self._collect(zone, snap, rrset, remove=not adding)
            return None
        finally:
            stream.close()

    def _collect(self, zone: str, snap: ZoneSnapshot, rrset: dns.rrset.RRset, remove: bool = False) -> None:
        """Add (or remove) one transferred rrset to the snapshot, if it is a record we read."""
        if rrset.rdclass != dns.rdataclass.IN:
            return
        rtype = dns.rdatatype.to_text(rrset.rdtype)
        if rtype not in READ_TYPES:
            return
        name = rrset.name.to_text()
        name = name[:-1] if name.endswith(".") else name
        if self.zone_for(name) != zone:
            return  # held by a more specific configured zone
        if remove:
            snap.remove(name, rtype, _targets_of(rtype, rrset))
        else:
            snap.add(name, rtype, rrset.ttl, _targets_of(rtype, rrset))

    def _transfer(self, zone: str, conn: DNSConnection) -> ZoneSnapshot:
        """A fresh snapshot by AXFR, read into compact records (no dnspython object per record)."""
        snap: ZoneSnapshot | None = None
        single = len(self._zones) == 1
        for rec in conn.axfr_records(zone, _READ_TYPES):
            if snap is None:  # the transfer opens with the zone's SOA
                snap = ZoneSnapshot(zone, rec.serial)
                continue
            if rec.rtype != "SOA" and (single or self.zone_for(rec.name) == zone):  # else: a more specific zone's
                snap.add(rec.name, rec.rtype, rec.ttl, rec.targets)
        if snap is None:
            raise AxfrRefused(zone, conn.host, "empty transfer")
        return snap

    # -- desired-state canonicalisation ----------------------------------------------------------------------
    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """Targets in read-back form (see `targets.py`), TTLs raised to `--rfc2136-min-ttl`, set identifiers
        dropped. Endpoints that need no change are passed through as they are; the others are adjusted copies."""
        out: list[Endpoint] = []
        min_ttl = self.config.min_ttl
        for ep in endpoints:
            rtype = ep.record_type
            if rtype not in READ_TYPES:
                out.append(ep)
                continue
            targets = [canonical_target(rtype, t) for t in ep.targets]
            ttl = max(ep.record_ttl, min_ttl) if ep.record_ttl > 0 else ep.record_ttl
            if ttl == ep.record_ttl and targets == ep.targets and not ep.set_identifier:
                out.append(ep)
                continue
            adjusted = ep.copy()
            adjusted.targets = Targets(targets)
            adjusted.record_ttl = ttl
            if ep.set_identifier:
                # DNS UPDATE has no routing policies and a zone reads back without set identifiers: ignored, with
                # a warning, as Go's providers without them do (OCI's AdjustEndpoints); objects claiming one name
                # then resolve as any conflict does, and a second run plans nothing (Go's rfc2136 keeps them and
                # rewrites the records on every run: docs/migrating.md#set-identifiers-on-rfc2136)
                log.warning("Ignoring the set-identifier annotation: RFC2136 has no routing policies",
                            endpoint=f"{ep.dns_name} {rtype}", set_identifier=ep.set_identifier,
                            resource=ep.labels.get("resource", ""))
                adjusted.set_identifier = ""
            out.append(adjusted)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def _ttl(self, ep: Endpoint) -> int:
        if ep.record_ttl > 0:
            return max(ep.record_ttl, self.config.min_ttl)
        return self.config.min_ttl

    @staticmethod
    def _group_key(ep: Endpoint) -> str:
        owner = ep.labels.get(OWNED_RECORD_LABEL_KEY) if ep.labels else None
        return (owner or ep.dns_name).rstrip(".").lower()

    def _holds(self, name: str, rtype: str, targets: list[str], ttl: int) -> bool:
        """True when the zone snapshot shows exactly this rrset. An update pair whose sides are identical
        is skipped only then: the old side may be a record that does not exist yet (the TXT registry's
        migration to new-format ownership records sends such pairs to have them written)."""
        zone = self.zone_for(name)
        snap = self._snapshots.get(zone) if zone is not None else None
        return snap is not None and snap.holds(name, rtype, targets, ttl)

    @staticmethod
    def _targets(ep: Endpoint) -> tuple[list[str], list[bytes]]:
        """(read-back targets, rdata) of an endpoint, duplicates dropped; ValueError on a bad target."""
        if ep.record_type not in READ_TYPES:
            raise ValueError(f"unsupported record type {ep.record_type!r} (supported: {', '.join(READ_TYPES)})")
        seen: dict[bytes, str] = {}
        for t in ep.targets:
            seen.setdefault(wire.rdata_wire(ep.record_type, t), t)
        return [canonical_target(ep.record_type, t) for t in seen.values()], list(seen)

    def _plan_ops(self, changes: Changes, errors: list[str]) -> dict[str, dict[str, _Group]]:
        """zone -> group key -> operations, in the order the changes came."""
        zones: dict[str, dict[str, _Group]] = {}

        def place(ep: Endpoint, op: _Op) -> None:
            zone = self.zone_for(ep.dns_name)
            if zone is None:
                log.warning("RFC2136: skipping record outside every --rfc2136-zone", record=op.label,
                            zones=list(self._zones))
                return
            key = self._group_key(ep)
            groups = zones.setdefault(zone, {})
            groups.setdefault(key, _Group(key)).ops.append(op)

        def build(kind: str, ep: Endpoint) -> tuple[_Op, list[str], list[bytes]] | None:
            label = f"{kind} {ep.dns_name} {ep.record_type}"
            try:
                targets, rdata = self._targets(ep)
            except (ValueError, dns.exception.DNSException) as exc:
                errors.append(f"{label}: {exc}")
                log.error("RFC2136: invalid record, skipped", record=label, error=str(exc))
                return None
            return _Op(label=label, name=ep.dns_name.rstrip("."), rtype=ep.record_type,
                       ownership=bool(ep.labels.get(OWNED_RECORD_LABEL_KEY))), targets, rdata

        for ep in changes.delete:
            built = build("delete", ep)
            if built:
                op, targets, rdata = built
                op.remove, op.remove_rdata = targets, rdata
                op.remove_rrset = not rdata
                place(ep, op)
        for old, new in zip(changes.update_old, changes.update_new, strict=False):
            b_old, b_new = build("update", old), build("update", new)
            if not b_old or not b_new:
                continue
            op, new_targets, new_rdata = b_new
            op_old, old_targets, old_rdata = b_old
            same_rrset = old.dns_name.rstrip(".").lower() == new.dns_name.rstrip(".").lower() and (
                old.record_type == new.record_type)
            # An unset desired TTL keeps the record's TTL (raised to the minimum) instead of resetting it.
            ttl = self._ttl(new) if new.record_ttl > 0 or not same_rrset else max(old.record_ttl,
                                                                                    self.config.min_ttl)
            if same_rrset and set(old_rdata) == set(new_rdata) and old.record_ttl == ttl and self._holds(
                    new.dns_name, new.record_type, new_targets, ttl):
                continue  # the server already holds exactly these RRs: nothing to send
            if not same_rrset:
                op_old.remove, op_old.remove_rdata = old_targets, old_rdata
                place(old, op_old)
                op.ttl, op.add, op.add_rdata = ttl, new_targets, new_rdata
                place(new, op)
                continue
            keep = set(new_rdata)
            gone = [(t, rd) for t, rd in zip(old_targets, old_rdata, strict=True) if rd not in keep]
            op.remove, op.remove_rdata = [t for t, _ in gone], [rd for _, rd in gone]
            op.ttl, op.add, op.add_rdata = ttl, new_targets, new_rdata
            place(new, op)
        for ep in changes.create:
            built = build("create", ep)
            if built:
                op, targets, rdata = built
                if not rdata:
                    errors.append(f"{op.label}: no targets")
                    continue
                op.ttl, op.add, op.add_rdata = self._ttl(ep), targets, rdata
                op.create = True
                place(ep, op)
        return {zone: _split_removals(groups) for zone, groups in zones.items()}

    def _batches(self, zone: str, groups: Iterable[_Group], invalid: list[str]) -> Iterator[list[_Group]]:
        """The zone's messages, group by group in order; each group is rendered only when its batch is made
        (while the batch before is on the wire: `_apply_zone`)."""
        current: list[_Group] = []
        count = size = 0
        limit, budget = self.config.batch_change_size, self.config.max_message_bytes
        adding: dict[str, set[str]] = {}  # name -> types the current batch adds
        for g in groups:
            if not _render(zone, g, invalid):
                continue
            g_count, g_size = len(g.ops), g.size()
            adds = [(op.name.lower(), op.rtype) for op in g.ops if op.add_rdata]
            if current and (g.barrier or count + g_count > limit or size + g_size > budget
                            or _clashes(adds, adding)):
                yield current
                current, count, size, adding = [], 0, 0, {}
            current.append(g)
            count += g_count
            size += g_size
            for name, rtype in adds:
                adding.setdefault(name, set()).add(rtype)
        if current:
            yield current

    def _message(self, zone: str, groups: Sequence[_Group]) -> _Message | None:
        """The signed UPDATE and its wire form (None: too large for one message); removals first, so an add
        never meets the RR it replaces."""
        ops = [op for g in groups for op in g.ops]
        section = b"".join(op.remove_wire for op in ops) + b"".join(op.add_wire for op in ops)
        try:
            return wire.render_update(self._origins[zone], section, sum(op.count() for op in ops),
                                      self.transport.sign, b"".join(op.prereq_wire for op in ops),
                                      sum(op.prereq_count for op in ops))
        except dns.exception.TooBig:
            return None

    def _in_place(self, sender: _Sender, zone: str, groups: Sequence[_Group]) -> bool:
        """Whether a batch of creates, refused by its prerequisites, is already in the zone exactly as it would
        be written (a message of value-dependent prerequisites only, which changes nothing): without a read-back
        (no --rfc2136-axfr) every sync creates every record again."""
        ops = [op for g in groups for op in g.ops]
        if not ops or not all(op.create for op in ops):
            return False
        msg, data = wire.render_update(self._origins[zone], b"", 0, self.transport.sign,
                                       b"".join(op.present_wire() for op in ops),
                                       sum(len(op.add_rdata) for op in ops))
        try:
            sender.send(zone, msg, data, [lbl for g in groups for lbl in g.labels()])
        except _BatchFailed:
            return False
        return True

    def _refused(self, zone: str, group: _Group, rcode: str) -> None:
        """A group whose prerequisites failed: records this owner did not write hold its names. Refused with a
        warning naming each record; nothing of the group was written (not its ownership TXT either)."""
        for op in group.ops:
            if op.create and not op.ownership:
                log.warning("RFC2136: record not written: the zone holds records at its name that this owner did "
                            "not write (a record set of that name and type, a CNAME, or other data beside a "
                            "CNAME), left as they are" + ("" if self.config.axfr else
                                                          "; without --rfc2136-axfr nothing is read back, so an "
                                                          "existing record set is never updated"),
                            record=op.label, zone=zone, rcode=rcode)
            else:
                log.info("RFC2136: change not written: it travels with a refused record", record=op.label,
                         zone=zone, rcode=rcode)

    def apply_changes(self, changes: Changes) -> None:
        if changes.is_empty():
            return
        errors: list[str] = []  # invalid records first, then what the servers refused
        with self._lock, gc_paused():
            zones = self._plan_ops(changes, errors)
            if any(zones.values()):
                sender = _Sender(self)
                failures: list[str] = []
                try:
                    for zone, groups in zones.items():
                        self._apply_zone(sender, zone, list(groups.values()), errors, failures)
                finally:
                    sender.close()
                errors += failures
        if errors:
            shown = "; ".join(errors[:10]) + (f"; ... and {len(errors) - 10} more" if len(errors) > 10 else "")
            raise SoftError(f"RFC2136 had errors in one or more of its batches: {shown}")

    def _apply_zone(self, sender: _Sender, zone: str, groups: list[_Group], invalid: list[str],
                    errors: list[str]) -> None:
        """Send the zone's batches, each made (rendered and signed) while the one before is on the wire;
        keep the zone's snapshot only if the serial proves it still matches. Records that cannot be rendered
        go to `invalid`, refusals to `errors`."""
        snap = self._snapshots.pop(zone, None)
        before = sender.soa_serial(zone) if snap is not None else None
        if snap is not None and before != snap.serial:
            snap = None
        sent: list[list[_Group]] = []
        n_errors = len(errors)
        batches = self._batches(zone, groups, invalid)

        def prepare() -> tuple[list[_Group], _Message | None] | None:
            batch = next(batches, None)
            return None if batch is None else (batch, self._message(zone, batch))

        upcoming = prepare()
        while upcoming is not None:
            batch, message = upcoming
            ahead = _Lookahead(prepare)
            try:
                self._send_batch(sender, zone, batch, errors, sent, message, ahead)
            except _ZoneRefused as refused:
                unsent = [lbl for g in refused.groups for lbl in g.labels()]
                rest = [ahead.value[0]] if ahead.value is not None else []
                unsent += [lbl for b in [*rest, *batches] for g in b for lbl in g.labels()]
                errors.append(f"{_context(zone, unsent)}: not sent: the zone answered {refused.rcode} to every "
                              f"record tried first")
                log.error("RFC2136: zone refuses updates, remaining records not sent", zone=zone,
                          rcode=refused.rcode, unsent=len(unsent))
                break
            upcoming = ahead.result()
            if upcoming is not None and time.monotonic() - ahead.made_at > _RESIGN_AFTER:
                upcoming = (upcoming[0], self._message(zone, upcoming[0]))
        if snap is None or before is None or len(errors) != n_errors or not sent:
            return
        after = sender.soa_serial(zone)
        if after != (before + len(sent)) % 2**32:
            return
        if all(snap.apply_message(*_fold(batch)) for batch in sent):
            snap.serial = after
            self._snapshots[zone] = snap

    def _zone_accepts(self, sender: _Sender, zone: str) -> bool:
        """Whether the zone accepts an UPDATE from us at all: a harmless one that deletes a name that does
        not exist (changes nothing, so the serial does not move)."""
        probe = f"_external-dns-probe-{secrets.token_hex(6)}"
        section = wire.rr(wire.name_wire(f"{probe}.{zone}" if zone != "." else probe, zone), 255,
                          wire.CLASS_ANY, 0, b"")  # type ANY, class ANY: delete every rrset at the name
        msg, data = wire.render_update(self._origins[zone], section, 1, self.transport.sign)
        try:
            sender.send(zone, msg, data, [f"probe {probe}.{zone}"])
        except _BatchFailed:
            return False
        return True

    def _send_batch(self, sender: _Sender, zone: str, batch: list[_Group], errors: list[str],
                    sent: list[list[_Group]], message: _Message | None,
                    meanwhile: Callable[[], None] | None = None) -> bool:
        """Send one batch, rendered and signed (`message`; None: too large, so it is split), or retried group
        by group when refused; True when it is in the zone. `meanwhile` runs while the first message sent is
        on the wire."""
        if message is None:
            if len(batch) == 1:
                errors.append(f"zone {zone}: {', '.join(batch[0].labels())}: too large for one DNS message")
                return False
            half = len(batch) // 2
            first = self._send_batch(sender, zone, batch[:half], errors, sent, self._message(zone, batch[:half]),
                                     meanwhile)
            return self._send_batch(sender, zone, batch[half:], errors, sent,
                                    self._message(zone, batch[half:])) and first
        msg, data = message
        try:
            sender.send(zone, msg, data, [lbl for g in batch for lbl in g.labels()], meanwhile)
        except _BatchFailed as failed:
            prerequisite = failed.rcode in _PREREQUISITE_RCODES
            if prerequisite and self._in_place(sender, zone, batch):
                return True
            if len(batch) > 1 and failed.rcode not in ("SERVFAIL",):
                (log.debug if prerequisite else log.warning)(
                    "RFC2136: UPDATE failed, retrying record by record", zone=zone, rcode=failed.rcode,
                    records=sum(len(g.ops) for g in batch))
                succeeded = 0
                for i, g in enumerate(batch):
                    succeeded += self._send_batch(sender, zone, [g], errors, sent, self._message(zone, [g]))
                    if i + 1 == _PROBE_GROUPS and not succeeded and i + 1 < len(batch) and (
                            not self._zone_accepts(sender, zone)):
                        # The zone refuses even a harmless update: nothing else will get through.
                        raise _ZoneRefused(failed.rcode, batch[i + 1:]) from None
                return succeeded == len(batch)
            if prerequisite:
                self._refused(zone, batch[0], failed.rcode)
                return False
            where = _context(zone, [lbl for g in batch for lbl in g.labels()])
            errors.append(f"{where}: server answered {failed.rcode}")
            log.error("RFC2136: UPDATE rejected", where=where, rcode=failed.rcode)
            return False
        sent.append(batch)
        n_add = sum(len(op.add_rdata) for g in batch for op in g.ops)
        n_remove = sum(len(op.remove_rdata) + int(op.remove_rrset) for g in batch for op in g.ops)
        RR_CHANGES.labels(zone, "add").inc(n_add)
        RR_CHANGES.labels(zone, "remove").inc(n_remove)
        log.debug("RFC2136: UPDATE applied", zone=zone, records=sum(len(g.ops) for g in batch), added=n_add,
                  removed=n_remove)
        return True


class _Sender:
    """Sends UPDATE messages of one sync over one connection, failing over to the next server."""

    def __init__(self, provider: RFC2136Provider) -> None:
        self.provider = provider
        self.transport = provider.transport
        self.hosts = self.transport.host_order()
        self.conn: DNSConnection | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def soa_serial(self, zone: str) -> int | None:
        """The zone's current SOA serial over the sync's connection (None when it cannot be had)."""
        if not self.hosts:
            return None
        if self.conn is None:
            self.conn = self.transport.connect(self.hosts[0])
        try:
            return _soa_serial(self.conn, self.transport, zone)
        except (*TRANSPORT_ERRORS, *TSIG_ERRORS):
            self.close()
            return None

    def send(self, zone: str, msg: dns.update.UpdateMessage, wire: bytes, labels: Sequence[str],
             meanwhile: Callable[[], None] | None = None) -> None:
        """Send one message and check its answer; `meanwhile` runs while it is on the wire (at most once)."""
        last_exc: BaseException | None = None
        while self.hosts:
            if self.conn is None:
                self.conn = self.transport.connect(self.hosts[0])
            host = self.conn.host
            try:
                response = self.conn.exchange(msg, wire, meanwhile)
            except TSIG_ERRORS as exc:
                UPDATE_MESSAGES.labels(zone, "BADSIG").inc()
                raise self.transport.describe_tsig_failure(host, exc, _context(zone, labels)) from None
            except TRANSPORT_ERRORS as exc:
                log.warning("RFC2136: server unreachable, trying the next one", host=host,
                            error=f"{type(exc).__name__}: {exc}")
                last_exc = exc
                self.close()
                self.hosts.pop(0)
                continue
            rcode = response.rcode()
            UPDATE_MESSAGES.labels(zone, dns.rcode.to_text(rcode)).inc()
            if rcode == dns.rcode.NOERROR:
                return
            if rcode in _AUTH_RCODES:
                raise TsigRejected(
                    f"RFC2136 server {host}:{self.transport.config.port} answered NOTAUTH for "
                    f"{_context(zone, labels)}: TSIG key {self.transport.config.tsig_keyname!r} is not accepted for the zone")
            raise _BatchFailed(dns.rcode.to_text(rcode))
        raise Unreachable(f"RFC2136: no server reachable for zone {zone} "
                          f"({', '.join(self.transport.config.active_hosts)}:{self.transport.config.port}): "
                          f"{last_exc}")


class _Lookahead:
    """The next batch and its message, made at most once: while the current message is on the wire (called
    by the connection between writing it and reading the answer), else when asked for. An exception of
    the making is kept and raised when asked for, never inside the exchange."""

    def __init__(self, make: Callable[[], tuple[list[_Group], _Message | None] | None]) -> None:
        self._make = make
        self._done = False
        self.made_at = 0.0  # when the message was made and signed (time.monotonic())
        self._error: BaseException | None = None
        self.value: tuple[list[_Group], _Message | None] | None = None

    def __call__(self) -> None:
        if self._done:
            return
        self._done = True
        try:
            self.value = self._make()
            self.made_at = time.monotonic()
        except BaseException as exc:  # raised by result(), in the caller's own frame
            self._error = exc

    def result(self) -> tuple[list[_Group], _Message | None] | None:
        self()
        if self._error is not None:
            raise self._error
        return self.value


def _render(zone: str, group: _Group, invalid: list[str]) -> bool:
    """Render the group's RRs; an op that cannot be rendered is dropped with an error. False if none is left."""
    kept: list[_Op] = []
    for op in group.ops:
        try:
            op.render(zone)
        except (ValueError, dns.exception.DNSException) as exc:
            invalid.append(f"{op.label}: {exc}")
            log.error("RFC2136: invalid record, skipped", record=op.label, error=str(exc))
            continue
        kept.append(op)
    group.ops = kept
    return bool(kept)


def _soa_serial(conn: DNSConnection, transport: DNSTransport, zone: str) -> int | None:
    """The SOA serial the server answers for the zone (None unless a clean, authoritative answer)."""
    query = dns.message.make_query(dns.name.from_text(zone), dns.rdatatype.SOA)
    transport.sign(query)
    response = conn.exchange(query)
    if response.rcode() != dns.rcode.NOERROR:
        return None
    for rrset in response.answer:
        if rrset.rdtype == dns.rdatatype.SOA and rrset:
            return int(rrset[0].serial)
    return None


def _targets_of(rtype: str, rdatas: Iterable[dns.rdata.Rdata]) -> list[str]:
    if rtype == "TXT":
        return [t for rd in rdatas for t in txt_targets(rd)]
    return [target_of(rd) for rd in rdatas]


def _fold(batch: list[_Group]) -> tuple[list[Removal], list[Addition]]:
    """The snapshot edits one sent message made (removals first, as in the message)."""
    removals: list[Removal] = []
    additions: list[Addition] = []
    for g in batch:
        for op in g.ops:
            if op.remove_rrset:
                removals.append(Removal(op.name, op.rtype, None))
            elif op.remove:
                removals.append(Removal(op.name, op.rtype, list(op.remove)))
            if op.add:
                additions.append(Addition(op.name, op.rtype, op.ttl, list(op.add)))
    return removals, additions


def _clashes(adds: list[tuple[str, str]], adding: dict[str, set[str]]) -> bool:
    """Whether a group's adds meet another group's in one message: the same record set (the server merges them
    in silence), or a CNAME and other data at one name (the server drops one in silence; prerequisites, checked
    before any add, cannot see it). Such groups go in separate messages, so the later one's prerequisites
    refuse it."""
    for name, rtype in adds:
        held = adding.get(name)
        if held and (rtype in held or rtype == "CNAME" or "CNAME" in held):
            return True
    return False


def _split_removals(groups: dict[str, _Group]) -> dict[str, _Group]:
    """Groups that create at a name they also remove from (a record changing type: A to CNAME) split in two:
    the removals first, then the rest in a message of its own, whose prerequisites see the removals done."""
    out: dict[str, _Group] = {}
    for key, g in groups.items():
        created = {op.name.lower() for op in g.ops if op.create}
        if not created or not any(not op.add and op.name.lower() in created for op in g.ops):
            out[key] = g
            continue
        out[key + "\x00removals"] = _Group(key, [op for op in g.ops if not op.add])
        out[key] = _Group(key, [op for op in g.ops if op.add], barrier=True)
    return out


def _context(zone: str, labels: Sequence[str]) -> str:
    shown = ", ".join(labels[:5]) + (f" (+{len(labels) - 5} more)" if len(labels) > 5 else "")
    return f"zone {zone} ({shown})" if shown else f"zone {zone}"
