"""The DynamoDB registry: record ownership kept in a DynamoDB table instead of TXT records (external-dns
`registry/dynamodb`), with the same item layout so a table is shared with Go external-dns, migration from
the TXT registry, and conditional writes so another owner's item is never taken over."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import botocore.exceptions
import structlog

from external_dns.endpoint import crypto
from external_dns.endpoint.endpoint import (
    DEFAULT_MANAGED_RECORD_TYPES,
    OWNER_LABEL_KEY,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_TXT,
    Endpoint,
)
from external_dns.endpoint.labels import InvalidHeritageError, parse_labels
from external_dns.endpoint.utils import filter_endpoints_by_owner_id
from external_dns.plan.changes import Changes
from external_dns.plan.plan import is_managed_record
from external_dns.providers.aws import errors
from external_dns.providers.provider import Provider, ProviderError
from external_dns.registry.mapper import AffixNameMapper
from external_dns.registry.registry import Registry

log = structlog.get_logger(__name__)

NEEDS_MIGRATION = "dynamodb/needs-migration"
BATCH_SIZE = 25
_MAX_PAGES = 1_000_000
_CONDITION_FAILED = "ConditionalCheckFailedException"


class DynamoDBTableError(ValueError):
    """The table is missing or has the wrong key schema."""


def item_key(ep: Endpoint) -> str:
    """Partition key `k` of a record's item: `<dnsName>#<recordType>#<setId>`; `o` holds the owner ID and
    `l` the record's labels without `owner`."""
    return f"{ep.dns_name}#{ep.record_type}#{ep.set_identifier}"


def split_key(key: str) -> tuple[str, str, str]:
    """(name, type, set identifier): a `#` inside the set identifier survives."""
    parts = key.split("#", 2)
    while len(parts) < 3:
        parts.append("")
    return parts[0], parts[1], parts[2]


def _stored_labels(ep: Endpoint) -> dict[str, str]:
    return {k: v for k, v in ep.labels.items() if k != OWNER_LABEL_KEY}


@dataclass
class _Op:
    """One conditional item write."""

    kind: str  # "put", "update", "delete"
    key: str
    labels: dict[str, str]
    endpoint: Endpoint | None = None


