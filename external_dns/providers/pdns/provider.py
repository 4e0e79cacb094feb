"""The PowerDNS provider (`--provider=pdns`): PowerDNS Authoritative through its HTTP API.

Owns the managed zones (the server's zones through the domain filter, cached), reading a zone into endpoints
(one GET of its plain-text export per zone, the JSON zone where that is not served), the read-back form of desired endpoints (so a re-sync sends nothing), and writing a plan
as RRset PATCHes per zone (REPLACE/DELETE per name and type; other rrsets and their comments untouched).
Conversions live in records.py, HTTP, deadlines and error mapping in client.py.

A REPLACE or DELETE acts on a whole rrset, so none is sent for an rrset that holds values we did not write: each
write is checked against the zone as last read (read first when it was not: the `apply` of a plan file), a
create against an rrset that does not exist, an update or a delete against the values it replaces. A write that
fails the check is refused with a warning, with everything at its name and its ownership TXT (they travel
together); the zone's other writes go on. (PowerDNS has no conditional PATCH: an edit between the read and the
write is not seen.)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
from cachetools import TTLCache

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.pdns.client import PDNSBodyTooLarge, PDNSClient, PDNSNotFound, PDNSRefused
from external_dns.providers.pdns.config import PDNSConfig
from external_dns.providers.pdns.records import (
    DEFAULT_TTL,
    InvalidRecordError,
    canonical_name,
    canonical_target,
    endpoint_from_rrset,
    endpoints_from_export,
    read_target,
    rrset_delete,
    rrset_replace,
)
from external_dns.providers.provider import Provider, ProviderError, SoftError, zone_for_name

log = structlog.get_logger(__name__)

_MAX_REPORTED = 20  # refusals quoted in the final error message
_MIN_PATCH_BYTES = 64 * 1024  # the learned body limit never goes below this
_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode  # one rrset, compact
_JSON_STR = json.encoder.encode_basestring_ascii  # a str as a JSON string, as _ENCODE writes it
_REPLACE_KEYS = ["name", "type", "ttl", "changetype", "records"]  # rrset_replace's shape, in its order
_RECORD_KEYS = ["content", "disabled"]


@dataclass(frozen=True)
class Zone:
    name: str  # lower case, without the trailing dot
    id: str  # the API's zone id (the name with its trailing dot, '/' escaped as =2F)


@dataclass(frozen=True)
class _Check:
    """One write's expectation of its rrset (by `_rrset_key`): `before` its values' `_values_key` (None: the rrset
    must not exist), or equal to `result` (the write is in place already)."""

    label: str  # "create www.example.org A"
    key: int
    before: int | None
    result: int | None
    beside: tuple[int, ...] = ()  # rrsets that must not be there (other data beside a CNAME, a CNAME beside data)


@dataclass
class _Group:
    """The rrsets that must travel together: a record, its ownership TXT, everything at one name."""

    key: str
    # (name, type) -> (changetype, the rrset as JSON): only what a request needs is kept, not the rrset dicts
    # (a --once run hands a whole zone to one call: 20k records held ~55 MB more as dicts).
    rrsets: dict[tuple[str, str], tuple[str, bytes]] = field(default_factory=dict)
    encoded: int = 0  # bytes of the encoded rrsets, kept by _add
    # what each write expects the zone to hold before it (`_Check`), and the zone after (for the kept view)
    checks: list[_Check] = field(default_factory=list)
    after: dict[int, int | None] = field(default_factory=dict)

    def size(self) -> int:
        """The group's share of a request body: its rrsets and a comma each."""
        return self.encoded + len(self.rrsets)

    def describe(self) -> str:
        return ", ".join(f"{n.rstrip('.')} {t}" for n, t in sorted(self.rrsets))


