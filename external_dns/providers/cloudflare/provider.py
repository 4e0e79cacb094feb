"""The Cloudflare provider (`--provider=cloudflare`, external-dns `provider/cloudflare`) on the official SDK.

- Zones: the account's zones through the domain filter, or exactly the `--zone-id-filter` ids; reused for
  `zones_cache_seconds`.
- Reading: each zone's DNS records in `--cloudflare-dns-records-per-page` pages (the page count, no extra empty
  page), kept per name (apizones.py) for `--provider-cache-time`; a name is read alone with `name.exact`.
- Writing: one record per target. A create posts each target; an update deletes the targets that went, posts
  the new ones and puts the kept ones whose TTL, proxied flag, comment or tags changed; a delete deletes the
  records holding the endpoint's targets. A write whose name and type hold a value it does not expect (a create
  joining someone else's records, an update or delete of a set that gained a value since it was planned) is
  refused with its group: values this owner did not write are never joined, replaced or deleted. Operations go through the batch endpoint in requests
  of max(--batch-change-size, 200) (external-dns) with a record, its ownership TXT and everything at one name
  in one request: a batch is one transaction, so a refused one is split until the refused group stands alone
  and the rest is applied (external-dns replays a failed batch record by record). Record ids come from the
  kept records, so an event costs one batch request and no listing.
- Errors: 401/403 are fatal (APIAuthError); 429, 5xx and connection failures left after the SDK's own retries
  (Retry-After honoured) are SoftErrors; refusals are reported together at the end as a ProviderError.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import structlog

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.zones import name_key
from external_dns.plan.changes import Changes
from external_dns.providers.apizones import (
    MAX_REPORTED,
    APIAuthError,
    APIZone,
    KeptZonesProvider,
    RequestRefused,
    WriteGroup,
    chunk_groups,
    refused_error,
    send_bisecting,
)
from external_dns.providers.cloudflare.config import MIN_BATCH, CloudflareConfig
from external_dns.providers.cloudflare.records import (
    AUTOMATIC_TTL,
    REGIONAL,
    REGIONAL_TYPES,
    InvalidRecordError,
    body_matches,
    endpoints_at,
    parse_tags,
    read_back_target,
    record_body,
    record_target,
    should_be_proxied,
)
from external_dns.providers.errors import ProviderError, SoftError

log = structlog.get_logger(__name__)

ZONES_PER_PAGE = 50  # the API's maximum for zone listings
MIN_PER_PAGE = 5  # the API's minimum page size
_MAX_PAGES = 1_000_000
VERIFY_AGE = 5.0  # seconds: kept records older than this are read again by name before a delete or put

Record = dict[str, Any]


@dataclass(frozen=True)
class CFZone(APIZone):
    paid: bool = False


@dataclass
class _Op:
    action: str  # "delete" | "put" | "post"
    name: str
    body: dict[str, Any]  # {"id"} for a delete, {"id", ...record} for a put, the record for a post


def make_client(config: CloudflareConfig) -> Any:
    """The SDK client (imported here: only `--provider=cloudflare` loads it)."""
    import cloudflare

    creds = config.credentials
    if creds.api_token:
        return cloudflare.Cloudflare(api_token=creds.api_token, max_retries=config.max_retries,
                                     timeout=config.request_timeout)
    return cloudflare.Cloudflare(api_key=creds.api_key, api_email=creds.api_email,
                                 max_retries=config.max_retries, timeout=config.request_timeout)


def _api_error(what: str, exc: Exception) -> ProviderError:
    """An SDK exception as our error: auth -> fatal, throttling / 5xx / connection -> soft, else hard."""
    import cloudflare

    if isinstance(exc, cloudflare.APIStatusError):
        detail = _error_text(exc)
        if exc.status_code in (401, 403):
            return APIAuthError(f"Cloudflare refused the credentials ({what}): {detail}")
        if exc.status_code == 429 or exc.status_code >= 500:
            return SoftError(f"Cloudflare {what}: HTTP {exc.status_code}: {detail}")
        return ProviderError(f"Cloudflare {what}: HTTP {exc.status_code}: {detail}")
    if isinstance(exc, cloudflare.APIConnectionError):
        return SoftError(f"Cloudflare {what}: {exc}")
    return ProviderError(f"Cloudflare {what}: {type(exc).__name__}: {exc}")


def _error_text(exc: Any) -> str:
    """The API's `errors` list as 'code: message; ...' (the body is never echoed whole)."""
    body = getattr(exc, "body", None)
    errors = body.get("errors") if isinstance(body, dict) else None
    if isinstance(errors, list) and errors:
        return "; ".join(f"{e.get('code')}: {e.get('message')}" for e in errors if isinstance(e, dict))
    return f"HTTP {getattr(exc, 'status_code', '?')}"


