"""The Google Cloud DNS provider (`--provider=google`, external-dns `provider/google`) on google-api-python-client.

- Zones: the project's managed zones through the domain filter, `--google-zone-visibility` and
  `--zone-id-filter` (id or name), peering zones left out (external-dns); reused for `zones_cache_seconds`.
- Reading: each zone's record sets in pages of `page_size`, kept per name (apizones.py) for
  `--provider-cache-time`; a name is read alone with `resourceRecordSets.list(name=...)`.
- Writing: as external-dns, a plan becomes `changes.create` requests (additions: creates and update-news;
  deletions: update-olds and deletes) of at most `--google-batch-change-size` record sets, a record, its
  ownership TXT and everything at one name in one request, `--google-batch-change-interval` apart. A change is
  atomic and its deletions must match the stored record set exactly, so a record set someone changed since our
  read is refused (412) instead of replaced: a refused change is split until the refused group stands alone,
  the rest is applied and the refused names are read again. An event costs one request and no listing.
- Errors: 401/403 are fatal (APIAuthError); 429, 5xx and connection failures left after the client's retries are
  SoftErrors; refusals are reported together at the end as a ProviderError.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import structlog

from external_dns.endpoint.endpoint import OWNED_RECORD_LABEL_KEY, RECORD_TYPE_SRV, Endpoint, new_endpoint
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
    chunk_groups,
    refused_error,
    send_bisecting,
)
from external_dns.providers.errors import ProviderError, SoftError
from external_dns.providers.google.config import DEFAULT_TTL, SCOPE, GoogleConfig

log = structlog.get_logger(__name__)

READ_TYPES = frozenset(("A", "AAAA", "CNAME", "SRV", "TXT", "NS", "MX", "PTR", "NAPTR"))
ABSOLUTE_TYPES = frozenset(("CNAME", "MX", "SRV", "NS"))  # targets written with a trailing dot (external-dns)
_MAX_PAGES = 1_000_000

RRSet = dict[str, Any]


@dataclass
class _Op:
    action: str  # "add" | "delete"
    rrset: RRSet


def build_service(config: GoogleConfig) -> tuple[Any, str]:
    """The Cloud DNS v1 service object and the project (imported here: only `--provider=google` loads the
    client). The discovery document shipped with the client is used: no request to fetch it."""
    import google.auth
    import google.auth.exceptions
    import google_auth_httplib2
    import httplib2
    from googleapiclient import discovery

    try:
        credentials, detected = google.auth.default(scopes=[SCOPE])
    except google.auth.exceptions.DefaultCredentialsError as exc:
        raise ConfigError(f"google: no credentials: {exc}") from None
    project = config.project or detected or ""
    if not project:
        raise ConfigError("failed to auto-detect the project id (no project in the credentials nor on the metadata server)")
    http = google_auth_httplib2.AuthorizedHttp(credentials, http=httplib2.Http(timeout=config.request_timeout))
    options = {"api_endpoint": config.api_endpoint} if config.api_endpoint else None
    service = discovery.build("dns", "v1", http=http, static_discovery=True, cache_discovery=False,
                              client_options=options)
    return service, project


def _error(what: str, exc: BaseException) -> ProviderError:
    """A client exception as our error: auth -> fatal, throttling / 5xx / connection -> soft, else hard."""
    import google.auth.exceptions
    from googleapiclient.errors import HttpError

    if isinstance(exc, google.auth.exceptions.RefreshError) and not getattr(exc, "retryable", False):
        return APIAuthError(f"Google Cloud DNS {what}: the credentials were refused: {exc}")
    if isinstance(exc, HttpError):
        status, reason, message = _details(exc)
        text = f"Google Cloud DNS {what}: HTTP {status} {reason}: {message}"
        if status == 401 or (status == 403 and reason not in ("quotaExceeded", "rateLimitExceeded")):
            return APIAuthError(text)
        if status == 429 or status >= 500 or reason == "rateLimitExceeded":
            return SoftError(text)
        return ProviderError(text)
    if isinstance(exc, OSError | TimeoutError) or type(exc).__module__.startswith(("httplib2", "google.auth")):
        return SoftError(f"Google Cloud DNS {what}: {type(exc).__name__}: {exc}")
    return ProviderError(f"Google Cloud DNS {what}: {type(exc).__name__}: {exc}")


def _details(exc: Any) -> tuple[int, str, str]:
    status = int(getattr(exc.resp, "status", 0) or 0)
    try:
        err = json.loads(exc.content.decode()).get("error", {})
        reasons = [e.get("reason", "") for e in err.get("errors", []) if isinstance(e, dict)]
        return status, (reasons[0] if reasons else err.get("status", "")), str(err.get("message", ""))
    except (ValueError, AttributeError):
        return status, "", exc.content[:200].decode(errors="replace") if isinstance(exc.content, bytes) else ""


def rrset_for(ep: Endpoint) -> RRSet:
    """The record set of `ep` as external-dns writes it: the name and host targets absolute, TTL 300 when none."""
    targets = list(ep.targets)
    if ep.record_type in ABSOLUTE_TYPES:
        targets = [t if t.endswith(".") else t + "." for t in targets]
    name = ep.dns_name if ep.dns_name.endswith(".") else ep.dns_name + "."
    return {"name": name.lower(), "type": ep.record_type, "ttl": ep.record_ttl if ep.record_ttl > 0 else DEFAULT_TTL,
            "rrdatas": targets}


def _comparable(rrset: RRSet) -> tuple[object, ...]:
    return (rrset["name"], rrset["type"], rrset["ttl"], sorted(rrset["rrdatas"]))


class GoogleProvider(KeptZonesProvider[APIZone, RRSet]):
    """Cloud DNS behind the Provider interface; `service` is the client's `dns` v1 resource (built, with the
    project, from `config` and the Application Default Credentials when not given)."""

    def __init__(self, config: GoogleConfig, service: Any = None, project: str = "") -> None:
        super().__init__(config.cache_seconds, config.zones_cache_seconds)
        self.config = config
        if service is None:
            service, project = build_service(config)
        self.service = service
        self.project = project or config.project
        self._stop = threading.Event()

    def __repr__(self) -> str:
        return f"GoogleProvider(project={self.project!r})"

    def close(self) -> None:
        self._stop.set()

    def record_default_ttl(self, zone: str) -> int:
        return DEFAULT_TTL

    def _execute(self, request: Any, what: str) -> Any:
        try:
            return request.execute(num_retries=self.config.max_retries)
        except Exception as exc:
            raise _error(what, exc) from None

    def _pages(self, resource: Any, kwargs: dict[str, Any], key: str, what: str) -> Iterator[dict[str, Any]]:
        request = resource.list(**kwargs)
        for _ in range(_MAX_PAGES):
            if request is None:
                return
            page = self._execute(request, what)
            yield from page.get(key) or []
            request = resource.list_next(request, page)
        raise SoftError(f"Google Cloud DNS {what}: more than {_MAX_PAGES} pages")

    # -- zones ----------------------------------------------------------------------------------------------
    def _list_zones(self) -> Iterable[APIZone]:
        cfg = self.config
        out = []
        for zone in self._pages(self.service.managedZones(), {"project": self.project}, "managedZones",
                                "listing managed zones"):
            dns_name = str(zone.get("dnsName", ""))
            ident = (str(zone.get("id", "")), str(zone.get("name", "")))
            if zone.get("peeringConfig"):
                log.debug(f"Filtered peering zone {dns_name} (zone: {ident[1]})")
                continue
            if not cfg.domain_filter.match(dns_name) or \
                    (cfg.zone_visibility and zone.get("visibility") != cfg.zone_visibility) or \
                    (cfg.zone_id_filter and not any(i.endswith(f) for f in cfg.zone_id_filter for i in ident)):
                log.debug(f"Filtered {dns_name} (zone: {ident[1]}) (visibility: {zone.get('visibility')})")
                continue
            out.append(APIZone(name=name_key(dns_name), id=ident[1]))
        if not out:
            log.warning(f"No zones in the project, {self.project}, match domain filters")
        return out

    # -- reading --------------------------------------------------------------------------------------------
    def _list_records(self, zone: APIZone) -> Iterable[RRSet]:
        return self._pages(self.service.resourceRecordSets(),
                           {"project": self.project, "managedZone": zone.id, "maxResults": self.config.page_size},
                           "rrsets", f"listing records in zone {zone.id}")

    def _read_name(self, zone: APIZone, name: str) -> list[RRSet]:
        return list(self._pages(self.service.resourceRecordSets(),
                                {"project": self.project, "managedZone": zone.id, "name": name_key(name) + "."},
                                "rrsets", f"reading {name} in zone {zone.id}"))

    def _record_name(self, record: RRSet) -> str:
        return str(record.get("name", ""))

    def _to_endpoints(self, zone: APIZone, records: list[RRSet]) -> list[Endpoint]:
        out = []
        for rrset in records:
            if rrset.get("type") in READ_TYPES:
                ep = new_endpoint(str(rrset["name"]), str(rrset["type"]), *(rrset.get("rrdatas") or []),
                                  ttl=int(rrset.get("ttl") or 0))
                if ep is not None:
                    out.append(ep)
        return out

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """Names lower case without the trailing dot, SRV targets absolute, other host targets without the dot:
        what `records()` reads back."""
        out = []
        for original in endpoints:
            ep = original.copy()
            ep.dns_name = name_key(ep.dns_name)
            if ep.record_type == RECORD_TYPE_SRV:
                ep.targets = Targets([t if t.endswith(".") else t + "." for t in ep.targets])
            elif ep.record_type in ABSOLUTE_TYPES or ep.record_type == "PTR":
                # Read back without the trailing dot (external-dns's endpoint form): a desired `host.` plans nothing.
                ep.targets = Targets([t[:-1] if t.endswith(".") else t for t in ep.targets])
            out.append(ep)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        per_zone: dict[APIZone, dict[str, WriteGroup[_Op]]] = {}

        def add(action: str, ep: Endpoint) -> None:
            zone = self.zone_of(ep.dns_name)
            if zone is None:
                log.warning(f"No matching zone for record {action}: {ep.dns_name} {ep.record_type} {ep.targets}")
                return
            key = name_key(ep.labels.get(OWNED_RECORD_LABEL_KEY) or ep.dns_name)
            group = per_zone.setdefault(zone, {}).setdefault(key, WriteGroup(key))
            group.names.add(name_key(ep.dns_name))
            group.ops.append(_Op(action, rrset_for(ep)))

        pairs = [(old, new) for old, new in zip(changes.update_old, changes.update_new, strict=False)
                 if _comparable(rrset_for(old)) != _comparable(rrset_for(new))]  # same record set: nothing to send
        for ep in [*(old for old, _ in pairs), *changes.delete]:
            add("delete", ep)
        for ep in [*changes.create, *(new for _, new in pairs)]:
            add("add", ep)
        refused: list[str] = []
        for zone in sorted(per_zone, key=lambda z: z.name):
            refused += self._submit_zone(zone, [g for _, g in sorted(per_zone[zone].items())])
        if refused:
            raise refused_error("Google Cloud DNS", refused)

    def _submit_zone(self, zone: APIZone, groups: list[WriteGroup[_Op]]) -> list[str]:
        refused: list[str] = []
        for index, chunk in enumerate(chunk_groups(groups, self.config.batch_change_size)):
            for g in chunk:
                for op in g.ops:
                    r = op.rrset
                    verb = "Del" if op.action == "delete" else "Add"
                    log.info(f"{verb} records: {r['name']} {r['type']} {r['rrdatas']} {r['ttl']}", zone=zone.id)
            if self.config.dry_run:
                continue
            if index and self.config.batch_change_interval > 0 and self._stop.wait(self.config.batch_change_interval):
                raise SoftError(f"zone {zone.name}: stopped before every change was sent")
            try:
                _, bad, _ = send_bisecting(chunk, self._sender(zone))
            except SoftError:
                self.mark_dirty(zone, {n for g in chunk for n in g.names})
                raise
            for g, reason in bad:
                self.mark_dirty(zone, g.names)
                refused.append(f"zone {zone.id}: {g.key}: {reason}")
        return refused

    def _sender(self, zone: APIZone) -> Callable[[list[WriteGroup[_Op]]], None]:
        def send(part: list[WriteGroup[_Op]]) -> None:
            from googleapiclient.errors import HttpError

            ops = [op for g in part for op in g.ops]
            body = {"additions": [op.rrset for op in ops if op.action == "add"],
                    "deletions": [op.rrset for op in ops if op.action == "delete"]}
            request = self.service.changes().create(project=self.project, managedZone=zone.id,
                                                    body={k: v for k, v in body.items() if v})
            try:
                request.execute(num_retries=self.config.max_retries)
            except HttpError as exc:
                status, reason, message = _details(exc)
                if status in (400, 404, 409, 412) or reason == "quotaExceeded":
                    raise RequestRefused(f"HTTP {status} {reason}: {message}") from None
                raise _error(f"change in zone {zone.id}", exc) from None
            except Exception as exc:
                raise _error(f"change in zone {zone.id}", exc) from None
            self._fold(zone, ops)

        return send

    def _fold(self, zone: APIZone, ops: list[_Op]) -> None:
        """An applied change into the kept record sets: deleted ones out, added ones in."""
        names = {name_key(op.rrset["name"]) for op in ops}
        for name in names:
            kept = self.kept_at(zone, name)
            if kept is None:
                continue
            gone = {(r["name"], r["type"]) for op in ops if op.action == "delete" for r in [op.rrset]}
            added = [op.rrset for op in ops if op.action == "add" and name_key(op.rrset["name"]) == name]
            rest = [r for r in kept if (str(r.get("name", "")).lower(), r.get("type")) not in gone]
            self.store(zone, name, rest + added)