class DynamoDBRegistry(Registry):
    """Ownership in DynamoDB. `client` is a boto3 DynamoDB client."""

    def __init__(
        self,
        provider: Provider,
        owner_id: str,
        client: Any,
        table: str = "external-dns",
        managed_record_types: Iterable[str] = DEFAULT_MANAGED_RECORD_TYPES,
        exclude_record_types: Iterable[str] = (),
        txt_prefix: str = "",
        txt_suffix: str = "",
        txt_wildcard_replacement: str = "",
        txt_encrypt_aes_key: str | bytes = "",
    ) -> None:
        if not owner_id:
            raise ValueError("owner id cannot be empty")
        if not table:
            raise ValueError("table cannot be empty")
        self.provider = provider
        self._owner_id = owner_id
        self.client = client
        self.table = table
        self.managed_record_types = tuple(managed_record_types)
        self.exclude_record_types = tuple(exclude_record_types)
        self.mapper = AffixNameMapper(txt_prefix, txt_suffix, txt_wildcard_replacement)
        self.wildcard_replacement = txt_wildcard_replacement.lower()
        self._aes_key = crypto.parse_aes_key(txt_encrypt_aes_key)
        self._lock = threading.RLock()
        self._items: dict[str, dict[str, str]] | None = None  # our items: key -> labels (no owner)
        self._orphans: set[str] = set()
        self.check_table()

    def __repr__(self) -> str:
        return f"DynamoDBRegistry(table={self.table!r}, owner_id={self._owner_id!r})"

    def owner_id(self) -> str:
        return self._owner_id

    def _error(self, doing: str, exc: BaseException, detail: str = "") -> ProviderError:
        """The provider error for a failed call on the table. The table serves every zone, so an access denied
        on it stops them all alike: a refused credential (fatal: the long-running process exits 1), as in Go,
        where any registry error ends the controller loop. Throttling and 5xx stay soft."""
        return errors.wrap(f"{doing} DynamoDB table {self.table!r}{detail}", exc, every_zone=True)

    # -- table ----------------------------------------------------------------------------------------------
    def check_table(self) -> None:
        """Raise DynamoDBTableError unless the table exists with partition key `k` (S) and no sort key."""
        try:
            desc = self.client.describe_table(TableName=self.table)["Table"]
        except botocore.exceptions.ClientError as exc:
            if errors.error_code(exc) == "ResourceNotFoundException":
                raise DynamoDBTableError(
                    f"DynamoDB table {self.table!r} does not exist: create it with partition key \"k\" of "
                    "type S and no sort key") from None
            raise self._error("describing", exc) from None
        except botocore.exceptions.BotoCoreError as exc:
            raise self._error("describing", exc) from None
        attrs = {a["AttributeName"]: a["AttributeType"] for a in desc.get("AttributeDefinitions", [])}
        if attrs.get("k") != "S":
            raise DynamoDBTableError(f'table {self.table!r} must have attribute "k" of type "S"')
        keys = {k["KeyType"]: k["AttributeName"] for k in desc.get("KeySchema", [])}
        if keys.get("HASH") != "k":
            raise DynamoDBTableError(f'table {self.table!r} must have hash key "k"')
        if "RANGE" in keys:
            raise DynamoDBTableError(f"table {self.table!r} must not have a range key")

    def _load(self) -> dict[str, dict[str, str]]:
        items: dict[str, dict[str, str]] = {}
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "FilterExpression": "o = :ownerval",
            "ExpressionAttributeValues": {":ownerval": {"S": self._owner_id}},
            "ProjectionExpression": "k,l",
            "ConsistentRead": True,
        }
        try:
            for _ in range(_MAX_PAGES):
                page = self.client.scan(**kwargs)
                for item in page.get("Items", []):
                    labels = {name: value.get("S", "") for name, value in (item.get("l", {}).get("M") or {}).items()}
                    items[item["k"]["S"]] = labels
                last = page.get("LastEvaluatedKey")
                if not last:
                    break
                kwargs["ExclusiveStartKey"] = last
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
            raise self._error("reading", exc) from None
        return items

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        """Provider records with the labels of their items (our items are read once by a consistent Scan on
        `o` and kept). Migration: ownership TXT records donate their labels, our records get
        `dynamodb/needs-migration=true` (the plan updates them, writing the item), and our leftover TXT
        records come back as owned TXT endpoints so the plan deletes them."""
        with self._lock:
            if self._items is None:
                self._items = self._load()
            items = self._items
            endpoints: list[Endpoint] = []
            txt_owned: dict[tuple[str, str, str], dict[str, str]] = {}
            ownership_txts: list[tuple[Endpoint, dict[str, str]]] = []
            for record in self.provider.records():
                if record.record_type == RECORD_TYPE_TXT and record.targets:
                    try:
                        labels = parse_labels(record.targets[0], self._aes_key)
                    except InvalidHeritageError:
                        endpoints.append(record)
                        continue
                    name, rtype = self.mapper.to_endpoint_name(record.dns_name)
                    txt_owned[(name, rtype, record.set_identifier)] = labels
                    ownership_txts.append((record, labels))
                    continue
                endpoints.append(record)

            present: set[str] = set()
            for ep in endpoints:
                key = item_key(ep)
                present.add(key)
                stored = items.get(key)
                if stored is not None:
                    ep.labels.update(stored)
                    ep.labels[OWNER_LABEL_KEY] = self._owner_id
                    continue
                donated = self._txt_labels(ep, txt_owned)
                if donated is None:
                    continue
                ep.labels.update(donated)
                if ep.labels.get(OWNER_LABEL_KEY) == self._owner_id:
                    ep.set_provider_specific_property(NEEDS_MIGRATION, "true")
            orphans = set(items) - present
            if orphans:  # only names this provider manages: items of names outside its zones are kept
                domains = self.provider.get_domain_filter()
                orphans = {k for k in orphans if domains.match(split_key(k)[0])}
            self._orphans = orphans

            txt_managed = is_managed_record(RECORD_TYPE_TXT, self.managed_record_types, self.exclude_record_types)
            for txt, labels in ownership_txts:
                if labels.get(OWNER_LABEL_KEY) != self._owner_id:
                    continue
                if txt_managed:
                    txt.labels = {OWNER_LABEL_KEY: self._owner_id}
                    endpoints.append(txt)
                else:
                    log.info(f"Ownership TXT record {txt.dns_name} is left in place: add TXT to "
                             "--managed-record-types to have it removed after the migration to DynamoDB",
                             dns_name=txt.dns_name)
            return endpoints

    def _txt_labels(self, ep: Endpoint, txt_owned: dict[tuple[str, str, str], dict[str, str]]
                    ) -> dict[str, str] | None:
        first, dot, rest = ep.dns_name.lower().partition(".")
        if self.wildcard_replacement and first == "*":
            first = self.wildcard_replacement
        name = first + dot + rest
        found = txt_owned.get((name, ep.record_type, ep.set_identifier))
        if found is None and ep.record_type != RECORD_TYPE_AAAA:
            found = txt_owned.get((name, "", ep.set_identifier))
        return dict(found) if found is not None else None

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """Items of creates and updates are written before the provider call, deletes (and our items whose
        record left the provider's zones) after it. Any error drops the in-memory items: re-read next time."""
        with self._lock:
            try:
                self._apply(changes)
            except Exception:
                self._items = None
                raise

    def _apply(self, changes: Changes) -> None:
        if self._items is None:
            self._items = self._load()
        items = self._items
        filtered = Changes(
            create=[ep.copy() for ep in changes.create],
            update_old=filter_endpoints_by_owner_id(self._owner_id, changes.update_old),
            update_new=filter_endpoints_by_owner_id(self._owner_id, changes.update_new),
            delete=filter_endpoints_by_owner_id(self._owner_id, changes.delete),
        )
        before: list[_Op] = []
        for ep in filtered.create:
            ep.labels[OWNER_LABEL_KEY] = self._owner_id
            before.append(_Op("put", item_key(ep), _stored_labels(ep), ep))
        for old, new in zip(filtered.update_old, filtered.update_new, strict=False):
            migrating = old.get_provider_specific_property(NEEDS_MIGRATION) is not None
            key_new, labels = item_key(new), _stored_labels(new)
            if migrating or key_new not in items:
                before.append(_Op("put", key_new, labels, new))
            elif items.get(key_new) != labels:
                before.append(_Op("update", key_new, labels, new))

        rejected = self._write(before)
        for op in before:
            if op.key not in rejected:
                items[op.key] = op.labels
        if rejected:
            filtered.create = [ep for ep in filtered.create if item_key(ep) not in rejected]
            keep = [i for i, new in enumerate(filtered.update_new) if item_key(new) not in rejected]
            filtered.update_new = [filtered.update_new[i] for i in keep]
            filtered.update_old = [filtered.update_old[i] for i in keep]
        for ep in [*filtered.update_old, *filtered.update_new, *filtered.delete]:
            ep.delete_provider_specific_property(NEEDS_MIGRATION)

        if filtered.has_changes():
            self.provider.apply_changes(filtered)

        after = [_Op("delete", item_key(ep), {}, ep) for ep in filtered.delete if item_key(ep) in items]
        after.extend(_Op("delete", key, {}) for key in sorted(self._orphans) if key in items)
        after_keys = {op.key for op in after}
        self._write(after)
        for key in after_keys:
            items.pop(key, None)
        self._orphans -= after_keys

    def _write(self, ops: list[_Op]) -> set[str]:
        """Run the conditional writes in transactions of up to 25 items (a cancelled one is redone item by
        item, so one conflict does not block the rest); returns the keys whose condition failed (another
        owner's item for a put or update; an already missing or foreign item for a delete). Conditions, not
        PartiQL, so it behaves the same on AWS and on moto."""
        rejected: set[str] = set()
        for i in range(0, len(ops), BATCH_SIZE):
            chunk = ops[i:i + BATCH_SIZE]
            if len({op.key for op in chunk}) == len(chunk) and len(chunk) > 1:
                try:
                    self.client.transact_write_items(TransactItems=[self._transact_item(op) for op in chunk])
                    continue
                except botocore.exceptions.ClientError as exc:
                    if errors.error_code(exc) != "TransactionCanceledException":
                        raise self._error("writing", exc) from None
                except botocore.exceptions.BotoCoreError as exc:
                    raise self._error("writing", exc) from None
            for op in chunk:
                if not self._write_one(op):
                    rejected.add(op.key)
        return rejected

    def _owner_values(self) -> dict[str, Any]:
        return {":o": {"S": self._owner_id}}

    def _transact_item(self, op: _Op) -> dict[str, Any]:
        if op.kind == "put":
            return {"Put": self._put_args(op)}
        if op.kind == "update":
            return {"Update": self._update_args(op)}
        return {"Delete": self._delete_args(op)}

    def _put_args(self, op: _Op) -> dict[str, Any]:
        return {
            "TableName": self.table,
            "Item": {"k": {"S": op.key}, "o": {"S": self._owner_id},
                     "l": {"M": {name: {"S": value} for name, value in op.labels.items()}}},
            "ConditionExpression": "attribute_not_exists(k) OR o = :o",
            "ExpressionAttributeValues": self._owner_values(),
        }

    def _update_args(self, op: _Op) -> dict[str, Any]:
        return {
            "TableName": self.table,
            "Key": {"k": {"S": op.key}},
            "UpdateExpression": "SET l = :l",
            "ConditionExpression": "o = :o",
            "ExpressionAttributeValues": {**self._owner_values(),
                                          ":l": {"M": {n: {"S": v} for n, v in op.labels.items()}}},
        }

    def _delete_args(self, op: _Op) -> dict[str, Any]:
        return {
            "TableName": self.table,
            "Key": {"k": {"S": op.key}},
            "ConditionExpression": "o = :o",
            "ExpressionAttributeValues": self._owner_values(),
        }

    def _write_one(self, op: _Op) -> bool:
        try:
            if op.kind == "put":
                self.client.put_item(**self._put_args(op))
            elif op.kind == "update":
                self.client.update_item(**self._update_args(op))
            else:
                self.client.delete_item(**self._delete_args(op))
            return True
        except botocore.exceptions.ClientError as exc:
            if errors.error_code(exc) != _CONDITION_FAILED:
                raise self._error("writing", exc, f" (key {op.key!r})") from None
        except botocore.exceptions.BotoCoreError as exc:
            raise self._error("writing", exc, f" (key {op.key!r})") from None
        if op.kind == "delete":
            log.debug("DynamoDB item already gone or owned by another owner", key=op.key)
        else:
            holder = self._holder(op.key)
            log.warning(f"Skipping endpoint {op.key} because owner id does not match, found: \"{holder}\", "
                        f"required: \"{self._owner_id}\"", key=op.key, table=self.table)
        return False

    def _holder(self, key: str) -> str:
        try:
            item = self.client.get_item(TableName=self.table, Key={"k": {"S": key}}, ConsistentRead=True)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError):
            return "?"
        return str(item.get("Item", {}).get("o", {}).get("S", ""))
