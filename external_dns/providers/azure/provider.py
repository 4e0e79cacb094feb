"""The Azure DNS provider (`--provider=azure`, external-dns `provider/azure`) on azure-mgmt-dns and azure-identity.

- Zones: the resource group's DNS zones through the domain filter and `--zone-id-filter`, or `--zone-name-filter`
  (external-dns's rule); reused for `zones_cache_seconds`.
- Reading: each zone's record sets (`list_all_by_dns_zone`, `$top` per page) kept per name (apizones.py) for
  `--provider-cache-time`; a name is read alone with `$recordsetnamesuffix`. Types as external-dns: A, AAAA,
  CNAME, MX, NS, TXT; `azure/metadata-*` properties from the record set's metadata.
- Writing: as external-dns, a create or update-new is one CreateOrUpdate of the whole record set and a delete
  one Delete; departures: every request carries the API's precondition, `If-None-Match: *` for a create and
  `If-Match: <etag as read>` for an update or delete, so a record set someone created or changed since our
  read is refused (412) instead of replaced; a TXT endpoint's targets are all written (Go writes the first).
  Each ownership group (a record and its TXT) goes record first; a refused request stops its group only (so
  no ownership TXT is written for a record that was not), the refused names are read again, the rest goes on.
- Errors: 401/403 are fatal (APIAuthError); 429 (after azure-core's retries, Retry-After honoured), 5xx and
  connection failures are SoftErrors; refusals are reported together at the end as a ProviderError.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, RECORD_TYPE_TXT, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.zones import name_key
from external_dns.errors import ConfigError
from external_dns.plan.changes import Changes
from external_dns.providers.apizones import (
    APIAuthError,
    APIZone,
    KeptZonesProvider,
    RequestRefused,
    WriteGroup,
    refused_error,
)
from external_dns.providers.azure.config import DEFAULT_TTL, NO_SUBSCRIPTION, AzureConfig
from external_dns.providers.errors import ProviderError, SoftError

log = structlog.get_logger(__name__)

TAGS = "azure/tags"
METADATA_PREFIX = "azure/metadata-"
METADATA_KEYS = "azure/metadata-keys"
TYPES = ("A", "AAAA", "CNAME", "MX", "NS", "TXT")  # external-dns's azure provider reads and writes these


@dataclass
class _Op:
    action: str  # "create" | "update" | "delete"
    ep: Endpoint
    old: Endpoint | None = None  # an update's current side


def make_credential(config: AzureConfig) -> Any:
    """The azure-identity credential external-dns's getCredentials would pick (imported here: only
    `--provider=azure` loads azure-identity)."""
    from azure import identity

    f = config.file
    authority = config.endpoints()[0]
    # A private cloud's authority is not one Microsoft's instance discovery knows.
    no_discovery = f.cloud.upper() == "AZURESTACKCLOUD"
    if f.client_id and f.client_secret and f.client_id.lower() != "msi" and f.client_secret.lower() != "msi":
        log.info("Using client_id+client_secret to retrieve access token for Azure API.")
        return identity.ClientSecretCredential(f.tenant_id, f.client_id, f.client_secret, authority=authority,
                                               disable_instance_discovery=no_discovery)
    if f.use_workload_identity:
        log.info("Using workload identity extension to retrieve access token for Azure API.")
        return identity.WorkloadIdentityCredential(tenant_id=f.tenant_id or None, client_id=f.client_id or None,
                                                   authority=authority, disable_instance_discovery=no_discovery)
    if f.use_managed_identity:
        log.info("Using managed identity extension to retrieve access token for Azure API.")
        return identity.ManagedIdentityCredential(client_id=f.user_assigned_identity_id or None)
    raise ConfigError("failed to get credentials: no credentials provided for Azure API")


def make_client(config: AzureConfig, client_class: Any = None) -> Any:
    """An ARM client of `client_class` (azure-mgmt-dns's DnsManagementClient by default) for the configured
    cloud, subscription, retries and deadlines."""
    if client_class is None:
        from azure.mgmt.dns import DnsManagementClient as client_class
    if not config.subscription_id:
        raise ConfigError(NO_SUBSCRIPTION)
    _, endpoint, audience = config.endpoints()
    return client_class(make_credential(config), config.subscription_id, base_url=endpoint,
                        credential_scopes=[audience.rstrip("/") + "/.default"], retry_total=config.max_retries,
                        connection_timeout=config.request_timeout, read_timeout=config.request_timeout)


def _error(what: str, exc: BaseException) -> ProviderError:
    from azure.core import exceptions as az

    if isinstance(exc, az.ClientAuthenticationError):
        return APIAuthError(f"Azure DNS {what}: the credentials were refused: {_text(exc)}")
    if isinstance(exc, az.HttpResponseError):
        status = exc.status_code or 0
        if status in (401, 403):
            return APIAuthError(f"Azure DNS {what}: HTTP {status}: {_text(exc)}")
        if status == 429 or status >= 500:
            return SoftError(f"Azure DNS {what}: HTTP {status}: {_text(exc)}")
        return ProviderError(f"Azure DNS {what}: HTTP {status}: {_text(exc)}")
    if isinstance(exc, az.AzureError | OSError):
        return SoftError(f"Azure DNS {what}: {type(exc).__name__}: {_text(exc)}")
    return ProviderError(f"Azure DNS {what}: {type(exc).__name__}: {exc}")


def _text(exc: Any) -> str:
    error = getattr(exc, "error", None)
    if error is not None and getattr(error, "code", None):
        return f"{error.code}: {error.message}"
    return str(getattr(exc, "message", "") or exc).splitlines()[0]


def relative_name(zone: str, name: str) -> str:
    """The record set name inside `zone` ("@" for the apex)."""
    name = name_key(name)
    return "@" if name == zone else name[: -len(zone) - 1]


class AzureProvider(KeptZonesProvider[APIZone, Any]):
    """Azure DNS behind the Provider interface; `client` is a `DnsManagementClient` (built from `config`). The
    SDK calls and models sit in the small methods below, which the Private DNS provider (private.py) replaces."""

    types: tuple[str, ...] = TYPES

    def __init__(self, config: AzureConfig, client: Any = None) -> None:
        super().__init__(config.cache_seconds, config.zones_cache_seconds)
        self.config = config
        self.client = client if client is not None else self._make_client()

    # -- the SDK (public DNS zones) -------------------------------------------------------------------------
    def _make_client(self) -> Any:
        return make_client(self.config)

    def _zone_pages(self) -> Any:
        return self.client.zones.list_by_resource_group(self.config.resource_group)

    def _record_pages(self, zone: APIZone, suffix: str | None = None) -> Any:
        return self.client.record_sets.list_all_by_dns_zone(self.config.resource_group, zone.id,
                                                            top=self.config.page_size, record_set_name_suffix=suffix)

    def _put_record_set(self, zone: APIZone, relative: str, rtype: str, params: Any, **precondition: str) -> Any:
        return self.client.record_sets.create_or_update(self.config.resource_group, zone.id, relative, rtype, params,
                                                        **precondition)

    def _delete_record_set(self, zone: APIZone, relative: str, rtype: str, etag: str) -> Any:
        return self.client.record_sets.delete(self.config.resource_group, zone.id, relative, rtype, if_match=etag)

    @staticmethod
    def _props(rs: Any) -> Any:
        """The object holding a record set's ttl, metadata and records (the record set itself here)."""
        return rs

    def _new_record_set(self, **kw: Any) -> Any:
        from azure.mgmt.dns import models

        return models.RecordSet(**kw)

    def _models(self) -> Any:
        from azure.mgmt.dns import models

        return models

    def __repr__(self) -> str:
        return f"AzureProvider(resource_group={self.config.resource_group!r})"

    def record_default_ttl(self, zone: str) -> int:
        return DEFAULT_TTL

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise _error(what, exc) from None

    # -- zones ----------------------------------------------------------------------------------------------
    def _list_zones(self) -> Iterable[APIZone]:
        cfg = self.config
        pages = self._call("listing zones", self._zone_pages)
        out = []
        for zone in self._call(f"listing zones of resource group {cfg.resource_group}", list, pages):
            name = str(zone.name or "")
            zone_id = str(zone.id or "")
            if (cfg.domain_filter.match(name) and (not cfg.zone_id_filter or
                                                  any(zone_id.endswith(f) for f in cfg.zone_id_filter))) or \
                    (cfg.zone_name_filter.is_configured() and cfg.zone_name_filter.match(name)):
                out.append(APIZone(name=name_key(name), id=name))
        return out

    # -- reading --------------------------------------------------------------------------------------------
    def _list_records(self, zone: APIZone) -> Iterable[Any]:
        records: list[Any] = self._call(f"failed to fetch dns records of zone {zone.name}", list,
                                        self._record_pages(zone))
        return records

    def _read_name(self, zone: APIZone, name: str) -> list[Any]:
        relative = relative_name(zone.name, name)
        found = self._call(f"reading {name} in zone {zone.name}", list, self._record_pages(zone, relative))
        return [r for r in found if str(r.name or "").lower() == relative]

    def _record_name(self, record: Any) -> str:
        fqdn = str(self._props(record).fqdn or "")
        return fqdn or str(record.name or "")

    def _to_endpoints(self, zone: APIZone, records: list[Any]) -> list[Endpoint]:
        out = []
        for rs in records:
            rtype = str(rs.type or "").rsplit("/", 1)[-1]
            if rtype not in self.types:
                continue
            props = self._props(rs)
            targets = _targets(rtype, props)
            if not targets:
                continue
            name = zone.name if rs.name == "@" else f"{rs.name}.{zone.name}"
            ep = Endpoint(name.lower(), rtype, Targets(targets), int(props.ttl or 0))
            metadata = props.metadata or {}
            for key in sorted(metadata):
                ep.set_provider_specific_property(METADATA_PREFIX + key, str(metadata[key]))
            if metadata:
                ep.set_provider_specific_property(METADATA_KEYS, ",".join(sorted(metadata)))
            out.append(ep)
        return out

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """`azure/tags` ("k=v,k2=v2") becomes the record set's metadata properties, as external-dns; names lower
        case without the trailing dot."""
        out = []
        for original in endpoints:
            ep = original.copy()
            ep.dns_name = name_key(ep.dns_name)
            tags = ep.get_provider_specific_property(TAGS)
            if tags is not None:
                keys = set()
                for item in tags.split(","):
                    key, sep, value = item.partition("=")
                    if sep and key.strip() and value.strip():
                        ep.set_provider_specific_property(METADATA_PREFIX + key.strip(), value.strip())
                        keys.add(key.strip())
                if keys:
                    ep.set_provider_specific_property(METADATA_KEYS, ",".join(sorted(keys)))
                ep.delete_provider_specific_property(TAGS)
            out.append(ep)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        per_zone: dict[APIZone, dict[str, WriteGroup[_Op]]] = {}
        ignored: set[str] = set()

        def add(action: str, ep: Endpoint, old: Endpoint | None = None) -> None:
            zone = self.zone_of(ep.dns_name)
            if zone is None:
                if ep.dns_name not in ignored:
                    ignored.add(ep.dns_name)
                    log.info(f"Ignoring changes to '{ep.dns_name}' because a suitable Azure DNS zone was not found.")
                return
            key = name_key(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)
            group = per_zone.setdefault(zone, {}).setdefault(key, WriteGroup(key))
            group.names.add(name_key(ep.dns_name))
            group.ops.append(_Op(action, ep, old))

        for ep in changes.delete:
            add("delete", ep)
        for ep in changes.create:
            add("create", ep)
        for old, new in zip(changes.update_old, changes.update_new, strict=False):
            if not _same_record_set(old, new):  # an ownership TXT "updated" to the same value: nothing to send
                add("update", new, old)
        refused: list[str] = []
        for zone in sorted(per_zone, key=lambda z: z.name):
            for _, group in sorted(per_zone[zone].items()):
                # The record before its ownership TXT: a record refused by the API leaves no TXT claiming it.
                group.ops.sort(key=lambda op: op.ep.record_type == RECORD_TYPE_TXT)
                try:
                    self._apply_group(zone, group)
                except RequestRefused as exc:
                    self.mark_dirty(zone, group.names)
                    refused.append(f"zone {zone.name}: {group.key}: {exc}")
                except SoftError:
                    self.mark_dirty(zone, group.names)
                    raise
        if refused:
            raise refused_error("Azure DNS", refused)

    def _apply_group(self, zone: APIZone, group: WriteGroup[_Op]) -> None:
        """Check every write of the group against the record sets as kept (read by name when not), then send
        them: a refused check sends nothing of the group (no record without its ownership TXT, no TXT claiming
        a record that was not written)."""
        checked: list[tuple[_Op, Any, Any]] = []
        for op in group.ops:
            current = next((r for r in self.current_at(zone, op.ep.dns_name)
                            if str(r.type or "").rsplit("/", 1)[-1] == op.ep.record_type), None)
            if current is not None:
                _check_ours(op, _targets(op.ep.record_type, self._props(current)))
            checked.append((op, current, None if op.action == "delete" else self._record_set(op.ep)))
        for op, current, params in checked:
            ep = op.ep
            relative = relative_name(zone.name, ep.dns_name)
            verb = ("Would delete" if self.config.dry_run else "Deleting") if op.action == "delete" else \
                ("Would update" if self.config.dry_run else "Updating")
            log.info(f"{verb} {ep.record_type} record named '{relative}' for Azure DNS zone '{zone.name}'.",
                     targets=list(ep.targets))
            if self.config.dry_run or (current is None and op.action == "delete") or \
                    (current is not None and op.action == "create"):
                continue  # nothing to send: gone already, or in place already (_check_ours: exactly our values)
            if op.action == "delete":
                self._write(zone, ep, self._delete_record_set, zone, relative, ep.record_type, current.etag)
                self._fold(zone, ep.dns_name, ep.record_type, None)
                continue
            precondition = {"if_match": current.etag} if current is not None else {"if_none_match": "*"}
            written = self._write(zone, ep, self._put_record_set, zone, relative, ep.record_type, params, **precondition)
            self._fold(zone, ep.dns_name, ep.record_type, written)

    def _write(self, zone: APIZone, ep: Endpoint, call: Any, *args: Any, **kwargs: Any) -> Any:
        from azure.core import exceptions as az

        try:
            return call(*args, **kwargs)
        except (az.ResourceModifiedError, az.ResourceExistsError, az.ResourceNotFoundError) as exc:
            raise RequestRefused(f"{ep.dns_name} {ep.record_type}: changed since it was read ({_text(exc)})") from None
        except az.HttpResponseError as exc:
            if exc.status_code in (400, 404, 409, 412):
                raise RequestRefused(f"{ep.dns_name} {ep.record_type}: {_text(exc)}") from None
            raise _error(f"writing {ep.dns_name} {ep.record_type} in zone {zone.name}", exc) from None
        except Exception as exc:
            raise _error(f"writing {ep.dns_name} {ep.record_type} in zone {zone.name}", exc) from None

    def _fold(self, zone: APIZone, name: str, rtype: str, written: Any) -> None:
        kept = self.kept_at(zone, name)
        if kept is None:
            return
        rest = [r for r in kept if str(r.type or "").rsplit("/", 1)[-1] != rtype]
        self.store(zone, name, rest + ([written] if written is not None else []))

    def _record_set(self, ep: Endpoint) -> Any:
        models = self._models()
        ttl = ep.record_ttl if ep.record_ttl > 0 else DEFAULT_TTL
        metadata = {}
        for key in (ep.get_provider_specific_property(METADATA_KEYS) or "").split(","):
            value = ep.get_provider_specific_property(METADATA_PREFIX + key) if key else None
            if value:
                metadata[key] = value
        kw: dict[str, Any] = {"ttl": ttl, "metadata": metadata or None}
        t = list(ep.targets)
        if ep.record_type == "A":
            kw["a_records"] = [models.ARecord(ipv4_address=v) for v in t]
        elif ep.record_type == "AAAA":
            kw["aaaa_records"] = [models.AaaaRecord(ipv6_address=v) for v in t]
        elif ep.record_type == "CNAME":
            kw["cname_record"] = models.CnameRecord(cname=t[0])
        elif ep.record_type == "MX":
            kw["mx_records"] = [_mx(models, ep, v) for v in t]
        elif ep.record_type == "NS" and "NS" in self.types:
            kw["ns_records"] = [models.NsRecord(nsdname=v) for v in t]
        elif ep.record_type == "TXT":
            kw["txt_records"] = [models.TxtRecord(value=[v]) for v in t]
        else:
            raise RequestRefused(f"{ep.dns_name}: unsupported record type '{ep.record_type}'")
        return self._new_record_set(**kw)


def _check_ours(op: _Op, current: list[str]) -> None:
    """Raise RequestRefused when the stored record set holds values the write does not expect: a create where
    another record set stands (unless it holds exactly our values), an update or delete of a set that gained
    values since it was planned. Values this owner did not write are never replaced or deleted (the etag
    precondition then covers what changes between this check and the write)."""
    expected = {t.lower() for t in op.ep.targets}
    if op.old is not None:
        expected |= {t.lower() for t in op.old.targets}
    seen = {t.lower() for t in current}
    foreign = sorted(seen - expected) if op.action != "create" else (sorted(seen) if seen != expected else [])
    if foreign:
        raise RequestRefused(f"{op.action} {op.ep.dns_name} {op.ep.record_type} refused: the record set holds values "
                             f"this owner did not write ({', '.join(foreign)}), so it is neither replaced nor deleted")


def _same_record_set(old: Endpoint, new: Endpoint) -> bool:
    def form(ep: Endpoint) -> tuple[object, ...]:
        props = sorted((p.name, p.value) for p in ep.provider_specific if p.name.startswith(METADATA_PREFIX))
        return (name_key(ep.dns_name), ep.record_type, sorted(ep.targets), ep.record_ttl or DEFAULT_TTL, props)

    return form(old) == form(new)


def _mx(models: Any, ep: Endpoint, target: str) -> Any:
    preference, _, exchange = target.partition(" ")
    if not preference.isdigit() or not exchange.strip():
        raise RequestRefused(f"{ep.dns_name}: mx target needs to be of form '10 example.com'")
    return models.MxRecord(preference=int(preference), exchange=exchange.strip())


def _targets(rtype: str, rs: Any) -> list[str]:
    """The endpoint targets of a record set (external-dns extractAzureTargets; every TXT record, its strings
    joined)."""
    if rtype == "A":
        return [str(r.ipv4_address) for r in rs.a_records or [] if r.ipv4_address]
    if rtype == "AAAA":
        return [str(r.ipv6_address) for r in rs.aaaa_records or [] if r.ipv6_address]
    if rtype == "CNAME":
        return [str(rs.cname_record.cname)] if rs.cname_record is not None and rs.cname_record.cname else []
    if rtype == "MX":
        return [f"{r.preference} {r.exchange}" for r in rs.mx_records or [] if r.exchange]
    if rtype == "NS":
        return [str(r.nsdname) for r in rs.ns_records or [] if r.nsdname]
    return ["".join(r.value) for r in rs.txt_records or [] if r.value]