class PDNSProvider(Provider):
    """PowerDNS behind the Provider interface. `client` is built from `config` unless given."""

    # A zone's whole plan per call: apply_changes packs it into as few PATCHes as the body limit allows, and
    # each PATCH costs PowerDNS ~0.1 s on a 40k-rrset zone whatever its size (20 calls of 1,000 changes:
    # 20 PATCHes). A failed PATCH still leaves the earlier ones applied, as a failed batch does.
    preferred_apply_batch_size = 0

    def __init__(self, config: PDNSConfig, client: PDNSClient | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.client = client or PDNSClient(config)
        self._lock = threading.Lock()
        self._zone_cache: TTLCache[str, tuple[Zone, ...]] = TTLCache(
            maxsize=1, ttl=max(config.zones_cache_seconds, 1e-9), timer=clock)
        # The request body limit in use: lowered when the server turns out to accept less.
        self._max_bytes = config.max_patch_bytes
        # Zones are read from their export until the server (or a proxy in front) refuses it: then every zone is
        # read as JSON; a zone whose export does not read whole (a TXT value with a line break) is read as JSON.
        self._export = True
        self._json_zones: set[str] = set()  # zone ids
        # zone id -> {`_rrset_key`: `_values_key`} of the zone as last read, kept in step with our writes: what
        # every write is checked against (a hash per rrset: the zone is not held twice)
        self._seen: dict[str, dict[int, int]] = {}

    def __repr__(self) -> str:
        return f"PDNSProvider(server={self.config.shown_server!r}, server_id={self.config.server_id!r})"

    def close(self) -> None:
        """Interrupt a back-off wait of the client (shutdown)."""
        self.client.close()

    def record_default_ttl(self, zone: str) -> int:
        return DEFAULT_TTL  # what a record without a TTL is written with

    # -- zones ----------------------------------------------------------------------------------------------
    def managed_zones(self) -> tuple[Zone, ...]:
        """The zones we manage, sorted; the server's list is reused for `zones_cache_seconds`."""
        with self._lock:
            cached = self._zone_cache.get("zones")
        if cached is not None:
            return cached
        zones = tuple(sorted(self._filter_zones(self.client.list_zones()), key=lambda z: z.name))
        with self._lock:
            self._zone_cache["zones"] = zones
        return zones

    def _filter_zones(self, listing: Iterable[dict[str, Any]]) -> Iterable[Zone]:
        flt = self.config.domain_filter
        for item in listing:
            name = name_key(str(item.get("name", "")))
            zone_id = str(item.get("id") or item.get("name") or "")
            if not name or not zone_id:
                continue
            # external-dns PartitionZones: a zone is ours when the filter matches it or one of its names.
            if not flt.is_configured() or flt.match(name) or flt.match_parent(name):
                yield Zone(name=name, id=zone_id)

    def forget_zones(self) -> None:
        """Drop the cached zone list (read again at the next use)."""
        with self._lock:
            self._zone_cache.clear()

    def zones(self) -> Sequence[str]:
        return tuple(z.name for z in self.managed_zones())

    def get_domain_filter(self) -> DomainFilter:
        """The managed zones as a filter: names outside every zone are never planned."""
        try:
            zones = self.managed_zones()
        except ProviderError as exc:
            log.error(f"failed to list zones: {exc}")
            return DomainFilter()
        if not zones:
            return DomainFilter(regex=r"[^\s\S]")  # no zone: nothing may be planned (an RE2 never-match)
        names: list[str] = []
        for zone in zones:
            names.extend((zone.name + ".", "." + zone.name + "."))
        return DomainFilter(include=names)

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        for zone in self.managed_zones():
            out.extend(self._read_zone(zone))
        return out

    def zone_records(self, zone: str) -> list[Endpoint]:
        """The records of one managed zone (one request)."""
        wanted = name_key(zone)
        for z in self.managed_zones():
            if z.name == wanted:
                return self._read_zone(z)
        return []

    def _read_zone(self, zone: Zone) -> list[Endpoint]:
        """The zone's records, from its export: PowerDNS builds it in about a third of the time of the JSON
        zone (no JSON, no comments), and it decodes with less work; the same names, contents and TTLs, enabled
        records only. Where it is not served whole the zone is read as JSON, and so from then on (every zone when
        the export was refused, that zone when its answer did not read whole)."""
        endpoints = self._read_zone_data(zone)
        # `_rrset_key` and `_values_key` inline: names and types as read back, targets sorted already
        seen = {hash((ep.dns_name, ep.record_type)): hash(tuple(ep.targets)) for ep in endpoints}
        with self._lock:
            self._seen[zone.id] = seen
        return endpoints

    def _read_zone_data(self, zone: Zone) -> list[Endpoint]:
        failure, every_zone = "", False
        if self._export and zone.id not in self._json_zones:
            try:
                endpoints = endpoints_from_export(self.client.export_zone(zone.id), zone.name)
            except SoftError:
                raise  # a server or connection failure: the JSON read would only wait for it again
            except ProviderError as exc:  # 404 from a proxy that does not know the path, ... (or a bad key:
                failure, every_zone = str(exc), True  # then the JSON read below says so)
            else:
                if endpoints is not None:
                    return endpoints
                failure = "the answer is not a whole zone export (a TXT value with a line break?)"
        endpoints = self._read_zone_json(zone)
        if failure:
            if every_zone:
                self._export = False
            else:
                self._json_zones.add(zone.id)
            log.info(f"PowerDNS at {self.config.shown_server}: reading {'zones' if every_zone else 'zone ' + zone.name} "
                     f"as JSON from now on (zone export of {zone.name}: {failure})")
        return endpoints

    def _read_zone_json(self, zone: Zone) -> list[Endpoint]:
        try:
            data = self.client.get_zone(zone.id)
        except PDNSNotFound:
            self.forget_zones()  # deleted since it was listed: list again next time
            raise SoftError(f"zone {zone.name} disappeared from PowerDNS while being read") from None
        rrsets = data.get("rrsets")
        if not isinstance(rrsets, list):
            # Never read as "empty": an answer without rrsets is not a zone we can plan against.
            raise ProviderError(f"PowerDNS at {self.config.shown_server}: zone {zone.name} came back without rrsets")
        out: list[Endpoint] = []
        for rrset in rrsets:
            if isinstance(rrset, dict):
                ep = endpoint_from_rrset(rrset)
                if ep is not None:
                    out.append(ep)
        return out

    # -- adjusting ------------------------------------------------------------------------------------------
    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        out: list[Endpoint] = []
        for original in endpoints:
            ep = original.copy()
            name = ep.dns_name.strip()
            name = name.lower() if name.isascii() else canonical_name(name)
            ep.dns_name = name[:-1] if name.endswith(".") else name  # as read back: ASCII, lower case, no dot
            if ep.set_identifier:
                # PowerDNS has one rrset per name and type and no routing policies: a set identifier could
                # never be read back (the record would be planned again at every sync).
                log.warning(f"{ep.dns_name} {ep.record_type}: set identifier \"{ep.set_identifier}\" ignored "
                            "(not supported by PowerDNS)")
                ep.set_identifier = ""
            rtype = ep.record_type
            targets = [canonical_target(rtype, t) for t in ep.targets]
            if len(targets) > 1:
                targets.sort()
            ep.targets = Targets(targets)
            out.append(ep)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """PATCH each zone's changes. Creates and updates are a REPLACE of the whole rrset (sent without
        `comments`, which keeps the rrset's own comments), deletes a DELETE;
        a record, its ownership TXT (`ownedRecord` label) and everything at one name stay in one request.
        Refusals (422, or invalid records never sent) are raised together at the end as a `ProviderError`
        once every other change is in; a refused API key (`PDNSAuthError`) and 5xx / connection failures
        (`SoftError`, after the client's retries) stop at once: requests already answered stay applied and
        the rest is planned again at the next sync."""
        zones = self.managed_zones()
        names = [z.name for z in zones]
        by_name = {z.name: z for z in zones}
        per_zone: dict[str, dict[str, _Group]] = {}
        invalid: list[str] = []
        for ep, rrset, check in self._operations(changes, invalid):
            zone = zone_for_name(ep.dns_name, names)
            if zone is None:
                log.warning(f"No matching zone for {ep.dns_name} {ep.record_type}: skipped")
                continue
            key = name_key(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)
            in_zone = per_zone.get(zone)
            if in_zone is None:
                in_zone = per_zone[zone] = {}
            group = in_zone.get(key)
            if group is None:
                group = in_zone[key] = _Group(key)
            _add(group, rrset)
            group.checks.append(check)
        refused: list[str] = list(invalid)
        for zone_name in sorted(per_zone):
            target = by_name[zone_name]
            groups = self._checked(target, [per_zone[zone_name][k] for k in sorted(per_zone[zone_name])])
            refused.extend(self._apply_zone(target, groups))
        if refused:
            more = f" (and {len(refused) - _MAX_REPORTED} more)" if len(refused) > _MAX_REPORTED else ""
            raise ProviderError(f"PowerDNS refused {len(refused)} change(s): "
                                + "; ".join(refused[:_MAX_REPORTED]) + more)

    def _operations(self, changes: Changes, invalid: list[str]) -> Iterable[tuple[Endpoint, dict[str, Any], _Check]]:
        """(endpoint, rrset, what the zone must hold for it) for every write, unchanged update pairs dropped.
        Invalid records are reported in `invalid` (naming the record) and left out."""

        def replace(ep: Endpoint) -> dict[str, Any] | None:
            try:
                return rrset_replace(ep)
            except InvalidRecordError as exc:
                invalid.append(f"{ep.dns_name} {ep.record_type}: {exc}")
                return None

        for ep in changes.delete:
            rrset = rrset_delete(ep)
            yield ep, rrset, _check("delete", ep, rrset, ep, None)
        for old, new in zip(changes.update_old, changes.update_new, strict=False):
            new_rrset = replace(new)
            if new_rrset is None:
                continue
            if name_key(old.dns_name) != name_key(new.dns_name) or \
                    rrset_delete(old)["type"] != new_rrset["type"]:
                old_rrset = rrset_delete(old)
                yield old, old_rrset, _check("update", old, old_rrset, old, None)
                yield new, new_rrset, _check("update", new, new_rrset, None, new_rrset)
                continue
            try:
                if rrset_replace(old) == new_rrset:
                    continue  # nothing PowerDNS would store differently
            except InvalidRecordError:
                pass
            yield new, new_rrset, _check("update", new, new_rrset, old, new_rrset)
        for ep in changes.create:
            created = replace(ep)
            if created is not None:
                yield ep, created, _check("create", ep, created, None, created)

    def _checked(self, zone: Zone, groups: list[_Group]) -> list[_Group]:
        """The groups whose writes all find the zone as they expect (read first if it never was); the others are
        refused with a warning naming each record and what it found."""
        with self._lock:
            seen = self._seen.get(zone.id)
        if seen is None:
            self._read_zone(zone)  # read before write: an `apply` of a plan file, a first write
            with self._lock:
                seen = self._seen.get(zone.id, {})
        out: list[_Group] = []
        for group in groups:
            bad: list[_Check] = []
            checked: set[int] = set()
            gone = {c.key for c in group.checks if c.result is None}  # deleted by the group itself (a type change)
            for c in group.checks:  # the first write to an rrset finds the zone as read; later ones follow it
                if c.key not in checked:
                    checked.add(c.key)
                    if seen.get(c.key) not in (c.before, c.result) or any(
                            k in seen and k not in gone for k in c.beside):
                        bad.append(c)
            if not bad:
                out.append(group)
                continue
            for c in bad:
                found = "another value" if seen.get(c.key) is not None else "nothing"
                expected = "no record set" if c.before is None else "the values it replaces"
                if seen.get(c.key) in (c.before, c.result):
                    found, expected = "other data", "a CNAME alone at its name, or no CNAME beside data"
                log.warning(f"PowerDNS zone {zone.name}: {c.label} refused: the rrset holds values this owner did not "
                            f"write ({found} where {expected} was expected), so it is neither replaced nor deleted; "
                            f"its name's other changes and ownership records wait with it: "
                            f"{group.describe()}")
        return out

    def _apply_zone(self, zone: Zone, groups: list[_Group]) -> list[str]:
        """Send the groups of one zone in as few PATCHes as fit; returns the refusals."""
        refused: list[str] = []
        replaced = deleted = requests = 0
        for batch in self._batches(groups):
            done, sent, errors = self._send(zone, batch)
            requests += sent
            refused.extend(errors)
            self._written(zone, done)
            for group in done:
                for changetype, _ in group.rrsets.values():
                    if changetype == "DELETE":
                        deleted += 1
                    else:
                        replaced += 1
        if requests:
            log.info(f"PowerDNS zone {zone.name}: {replaced} rrset(s) replaced, {deleted} deleted in "
                     f"{requests} request(s)" + (f", {len(refused)} refused" if refused else ""))
        return refused

    def _written(self, zone: Zone, groups: list[_Group]) -> None:
        """Keep the zone's view in step with what was just written."""
        with self._lock:
            seen = self._seen.get(zone.id)
            if seen is None:
                return
            for group in groups:
                for key, values in group.after.items():
                    if values is None:
                        seen.pop(key, None)
                    else:
                        seen[key] = values

    def _batches(self, groups: list[_Group]) -> Iterable[list[_Group]]:
        """As few requests as fit `max_patch_rrsets` rrsets and the body limit: each PATCH costs PowerDNS work
        that grows with the zone, whatever the request's size."""
        cfg = self.config
        batch: list[_Group] = []
        count = size = 0
        for group in groups:
            g_count, g_size = len(group.rrsets), group.size()
            if batch and (count + g_count > cfg.max_patch_rrsets or size + g_size > self._max_bytes):
                yield batch
                batch, count, size = [], 0, 0
            batch.append(group)
            count += g_count
            size += g_size
        if batch:
            yield batch

    def _send(self, zone: Zone, batch: list[_Group]) -> tuple[list[_Group], int, list[str]]:
        """PATCH one batch; on a 422 split it in halves until the refused group stands alone, and the same
        when the server drops a body too large for it. Returns (groups applied, requests sent, refusals)."""
        body = _body(batch)
        try:
            self.client.patch_zone(zone.id, body)
            return batch, 1, []
        except PDNSRefused as exc:
            if len(batch) == 1:
                return [], 1, [f"zone {zone.name}: {batch[0].describe()}: {exc.server_message}"]
        except PDNSBodyTooLarge:
            if len(batch) == 1 or len(body) // 2 < _MIN_PATCH_BYTES:
                raise SoftError(f"PowerDNS at {self.config.shown_server} closed the connection on a {len(body)}-byte "
                                f"change of zone {zone.name}; if the server is up, raise its "
                                "webserver-max-bodysize") from None
            with self._lock:
                lowered = self._max_bytes > len(body) // 2
                self._max_bytes = min(self._max_bytes, len(body) // 2)
            if lowered:
                log.warning(f"PowerDNS at {self.config.shown_server} refused a {len(body)}-byte request; sending at "
                            f"most {self._max_bytes} bytes per request from now on (webserver-max-bodysize)")
        except PDNSNotFound:
            self.forget_zones()
            raise SoftError(f"zone {zone.name} disappeared from PowerDNS while being changed") from None
        mid = len(batch) // 2
        done: list[_Group] = []
        sent, errors = 1, []
        for half in (batch[:mid], batch[mid:]):
            h_done, h_sent, h_errors = self._send(zone, half)
            done.extend(h_done)
            sent += h_sent
            errors.extend(h_errors)
        return done, sent, errors


def _add(group: _Group, rrset: dict[str, Any]) -> None:
    """Add an rrset to its group; a later write to the same name and type wins, a REPLACE over a DELETE
    (PowerDNS refuses two changes of one rrset in one request)."""
    key = (rrset["name"], rrset["type"])
    current = group.rrsets.get(key)
    if current is not None and rrset["changetype"] == "DELETE" and current[0] == "REPLACE":
        return
    if current is not None and current[0] == "REPLACE" and rrset["changetype"] == "REPLACE":
        log.warning(f"two records for {key[0].rstrip('.')} {key[1]} (set identifiers are not supported by "
                    "PowerDNS): the last one is written")
    raw = _encode(rrset)
    group.encoded += len(raw) - (len(current[1]) if current is not None else 0)
    group.rrsets[key] = (rrset["changetype"], raw)
    group.after[_rrset_key(key[0], key[1])] = _rrset_values_key(rrset)


def _rrset_key(name: str, rtype: str) -> int:
    """An rrset's key in the kept view: its name and type as read back (lower case, no trailing dot; an ALIAS
    reads back as a CNAME)."""
    return hash((name_key(name), "CNAME" if rtype == "ALIAS" else rtype))


def _values_key(targets: Iterable[str]) -> int:
    """An rrset's values in read-back form, in any order."""
    return hash(tuple(sorted(targets)))


def _rrset_values_key(rrset: dict[str, Any]) -> int | None:
    """The `_values_key` of what a written rrset reads back as (None: a DELETE, the rrset is gone)."""
    if rrset["changetype"] == "DELETE":
        return None
    rtype = rrset["type"]
    return _values_key(dict.fromkeys(read_target(rtype, r["content"]) for r in rrset["records"]))


def _check(kind: str, ep: Endpoint, rrset: dict[str, Any], before: Endpoint | None,
           result: dict[str, Any] | None) -> _Check:
    """What the write `rrset` of `ep` expects: the values of `before` (None: no rrset), or `result` in place."""
    beside: tuple[int, ...] = ()
    if result is not None:  # PowerDNS refuses a CNAME beside other data (422): refused here, alone, with a warning
        name, rtype = name_key(rrset["name"]), "CNAME" if rrset["type"] == "ALIAS" else rrset["type"]
        beside = tuple(hash((name, t)) for t in _DATA_TYPES if t != "CNAME") if rtype == "CNAME" else (
            (hash((name, "CNAME")),))
    return _Check(label=f"{kind} {ep.dns_name} {ep.record_type}", key=_rrset_key(rrset["name"], rrset["type"]),
                  before=None if before is None else _values_key(canonical_target(before.record_type, t)
                                                                 for t in before.targets),
                  result=None if result is None else _rrset_values_key(result), beside=beside)


# The types a CNAME may not sit beside (what the zone reads give; anything rarer PowerDNS refuses with a 422).
_DATA_TYPES = ("A", "AAAA", "CNAME", "MX", "TXT", "SRV", "NS", "PTR", "CAA", "NAPTR", "DNAME", "DS", "SSHFP",
               "TLSA", "HTTPS", "SVCB", "LOC", "SPF", "HINFO", "RP", "URI", "CERT", "DNSKEY", "OPENPGPKEY")


def _encode(rrset: dict[str, Any]) -> bytes:
    """`rrset` as compact JSON, byte for byte what `_ENCODE` writes; a REPLACE of rrset_replace's shape is
    written directly (every rrset of a sync goes through here: about a third of the encoder's time)."""
    if list(rrset) != _REPLACE_KEYS or type(rrset["ttl"]) is not int or type(rrset["name"]) is not str \
            or type(rrset["type"]) is not str or type(rrset["changetype"]) is not str:
        return _ENCODE(rrset).encode()
    records: list[str] = []
    for record in rrset["records"]:
        if type(record) is not dict or list(record) != _RECORD_KEYS or type(record["content"]) is not str \
                or type(record["disabled"]) is not bool:
            return _ENCODE(rrset).encode()
        records.append('{"content":' + _JSON_STR(record["content"])
                       + (',"disabled":true}' if record["disabled"] else ',"disabled":false}'))
    return ('{"name":' + _JSON_STR(rrset["name"]) + ',"type":' + _JSON_STR(rrset["type"]) + ',"ttl":'
            + str(rrset["ttl"]) + ',"changetype":' + _JSON_STR(rrset["changetype"]) + ',"records":['
            + ",".join(records) + "]}").encode()


def _body(batch: list[_Group]) -> bytes:
    """`{"rrsets": [...]}` with the deletes first."""
    deletes: list[bytes] = []
    replaces: list[bytes] = []
    for group in batch:
        for changetype, raw in group.rrsets.values():
            (deletes if changetype == "DELETE" else replaces).append(raw)
    return b'{"rrsets":[' + b",".join(deletes + replaces) + b"]}"
