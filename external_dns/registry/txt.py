"""The TXT registry: ownership of DNS records kept in companion TXT records (external-dns `registry/txt`).
Every record this owner manages has one TXT, named by the `AffixNameMapper` (`a-app.example.com` for
`app.example.com A`), holding its serialised labels (`heritage=external-dns,external-dns/owner=...`),
optionally AES-256-GCM encrypted. `records()` and `apply_changes()` hold one lock for their whole run:
the ownership bookkeeping needs one cycle's read and write not to interleave with another's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import timedelta
from sys import intern

import structlog

from external_dns.endpoint.endpoint import (
    DEFAULT_MANAGED_RECORD_TYPES,
    OWNED_RECORD_LABEL_KEY,
    OWNER_LABEL_KEY,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_TXT,
    Endpoint,
    ProviderSpecificProperty,
    new_endpoint,
)
from external_dns.endpoint.labels import InvalidHeritageError, parse_labels, serialize_labels
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.utils import filter_endpoints_by_owner_id
from external_dns.endpoint.validation import MAX_LABEL_LENGTH
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider, zone_for_name
from external_dns.registry.admission import admit_owned, affix_problem
from external_dns.registry.encrypted import UNDECRYPTABLE_LABELS, looks_encrypted
from external_dns.registry.mapper import AffixNameMapper
from external_dns.registry.registry import Registry, split_holds
from external_dns.registry.zone_owners import (
    OwnershipIndex,
    StoredTxt,
    ZoneOwners,
    stored_txt,
    stored_values,
)

log = structlog.get_logger(__name__)

PROVIDER_SPECIFIC_FORCE_UPDATE = "txt/force-update"

_LabelKey = tuple[str, str, str]  # (endpoint name lower-case, record type or "", set identifier)
_TxtKey = tuple[str, str]  # (TXT name lower-case, set identifier)


def _txt_key(txt: Endpoint) -> _TxtKey:
    return (txt.dns_name.lower(), txt.set_identifier)


def _is_alias_a_record(ep: Endpoint) -> bool:
    alias = ep.get_alias_property()
    return ep.record_type == RECORD_TYPE_A and (alias is True or alias == RECORD_TYPE_A)


_MAX_OWNERSHIP_TEXTS = 1 << 17
_UNKNOWN: dict[str, str] = {}  # marks a TXT value not parsed yet (never handed out)


class TXTRegistry(Registry):
    """Ownership through TXT records. Raises ValueError on a bad configuration (empty owner, both prefix and
    suffix, bad AES key)."""

    def __init__(
        self,
        provider: Provider,
        prefix: str = "",
        suffix: str = "",
        owner_id: str = "default",
        cache_interval: float | timedelta = 0,
        wildcard_replacement: str = "",
        managed_record_types: Iterable[str] = DEFAULT_MANAGED_RECORD_TYPES,
        exclude_record_types: Iterable[str] = (),
        txt_encrypt_enabled: bool = False,
        txt_encrypt_aes_key: str | bytes = "",
        old_owner_id: str = "",
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not owner_id:
            raise ValueError("owner id cannot be empty")
        aes_key: bytes | None = None
        if txt_encrypt_aes_key:  # cryptography (~4 ms to import) only when a key is given
            from external_dns.endpoint import crypto

            aes_key = crypto.parse_aes_key(txt_encrypt_aes_key)
        if txt_encrypt_enabled and aes_key is None:
            raise ValueError("the AES Encryption key must be set when TXT record encryption is enabled")
        if prefix and suffix:
            raise ValueError("txt-prefix and txt-suffix are mutual exclusive")
        shared = AffixNameMapper(prefix, suffix).collision()
        if shared is not None:  # one record's ownership would be read back as another's (cmd says it at start-up)
            raise ValueError(affix_problem(prefix, suffix) or "ambiguous ownership record names")
        self.provider = provider
        self._owner_id = owner_id
        self.mapper = AffixNameMapper(prefix, suffix, wildcard_replacement)
        self.cache_interval = (
            cache_interval.total_seconds() if isinstance(cache_interval, timedelta) else float(cache_interval)
        )
        self.wildcard_replacement = wildcard_replacement.lower()
        self.managed_record_types = tuple(managed_record_types)
        self.exclude_record_types = tuple(exclude_record_types)
        # `is_managed_record` as one set lookup (labelling runs once per record of a zone read)
        self._managed = frozenset(self.managed_record_types) - frozenset(self.exclude_record_types)
        self.txt_encrypt_enabled = txt_encrypt_enabled
        self._aes_key = aes_key  # used to decrypt whenever given; to encrypt only when enabled
        self.old_owner_id = old_owner_id
        self._clock = clock
        self._lock = threading.RLock()
        self._cache: list[Endpoint] | None = None
        self._cache_time = 0.0
        # TXT values as read from (or last written to) the provider, by (TXT name, set identifier).
        self._stored_txts: dict[_TxtKey, StoredTxt] = {}
        self._have_read = False  # whether _stored_txts describes the provider (a read happened)
        self._warned_legacy: set[str] = set()
        self._warned_shared: set[str] = set()  # ownership TXT names two records share (wildcard replacement)
        self._warned_undecryptable: set[str] = set()  # zones
        # with a wildcard replacement: (name, type, set identifier) of the records read whose name a twin shares
        # the ownership TXT with (`*.b` / `star.b`), and (name, set identifier) for any type
        self._read_twins: set[tuple[str, str, str]] = set()
        self._read_twin_names: set[tuple[str, str]] = set()
        # TXT value -> its labels (None: not an ownership value), this registry's AES key fixed: a value is
        # parsed once (many records share one, e.g. the endpoints of one object), and building the records
        # asks again without parsing (bounded). The label maps are shared: never changed after parsing.
        self._ownership_texts: dict[str, dict[str, str] | None] = {}
        # per-zone ownership maps fed by the provider's zone snapshots (registry/zone_owners.py)
        self._owners = OwnershipIndex(self, self.mapper.to_endpoint_name, self.wildcard_replacement,
                                      self._stored_txts)

    def __repr__(self) -> str:
        return (
            f"TXTRegistry(owner_id={self._owner_id!r}, mapper={self.mapper!r}, "
            f"cache_interval={self.cache_interval}, encrypt={self.txt_encrypt_enabled})"
        )

    def owner_id(self) -> str:
        return self._owner_id

    # -- TXT generation -------------------------------------------------------------------------------------
    def _encrypt_key(self) -> bytes | None:
        return self._aes_key if self.txt_encrypt_enabled else None

    def generate_txt_record(self, ep: Endpoint) -> list[Endpoint]:
        """The ownership TXT record(s) of `ep` (exactly one): name from the mapper, value the serialised
        labels (rewriting the old owner first), the set identifier and provider-specific properties of `ep`
        (routing policies must match on e.g. Route53), label `ownedRecord` = the record's name."""
        if self.old_owner_id and ep.labels.get(OWNER_LABEL_KEY) == self.old_owner_id:
            ep.labels[OWNER_LABEL_KEY] = self._owner_id
        value = serialize_labels(ep.labels, with_quotes=True, aes_key=self._encrypt_key())
        txt = new_endpoint(self.mapper.to_txt_name(ep.dns_name, ep.record_type), RECORD_TYPE_TXT, value)
        if txt is None:  # a label longer than 63 characters: logged by new_endpoint, no TXT possible
            return []
        txt.set_identifier = ep.set_identifier
        txt.labels[OWNED_RECORD_LABEL_KEY] = ep.dns_name
        # every property is copied, as Go's registry does (`alias` too: providers only honour it on A/AAAA/CNAME)
        txt.provider_specific = [ProviderSpecificProperty(p.name, p.value) for p in ep.provider_specific]
        return [txt]

    def _claimed(self, key: _TxtKey) -> str:
        """The other owner an ownership TXT read at `key` names ("" when it is ours, or none was read); an
        undecryptable one (another key's) is another owner's too."""
        stored = self._stored_txts.get(key)
        labels = self._labels_at(key[0], stored_values(stored)[0]) if stored else None
        owner = labels.get(OWNER_LABEL_KEY, "") if labels is not None else ""
        if owner == self.old_owner_id and owner:
            return ""  # --migrate-from-txt-owner: the old owner's records are taken over on purpose
        return owner if owner and owner != self._owner_id else ""

    def _txt_for_removal(self, ep: Endpoint) -> list[tuple[Endpoint, bool]]:
        """The TXT of `ep` to delete, each with whether it is known to exist: its value is the one read from
        the provider when there was one."""
        out: list[tuple[Endpoint, bool]] = []
        for txt in self.generate_txt_record(ep):
            stored = self._stored_txts.pop(_txt_key(txt), None)
            if stored:
                txt.targets = Targets(stored_values(stored))
            out.append((txt, stored is not None or not self._txts_known(txt.dns_name)))
        return out

    def _txts_known(self, txt_name: str) -> bool:
        """Whether the table of stored TXT values describes the provider at `txt_name`: after a full read, or
        when the name's zone has an ownership map."""
        if self._have_read:
            return True
        if not self._owners.zones:
            return False
        return zone_for_name(txt_name, list(self.provider.zones()) or [""]) in self._owners.zones

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """The provider's adjustment, after dropping (with a warning) the endpoints whose ownership record
        cannot exist (registry/admission.py): they would be created as orphans."""
        endpoints, holds = split_holds(endpoints)
        admitted = admit_owned(endpoints, self.mapper, list(self.provider.zones()))
        adjusted = self.provider.adjust_endpoints(endpoints if len(admitted) == len(endpoints) else admitted)
        return adjusted + holds if holds else adjusted

    # -- reading --------------------------------------------------------------------------------------------
    def zone_records(self, zone: str, names: Iterable[str] | None = None) -> list[Endpoint]:
        """`records()` of one zone (of `names` only, when given), from the zone's ownership map, which follows
        the provider's zone snapshot name by name (registry/zone_owners.py): an unchanged zone costs the
        provider's freshness check, a changed one the names that changed."""
        with self._lock:
            return self._zone_owners(zone).records(names)

    def zone_changes(self, zone: str) -> set[str] | None:
        """Refresh the zone's ownership map and return the names (lower case, no trailing dot) whose labelled
        records changed since the previous call: outside edits, our own writes, ownership moves. None when
        the whole zone may have changed (first call, a rebuild, a failed write)."""
        with self._lock:
            return self._zone_owners(zone).take_changed()

    def zone_view(self, zone: str) -> Sequence[Endpoint]:
        """The zone's records as the safety gate counts them (record type and owner label of each; stand-ins,
        not the records), without a refresh: what the gate reads right after `zone_records`."""
        with self._lock:
            owners = self._owners.zones.get(zone)
            return owners.view() if owners is not None else self._zone_owners(zone).view()

    def _zone_owners(self, zone: str) -> ZoneOwners:
        return self._owners.refresh(zone, self.provider.zone_snapshot, list(self.provider.zones()) or [""])

    def records(self) -> list[Endpoint]:
        """The provider's records without the ownership TXT records, with their labels attached. With
        `cache_interval` > 0 the non-TXT records are served from memory until the interval passes; writes
        update that cache, a provider failure drops it."""
        if self.provider.cheap_snapshots and self.cache_interval <= 0:
            # Every zone from its ownership map: only the names that moved since the last read are redone.
            with self._lock:
                out: list[Endpoint] = []
                zones = sorted(self.provider.zones(), key=len)  # parents first: see registry/zone_owners.py
                for zone in zones:
                    self._zone_owners(zone)
                for zone in zones:
                    out.extend(self._owners.zones[zone].records())
                return out
        with self._lock:
            if self._cache is not None and self._clock() - self._cache_time < self.cache_interval:
                log.debug("Using cached records.")
                return [ep.copy() for ep in self._cache]
            endpoints = self._read()
            if self.cache_interval > 0:
                self._cache = [ep.copy() for ep in endpoints]
                self._cache_time = self._clock()
            return endpoints

    def _read(self) -> list[Endpoint]:
        endpoints: list[Endpoint] = []
        label_map: dict[_LabelKey, dict[str, str]] = {}
        txt_names: set[str] = set()
        stored: dict[_TxtKey, StoredTxt] = {}
        for record in self.provider.records():
            if record.record_type != RECORD_TYPE_TXT:
                endpoints.append(record.copy())  # labels are added below: never touch the provider's objects
                continue
            if not record.targets:
                log.error(f"TXT record has no targets {record.dns_name}", dns_name=record.dns_name)
                continue
            labels = self._ownership_labels(record)
            if labels is None:
                endpoints.append(record.copy())  # not an ownership record: an ordinary record without owner
                continue
            name, rtype = self.mapper.to_endpoint_name(record.dns_name)
            label_map[(name, rtype, record.set_identifier)] = labels
            txt_names.add(record.dns_name.lower())
            stored[_txt_key(record)] = stored_txt(record.targets)
        self._count_undecryptable(name for (name, rtype, _s), labels in label_map.items()
                                  if labels is UNDECRYPTABLE_LABELS)
        self._owners.clear()  # the zone maps kept the old table in step
        self._stored_txts = stored
        self._owners.stored_txts = stored
        self._have_read = True

        holds: Callable[[str, str | None, str], bool] | None = None
        if self.wildcard_replacement:
            twins = [(name_key(ep.dns_name), ep.record_type, ep.set_identifier) for ep in endpoints
                     if self.twin(name_key(ep.dns_name)) is not None]
            self._read_twins = set(twins)
            self._read_twin_names = {(name, set_id) for name, _t, set_id in twins}
            holds = self._read_holds
        for ep in endpoints:
            self._attach_labels(ep, label_map, txt_names, holds)
        return endpoints

    def twin(self, name: str) -> str | None:
        """The other name whose records share ownership TXT names with `name`'s (lower case, no trailing dot)
        through --txt-wildcard-replacement: `star.b` for `*.b` and back; None without one."""
        repl = self.wildcard_replacement
        if not repl:
            return None
        first, dot, rest = name.partition(".")
        if first == "*":
            return repl + dot + rest
        return "*" + dot + rest if first == repl else None

    def _read_holds(self, name: str, rtype: str | None, set_id: str) -> bool:
        """Whether the last full read holds a record at the twin-shaped `name` (of `rtype`; None: of any type)."""
        return (name, set_id) in self._read_twin_names if rtype is None else (name, rtype, set_id) in self._read_twins

    def _attach_labels(self, ep: Endpoint, label_map: Mapping[_LabelKey, dict[str, str]],
                       txt_names: Collection[str], holds: Callable[[str, str | None, str], bool] | None = None
                       ) -> None:
        """Attach the ownership labels `label_map` holds for `ep` (new format, legacy `cname-` for an A alias,
        old format, not used for AAAA; `old_owner_id` is rewritten to ours) and mark it for a forced update
        (`txt/force-update=true`) when its new-format TXT (`txt_names`: the ownership TXT names read, lower
        case) is missing or names the old owner, so the plan's update writes the TXT. Departure from Go:
        external-dns does not force the takeover case, so there the TXT keeps the old owner until something
        else changes. `holds(name, type or None for any, set identifier)`: whether the zone holds such a record
        (given with a wildcard replacement): a TXT that `*.b` and a real `star.b` of the type would share belongs
        to neither (Go gives it to both, and deleted the hand-made one)."""
        name, rtype, set_id, labels = ep.dns_name, ep.record_type, ep.set_identifier, ep.labels
        lookup = name.lower()
        if lookup[:1] == "*" and self.wildcard_replacement:
            first, dot, rest = lookup.partition(".")
            if first == "*":
                lookup = self.wildcard_replacement + dot + rest
        found = label_map.get((lookup, rtype, set_id))
        any_type = False  # found by an old-format TXT, which names no type
        if rtype == RECORD_TYPE_A and ep.provider_specific and _is_alias_a_record(ep):
            legacy = label_map.get((lookup, RECORD_TYPE_CNAME, set_id))
            if legacy is not None:
                if found is None:
                    found = legacy
                self._warn_legacy_alias_txt(name)
        if found is None and rtype != RECORD_TYPE_AAAA:
            found = label_map.get((lookup, "", set_id))
            any_type = True
        if found is not None and holds is not None:
            twin = self.twin(name_key(name))
            if twin is not None and holds(twin, None if any_type else rtype, set_id):
                self._warn_shared(name, twin, rtype)
                found = None
                labels.pop(OWNER_LABEL_KEY, None)  # a provider keeping labels (in-memory) gave it ours
        if found is not None:
            labels.update(found)
        migrated = False
        if self.old_owner_id and labels.get(OWNER_LABEL_KEY) == self.old_owner_id:
            labels[OWNER_LABEL_KEY] = self._owner_id
            migrated = True
        if (
            txt_names
            and labels.get(OWNER_LABEL_KEY) == self._owner_id
            and rtype in self._managed
            and (migrated or self._txt_missing(name, rtype, txt_names))
        ):
            # The TXT this owner would write is missing or still names the old owner: make the plan
            # update the record, so the update writes the TXT.
            ep.set_provider_specific_property(PROVIDER_SPECIFIC_FORCE_UPDATE, "true")

    def _txt_missing(self, name: str, rtype: str, txt_names: Collection[str]) -> bool:
        """Whether the new-format TXT of `name`/`rtype` is not among `txt_names`, when it can exist at all: a name
        whose TXT name would have a label over 63 characters (`a-` + a 62-character first label, no prefix) has
        none to write (generate_txt_record gives nothing), so it is never missing, as in Go (which forces the
        update only for the TXT records it can generate)."""
        txt_name = self.mapper.to_txt_name(name, rtype).removesuffix(".")
        if any(len(label) > MAX_LABEL_LENGTH for label in txt_name.split(".")):
            return False
        return txt_name.lower() not in txt_names

    def _ownership_labels(self, record: Endpoint) -> dict[str, str] | None:
        """The labels of an ownership TXT record (with targets); None when it is an ordinary TXT."""
        return self._labels_at(record.dns_name, record.targets[0])

    def _labels_at(self, txt_name: str, text: str) -> dict[str, str] | None:
        """`_labels_of_text`, where an undecryptable value counts only at a name this registry's ownership TXTs
        take (one that names a record type, as every record's own TXT does): anywhere else an encrypted-looking
        value is an ordinary TXT (a key, a token)."""
        labels = self._labels_of_text(text)
        if labels is UNDECRYPTABLE_LABELS and not self.mapper.to_endpoint_name(txt_name)[1]:
            return None
        return labels

    def _labels_of_text(self, text: str) -> dict[str, str] | None:
        """The labels a TXT record whose first value is `text` gives (`_ownership_labels`), None for none."""
        memo = self._ownership_texts
        labels = memo.get(text, _UNKNOWN)
        if labels is not _UNKNOWN:
            return labels
        try:
            # keys and values interned: a zone's labels repeat (owner, resource names), and a long-running
            # registry keeps one map per ownership TXT
            labels = {intern(k): intern(v) for k, v in parse_labels(text, self._aes_key).items()}
        except InvalidHeritageError:
            # an encrypted value this key cannot read is another key's ownership record, not a free name
            labels = UNDECRYPTABLE_LABELS if looks_encrypted(text) else None
        if len(memo) >= _MAX_OWNERSHIP_TEXTS:
            memo.clear()
        memo[text] = labels
        return labels

    def _count_undecryptable(self, names: Iterable[str], zone: str | None = None) -> None:
        """Warn once per zone about the ownership TXTs of `names` (records they label) that do not decrypt:
        their records are left alone (another owner's), which a changed key makes of every record."""
        counts: dict[str, int] = {}
        zones = (list(self.provider.zones()) or [""]) if zone is None else []
        for name in names:
            z = zone if zone is not None else zone_for_name(name, zones) or ""
            if z not in self._warned_undecryptable:
                counts[z] = counts.get(z, 0) + 1
        for z, n in counts.items():
            self._warned_undecryptable.add(z)
            why = ("do not decrypt with --txt-encrypt-aes-key (was it changed?)" if self._aes_key else
                   "look encrypted but no --txt-encrypt-aes-key is set")
            log.warning(f"zone {z}: {n} ownership TXT records {why}: their records are treated as another owner's "
                        "(never updated, deleted or taken over) until the key that wrote them is given",
                        zone=z, count=n)

    def _is_ownership_txt(self, record: Endpoint) -> bool:
        """Whether the TXT `record` (with targets) holds an ownership value, as `_ownership_labels` decides."""
        return self._ownership_labels(record) is not None

    def _warn_shared(self, name: str, twin: str, rtype: str) -> None:
        txt_name = self.mapper.to_txt_name(name_key(name), rtype)
        if txt_name in self._warned_shared:
            return
        self._warned_shared.add(txt_name)
        log.warning(f"Ownership TXT {txt_name} would belong to both {name_key(name)} and {twin} {rtype} "
                    f"(--txt-wildcard-replacement={self.wildcard_replacement} is a real label there): neither "
                    "record is treated as owned by anyone, so neither is updated or deleted; rename one of them "
                    "or choose another replacement", dns_name=name, twin=twin, record_type=rtype)

    def _twin_exists(self, name: str, rtype: str, set_id: str) -> bool:
        """Whether the zone (as last read) holds a record (`name`, `rtype`, `set_id`)."""
        zone = zone_for_name(name, list(self.provider.zones()) or [""])
        if zone is not None and zone in self._owners.zones:
            return self._owners.holds(name, rtype, set_id)
        return self._read_holds(name, rtype, set_id)

    def _refuse_shared(self, creates: list[Endpoint]) -> list[Endpoint]:
        """`creates` without those whose ownership TXT another record would share (--txt-wildcard-replacement:
        `*.b` where a `star.b` of the type exists or is created too, and back), each refused with a warning."""
        if not self.wildcard_replacement:
            return creates
        keys = {(name_key(ep.dns_name), ep.record_type, ep.set_identifier) for ep in creates}
        out: list[Endpoint] = []
        for ep in creates:
            twin = self.twin(name_key(ep.dns_name))
            if twin is not None and ((twin, ep.record_type, ep.set_identifier) in keys
                                     or self._twin_exists(twin, ep.record_type, ep.set_identifier)):
                log.warning(f"Not creating {ep.dns_name} {ep.record_type}: its ownership TXT "
                            f"{self.mapper.to_txt_name(ep.dns_name, ep.record_type)} would also name {twin} "
                            f"{ep.record_type} (--txt-wildcard-replacement={self.wildcard_replacement} is a real "
                            "label there), so neither record could be told ours; rename one or choose another "
                            "replacement", dns_name=ep.dns_name, twin=twin, record_type=ep.record_type)
                continue
            out.append(ep)
        return out

    def _warn_legacy_alias_txt(self, dns_name: str) -> None:
        legacy = self.mapper.to_txt_name(dns_name, RECORD_TYPE_CNAME)
        if legacy in self._warned_legacy:
            return
        self._warned_legacy.add(legacy)
        current = self.mapper.to_txt_name(dns_name, RECORD_TYPE_A)
        log.warning(
            f'Obsolete legacy TXT record "{legacy}" for A ALIAS "{dns_name}" can be removed; now using '
            f'"{current}" (see scripts/aws-cleanup-legacy-txt-records.py).',
            dns_name=dns_name,
        )

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """Write `changes` with their ownership TXT records. Creates get this owner's label and a TXT (unless
        one of that name was read); updates and deletes not owned by this owner are dropped and carry their
        TXT, sent with exactly the value read (so encrypted or differently formatted values still match). A
        forced update whose TXT does not exist sends it as a create; a delete skips a TXT the provider was not
        seen to hold, so strict providers do not reject the batch."""
        with self._lock:
            filtered = Changes(
                create=self._refuse_shared(list(changes.create)),
                update_new=filter_endpoints_by_owner_id(self._owner_id, changes.update_new),
                update_old=filter_endpoints_by_owner_id(self._owner_id, changes.update_old),
                delete=filter_endpoints_by_owner_id(self._owner_id, changes.delete),
            )
            txt_create: list[Endpoint] = []
            txt_delete: list[Endpoint] = []
            txt_old: list[Endpoint] = []
            txt_new: list[Endpoint] = []
            creates, filtered.create = filtered.create, []
            for ep in creates:
                ep.labels[OWNER_LABEL_KEY] = self._owner_id
                txts = self.generate_txt_record(ep)
                claimed = [txt for txt in txts if self._claimed(_txt_key(txt))]
                if claimed:
                    log.warning(f"Not creating {ep.dns_name} {ep.record_type}: its ownership TXT {claimed[0].dns_name} "
                                f"exists and names another owner ({self._claimed(_txt_key(claimed[0]))}); the record "
                                "would be theirs", dns_name=ep.dns_name, record_type=ep.record_type)
                    continue
                filtered.create.append(ep)
                for txt in txts:
                    key = _txt_key(txt)
                    if key in self._stored_txts:
                        log.debug(f"Skipping TXT {txt.dns_name}: a TXT record of that name already exists")
                        continue
                    self._stored_txts[key] = stored_txt(txt.targets)
                    txt_create.append(txt)
                self._cache_add(ep)
            for ep in filtered.delete:
                for txt, exists in self._txt_for_removal(ep):
                    if exists:
                        txt_delete.append(txt)
                    else:
                        log.debug(f"Not deleting TXT {txt.dns_name}: the provider does not hold it")
                self._cache_remove(ep)
            paired = len(filtered.update_old) == len(filtered.update_new)
            olds: list[list[tuple[Endpoint, bool]]] = []
            for ep in filtered.update_old:
                olds.append(self._txt_for_removal(ep))
                self._cache_remove(ep)
            for i, ep in enumerate(filtered.update_new):
                news = self.generate_txt_record(ep)
                old_side = olds[i] if paired else []
                for j, txt in enumerate(news):
                    self._stored_txts[_txt_key(txt)] = stored_txt(txt.targets)
                    old = old_side[j] if j < len(old_side) else None
                    if old is not None and not old[1]:
                        # The TXT is missing (e.g. a forced update of an old-format owner): create it.
                        txt_create.append(txt)
                    else:
                        txt_new.append(txt)
                        if old is not None:
                            txt_old.append(old[0])
                for old in old_side[len(news):]:
                    txt_old.append(old[0])
                self._cache_add(ep)
            if not paired:
                txt_old.extend(old[0] for old_list in olds for old in old_list)
            filtered.create.extend(txt_create)
            filtered.delete.extend(txt_delete)
            filtered.update_old.extend(txt_old)
            filtered.update_new.extend(txt_new)
        # The write itself runs outside the lock, so zones reconciled on different workers write in parallel.
        try:
            self.provider.apply_changes(filtered)
        except BaseException:
            with self._lock:
                # What the provider holds is unknown now: read everything again next time.
                self._cache = None
                self._owners.clear()
                self._stored_txts = {}
                self._owners.stored_txts = self._stored_txts
                self._have_read = False
            raise

    # -- cache ----------------------------------------------------------------------------------------------
    def _cache_add(self, ep: Endpoint) -> None:
        if self.cache_interval > 0 and self._cache is not None:
            self._cache.append(ep.copy())

    def _cache_remove(self, ep: Endpoint) -> None:
        if self.cache_interval <= 0 or self._cache is None:
            return
        for i, cached in enumerate(self._cache):
            if (
                cached.dns_name == ep.dns_name
                and cached.record_type == ep.record_type
                and cached.set_identifier == ep.set_identifier
                and Targets(cached.targets).same(ep.targets)
            ):
                del self._cache[i]
                return

    def invalidate_cache(self) -> None:
        """Drop the records cache: the next `records()` reads the provider."""
        with self._lock:
            self._cache = None