def _norm(rtype: str, target: str) -> str:
    """A target compared across our form and the API's (case and trailing dot of host names, IPv6 forms)."""
    if rtype in ("A", "AAAA"):
        try:
            return str(ipaddress.ip_address(target))
        except ValueError:
            return target
    if rtype == "TXT":
        return target
    return target.rstrip(".").lower()


class CloudflareProvider(KeptZonesProvider[CFZone, Record]):
    """Cloudflare behind the Provider interface; `client` is the SDK's `Cloudflare` (built from `config`)."""

    def __init__(self, config: CloudflareConfig, client: Any = None) -> None:
        super().__init__(config.cache_seconds, config.zones_cache_seconds)
        self.config = config
        self.client = client if client is not None else make_client(config)
        self._stop = threading.Event()

    def __repr__(self) -> str:
        return f"CloudflareProvider(zone_id_filter={list(self.config.zone_id_filter)})"

    def close(self) -> None:
        """Interrupt a pending --batch-change-interval wait."""
        self._stop.set()

    def record_default_ttl(self, zone: str) -> int:
        return AUTOMATIC_TTL  # a record written without a TTL is "automatic" (TTL 1), as external-dns

    # -- zones ----------------------------------------------------------------------------------------------
    def _list_zones(self) -> Iterable[CFZone]:
        if self.config.zone_id_filter:
            out = []
            for zone_id in self.config.zone_id_filter:
                try:
                    zone = self.client.zones.with_raw_response.get(zone_id=zone_id).http_response.json()["result"]
                except Exception as exc:
                    raise _api_error(f"zone {zone_id} lookup failed", exc) from None
                out.append(_zone(zone))
            return out
        flt = self.config.domain_filter
        return [z for z in (_zone(raw) for raw in self._pages(
            lambda page: self.client.zones.with_raw_response.list(page=page, per_page=ZONES_PER_PAGE),
            "listing zones")) if flt.match(z.name)]

    def _pages(self, fetch: Any, what: str) -> Iterator[Record]:
        """Every item of a page-numbered listing, one request per page (stops at `result_info.total_pages`)."""
        for page in range(1, _MAX_PAGES):
            try:
                data = fetch(page).http_response.json()
            except Exception as exc:
                raise _api_error(what, exc) from None
            items = data.get("result") or []
            yield from items
            info = data.get("result_info") or {}
            total = info.get("total_pages")
            if not items or (isinstance(total, int) and page >= total) or \
                    (not isinstance(total, int) and len(items) < int(info.get("per_page") or 0)):
                return
        raise SoftError(f"Cloudflare {what}: more than {_MAX_PAGES} pages")

    # -- reading --------------------------------------------------------------------------------------------
    def _list_records(self, zone: CFZone) -> Iterable[Record]:
        per_page = max(MIN_PER_PAGE, self.config.per_page)
        yield from self._pages(lambda page: self.client.dns.records.with_raw_response.list(
            zone_id=zone.id, page=page, per_page=per_page), f"listing records of zone {zone.name}")
        if self.config.regional:  # one more request: the zone's regional hostnames (a single page)
            try:
                data = self.client.addressing.regional_hostnames.with_raw_response.list(
                    zone_id=zone.id).http_response.json()
            except Exception as exc:
                raise _api_error(f"listing regional hostnames of zone {zone.name}", exc) from None
            yield from (_regional(h) for h in data.get("result") or [])

    def _read_name(self, zone: CFZone, name: str) -> list[Record]:
        per_page = max(MIN_PER_PAGE, self.config.per_page)
        out = list(self._pages(lambda page: self.client.dns.records.with_raw_response.list(
            zone_id=zone.id, name={"exact": name_key(name)}, page=page, per_page=per_page),
            f"reading {name} in zone {zone.name}"))
        if self.config.regional:
            import cloudflare

            try:
                data = self.client.addressing.regional_hostnames.with_raw_response.get(
                    name_key(name), zone_id=zone.id).http_response.json()
                out.append(_regional(data.get("result") or {}))
            except cloudflare.NotFoundError:
                pass
            except Exception as exc:
                raise _api_error(f"reading the regional hostname {name} in zone {zone.name}", exc) from None
        return out

    def _record_name(self, record: Record) -> str:
        return str(record.get("name", ""))

    def _to_endpoints(self, zone: CFZone, records: list[Record]) -> list[Endpoint]:
        return endpoints_at(records, self.config)

    # -- adjusting ------------------------------------------------------------------------------------------
    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """As external-dns: the proxied flag always set (a proxied record has no TTL of its own), tags sorted,
        `--cloudflare-dns-records-comment` as the comment of records without one; custom-hostname and
        region-key properties dropped (those Cloudflare services are not supported here)."""
        cfg = self.config
        out: list[Endpoint] = []
        for original in endpoints:
            ep = original.copy()
            ep.dns_name = name_key(ep.dns_name)
            ep.targets = Targets(read_back_target(ep.record_type, t) for t in ep.targets)
            proxied = should_be_proxied(ep, cfg)
            if proxied:
                ep.record_ttl = 0
            ep.set_provider_specific_property(cfg.proxied_key, "true" if proxied else "false")
            ep.delete_provider_specific_property(cfg.prefix_key + "custom-hostname")
            if not cfg.regional or ep.record_type not in REGIONAL_TYPES:
                ep.delete_provider_specific_property(cfg.region_key_prop)
            elif ep.get_provider_specific_property(cfg.region_key_prop) is None:
                ep.set_provider_specific_property(cfg.region_key_prop, cfg.region_key)
            tags = ep.get_provider_specific_property(cfg.tags_key)
            if tags is not None:
                ep.set_provider_specific_property(cfg.tags_key, ",".join(parse_tags(tags)))
            if cfg.comment and ep.get_provider_specific_property(cfg.comment_key) is None:
                ep.set_provider_specific_property(cfg.comment_key, cfg.comment)
            out.append(ep)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        per_zone: dict[CFZone, dict[str, WriteGroup[_Op]]] = {}
        refused: list[str] = []

        def group(ep: Endpoint) -> tuple[CFZone, WriteGroup[_Op]] | None:
            zone = self.zone_of(ep.dns_name)
            if zone is None:
                log.debug(f"Skipping record {ep.dns_name} because no hosted zone matching record DNS Name was "
                          "detected")
                return None
            key = name_key(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)
            groups = per_zone.setdefault(zone, {})
            found = groups.setdefault(key, WriteGroup(key))
            found.names.add(name_key(ep.dns_name))
            return zone, found

        def plan(ep: Endpoint, ops: list[_Op] | None) -> None:
            where = group(ep)
            if where is None:
                return
            if ops is None:
                where[1].ops.append(_Op("invalid", ep.dns_name, {}))
                return
            where[1].ops.extend(ops)

        for ep in changes.delete:
            plan(ep, self._delete_ops(ep, refused))
        for old, new in zip(changes.update_old, changes.update_new, strict=False):
            if not _unchanged(old, new):  # an ownership TXT "updated" to itself: nothing to read or send
                plan(new, self._update_ops(old, new, refused))
        for ep in changes.create:
            plan(ep, self._create_ops(ep, refused))
        soft: list[str] = []
        if self.config.regional:
            refused += self._regional_changes(changes)
        for zone in sorted(per_zone, key=lambda z: z.name):
            groups = [g for _, g in sorted(per_zone[zone].items())]
            bad = [g for g in groups if any(op.action == "invalid" for op in g.ops)]
            todo = [g for g in groups if g not in bad and g.ops]
            try:
                refused += self._submit_zone(zone, todo)
            except SoftError as exc:
                soft.append(str(exc))
                break  # throttled or failing: the rest is planned again at the next sync
        if soft:
            raise SoftError(f"failed to submit all changes: {'; '.join(soft)}"
                            + (f" (also refused: {'; '.join(refused[:MAX_REPORTED])})" if refused else ""))
        if refused:
            raise refused_error("Cloudflare", refused)

    def _body(self, ep: Endpoint, target: str, refused: list[str]) -> dict[str, Any] | None:
        zone = self.zone_of(ep.dns_name)
        try:
            return record_body(ep, target, self.config, zone.paid if zone is not None else False)
        except InvalidRecordError as exc:
            refused.append(str(exc))
            return None

    def _create_ops(self, ep: Endpoint, refused: list[str]) -> list[_Op] | None:
        current = self._current(ep)
        wanted = {_norm(ep.record_type, t): t for t in ep.targets}
        if not self._only_ours(ep, "create", current, wanted, refused):
            return None
        ops = []
        for key, target in sorted(wanted.items()):
            if key in current:
                continue  # in place already (an earlier write that was not seen through)
            body = self._body(ep, target, refused)
            if body is None:
                return None
            ops.append(_Op("post", ep.dns_name, body))
        return ops

    def _current(self, ep: Endpoint) -> dict[str, Record]:
        """The stored records of `ep`'s name and type by normalised target (kept, or read by name)."""
        zone = self.zone_of(ep.dns_name)
        if zone is None:
            return {}
        # Cloudflare has no precondition on a write: the records a write expects are read again by name unless
        # seen within VERIFY_AGE, so a value someone put there since our read is never overwritten nor joined.
        return {_norm(ep.record_type, record_target(r)): r
                for r in self.current_at(zone, ep.dns_name, max_age=VERIFY_AGE) if r.get("type") == ep.record_type}

    @staticmethod
    def _only_ours(ep: Endpoint, action: str, current: dict[str, Record], ours: dict[str, str],
                   refused: list[str]) -> bool:
        """False (the write refused, with its group) when the name and type hold values the write does not
        expect: a create joining records someone else wrote, an update or delete of a set that gained values
        since it was planned. Those values are not ours to replace or delete."""
        foreign = sorted(record_target(current[k]) for k in current.keys() - ours.keys())
        if not foreign:
            return True
        refused.append(f"{action} {ep.dns_name} {ep.record_type} refused: it holds values this owner did not write "
                       f"({', '.join(foreign)}), so it is neither joined, replaced nor deleted")
        return False

    def _delete_ops(self, ep: Endpoint, refused: list[str]) -> list[_Op] | None:
        current = self._current(ep)
        if not self._only_ours(ep, "delete", current, {_norm(ep.record_type, t): t for t in ep.targets}, refused):
            return None
        return [_Op("delete", ep.dns_name, {"id": record["id"]}) for _, record in sorted(current.items())]

    def _update_ops(self, old: Endpoint, new: Endpoint, refused: list[str]) -> list[_Op] | None:
        current = self._current(old)
        old_t = {_norm(old.record_type, t): t for t in old.targets}
        new_t = {_norm(new.record_type, t): t for t in new.targets}
        if not self._only_ours(new, "update", current, old_t | new_t, refused):
            return None
        ops: list[_Op] = []
        for key in sorted(current.keys() - new_t.keys()):
            ops.append(_Op("delete", old.dns_name, {"id": current[key]["id"]}))
        for key, target in sorted(new_t.items()):
            body = self._body(new, target, refused)
            if body is None:
                return None
            record = current.get(key)
            if record is None:
                ops.append(_Op("post", new.dns_name, body))
            elif not body_matches(record, body):
                ops.append(_Op("put", new.dns_name, {"id": record["id"], **body}))
        return ops

    def _regional_changes(self, changes: Changes) -> list[str]:
        """Regional hostnames in step with the plan (external-dns's regional services): the region key of every
        created or updated A/AAAA/CNAME name, none for a deleted one; one request per hostname that differs.
        Returns the refusals; sent before the records, as the records' batches do not touch them."""
        key = self.config.region_key_prop
        desired: dict[str, str] = {}
        for ep in changes.delete:
            if ep.record_type in REGIONAL_TYPES:
                desired.setdefault(name_key(ep.dns_name), "")
        for ep in [*changes.create, *changes.update_new]:
            if ep.record_type in REGIONAL_TYPES:
                desired[name_key(ep.dns_name)] = ep.get_provider_specific_property(key) or self.config.region_key
        refused: list[str] = []
        for name, region in sorted(desired.items()):
            zone = self.zone_of(name)
            if zone is None:
                continue
            current = next((str(r.get("region_key", "")) for r in self.current_at(zone, name)
                            if r.get("type") == REGIONAL), None)
            if (current or "") == region:
                continue
            log.info("Changing regional hostname.", hostname=name, region_key=region, zone=zone.name,
                     action="DELETE" if not region else "CREATE" if current is None else "UPDATE")
            if self.config.dry_run:
                continue
            hostnames = self.client.addressing.regional_hostnames.with_raw_response
            try:
                if not region:
                    hostnames.delete(name, zone_id=zone.id)
                elif current is None:
                    hostnames.create(zone_id=zone.id, hostname=name, region_key=region)
                else:
                    hostnames.edit(name, zone_id=zone.id, region_key=region)
            except Exception as exc:
                error = _api_error(f"regional hostname {name}", exc)
                if isinstance(error, APIAuthError | SoftError):
                    raise error from None
                self.mark_dirty(zone, {name})
                refused.append(f"zone {zone.name}: regional hostname {name}: {error}")
                continue
            others = [r for r in self.kept_at(zone, name) or [] if r.get("type") != REGIONAL]
            if self.kept_at(zone, name) is not None:
                self.store(zone, name, others + ([_regional({"hostname": name, "region_key": region})] if region else []))
        return refused

    def _submit_zone(self, zone: CFZone, groups: list[WriteGroup[_Op]]) -> list[str]:
        """Send one zone's groups in batch requests; returns the refusals."""
        if not groups:
            return []
        zlog = log.bind(zone=zone.name, zone_id=zone.id)
        for g in groups:
            for op in g.ops:
                zlog.info("Changing record.", record=op.name, action=op.action.upper(),
                          type=op.body.get("type", ""), ttl=op.body.get("ttl", ""))
        if self.config.dry_run:
            return []
        refused: list[str] = []
        limit = max(self.config.batch_change_size, MIN_BATCH)
        for index, chunk in enumerate(chunk_groups(groups, limit)):
            if index and self.config.batch_change_interval > 0 and \
                    self._stop.wait(self.config.batch_change_interval):
                raise SoftError(f"zone {zone.name}: stopped before every batch was sent")
            try:
                _, bad, _ = send_bisecting(chunk, lambda part: self._send(zone, part))
            except SoftError:
                self.mark_dirty(zone, {n for g in chunk for n in g.names})
                raise
            for g, reason in bad:
                self.mark_dirty(zone, g.names)  # refused against our view: read those names again
                refused.append(f"zone {zone.name}: {g.key}: {reason}")
        return refused

    def _send(self, zone: CFZone, part: list[WriteGroup[_Op]]) -> None:
        import cloudflare

        ops = [op for g in part for op in g.ops]
        body = {"deletes": [op.body for op in ops if op.action == "delete"],
                "puts": [op.body for op in ops if op.action == "put"],
                "posts": [op.body for op in ops if op.action == "post"]}
        try:
            raw = self.client.dns.records.with_raw_response.batch(zone_id=zone.id, **{k: v for k, v in body.items()
                                                                                      if v})
            result = raw.http_response.json().get("result") or {}
        except cloudflare.APIStatusError as exc:
            if 400 <= exc.status_code < 500 and exc.status_code not in (401, 403, 429):
                raise RequestRefused(_error_text(exc)) from None
            raise _api_error(f"batch in zone {zone.name}", exc) from None
        except Exception as exc:
            raise _api_error(f"batch in zone {zone.name}", exc) from None
        self._fold(zone, [op.name for op in ops if op.action == "delete"], result)

    def _fold(self, zone: CFZone, deleted_names: list[str], result: dict[str, Any]) -> None:
        """Our applied batch into the kept records: deleted ids out, put and posted records in."""
        gone = {str(r.get("id")) for r in result.get("deletes") or []}
        written = [r for key in ("puts", "posts") for r in result.get(key) or []]
        names = {name_key(n) for n in deleted_names} | {name_key(str(r.get("name", ""))) for r in written}
        for name in names:
            records = self.kept_at(zone, name)
            if records is None:
                continue
            ids = {str(r.get("id")) for r in written if name_key(str(r.get("name", ""))) == name}
            kept = [r for r in records if str(r.get("id")) not in gone and str(r.get("id")) not in ids]
            kept += [r for r in written if name_key(str(r.get("name", ""))) == name]
            self.store(zone, name, kept)


def _regional(raw: Record) -> Record:
    """A regional hostname kept beside the records of its name, as a pseudo-record."""
    return {"type": REGIONAL, "name": name_key(str(raw.get("hostname", ""))), "region_key": raw.get("region_key", "")}


def _unchanged(old: Endpoint, new: Endpoint) -> bool:
    return (name_key(old.dns_name), old.record_type, sorted(old.targets), old.record_ttl,
            sorted((p.name, p.value) for p in old.provider_specific)) == \
        (name_key(new.dns_name), new.record_type, sorted(new.targets), new.record_ttl,
         sorted((p.name, p.value) for p in new.provider_specific))


def _zone(raw: Record) -> CFZone:
    plan = raw.get("plan") or {}
    return CFZone(name=name_key(str(raw.get("name", ""))), id=str(raw.get("id", "")),
                  paid=bool(plan.get("is_subscribed")))
