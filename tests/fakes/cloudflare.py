"""A strict fake of the Cloudflare API v4 (zones and DNS records), on loopback.

Follows Cloudflare's published API reference for `GET /zones`, `GET /zones/{id}`,
`GET|POST /zones/{id}/dns_records`, `GET|PUT|PATCH|DELETE /zones/{id}/dns_records/{record_id}` and
`POST /zones/{id}/dns_records/batch`, with the request and response shapes of the official Python SDK
(`cloudflare` 5.x: `types/dns/record_response.py`, `record_batch_params.py`, `record_list_params.py`;
`pagination.py`'s V4PagePaginationArray with `result_info`), and the error envelope of the API reference
(`{"success": false, "errors": [{"code", "message"}], "messages": [], "result": null}`):

- authentication: `Authorization: Bearer <token>` or `X-Auth-Email` + `X-Auth-Key`; missing -> 400 code 9106,
  wrong -> 403 code 10000 "Authentication error";
- listing: `page` (from 1), `per_page` (zones 5..50, default 20; DNS records 5..5,000, default 100),
  `name` / `name.exact`, `type`, `content.exact`; `result_info` with page, per_page, count, total_count,
  total_pages;
- record validation: the types and fields of the SDK's param types (unknown fields refused), TTL 1 (automatic)
  or 60..86400, `proxied` only on proxiable types (A, AAAA, CNAME), A/AAAA contents parsed, MX `priority`
  0..65535, SRV `data`, TXT content <= 2048 characters, names inside the zone;
- conflicts: an identical record (name, type, content) -> 400 code 81057 "The record already exists."; a CNAME
  beside any other record at the name (or the reverse) -> 400 code 81053 "An A, AAAA, or CNAME record with that
  host already exists."; an unknown record id -> 404 code 81044 "Record does not exist.";
- batch: executed in the reference's order (deletes, patches, puts, posts) in one transaction: any failing
  operation rolls the whole batch back (400 with that operation's error); at most `batch_limit` operations
  (200, the free plan's limit);
- regional hostnames (`/zones/{id}/addressing/regional_hostnames[/{hostname}]`, Data Localization Suite): list
  (one page), create, edit, get, delete; region keys of `REGION_KEYS`, hostnames inside the zone;
- rate limiting: 429 code 971 with `Retry-After` (`throttle()` in httpfake.py); injected 5xx mid-batch leave the
  batch unapplied (it is one transaction).

Records carry ids, `created_on`/`modified_on`, `meta`, `proxiable`; names are stored lower case without the
trailing dot, as the API answers them.
"""

from __future__ import annotations

import datetime
import ipaddress
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.httpfake import FakeAPI, Reply, Request

PROXIABLE = frozenset(("A", "AAAA", "CNAME"))
TYPES = frozenset(("A", "AAAA", "CNAME", "MX", "NS", "PTR", "SRV", "TXT", "CAA", "NAPTR", "DS", "HTTPS",
                   "SVCB", "TLSA", "URI", "LOC", "CERT", "DNSKEY", "SMIMEA", "SSHFP", "OPENPGPKEY"))
COMMON_FIELDS = frozenset(("name", "type", "ttl", "content", "proxied", "comment", "tags", "settings"))
EXTRA_FIELDS = {"MX": {"priority"}, "URI": {"priority", "data"}, "SRV": {"data"}, "CAA": {"data"},
                "NAPTR": {"data"}, "DS": {"data"}, "HTTPS": {"data"}, "SVCB": {"data"}, "TLSA": {"data"},
                "LOC": {"data"}, "CERT": {"data"}, "DNSKEY": {"data"}, "SMIMEA": {"data"}, "SSHFP": {"data"}}
SRV_DATA = frozenset(("priority", "weight", "port", "target"))
REGION_KEYS = frozenset(("us", "eu", "ca", "au", "in", "jp", "sg", "kr", "uk"))
MAX_TXT = 2048
_HOST = re.compile(r"^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?$")


class APIError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Zone:
    id: str
    name: str
    paid: bool = False
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # record id -> record
    by_name: dict[str, set[str]] = field(default_factory=dict)  # name -> record ids (conflict checks)
    regional: dict[str, dict[str, Any]] = field(default_factory=dict)  # hostname -> regional hostname

    _sorted: list[dict[str, Any]] | None = None  # the listing order, kept until the next write

    def ordered(self) -> list[dict[str, Any]]:
        if self._sorted is None:
            self._sorted = sorted(self.records.values(), key=_order)
        return self._sorted

    def put(self, record: dict[str, Any]) -> None:
        self.drop(record["id"])
        self._sorted = None
        self.records[record["id"]] = record
        self.by_name.setdefault(record["name"], set()).add(record["id"])

    def drop(self, record_id: str) -> dict[str, Any] | None:
        record = self.records.pop(record_id, None)
        self._sorted = None
        if record is not None:
            self.by_name.get(record["name"], set()).discard(record_id)
        return record

    def restore(self, saved: dict[str, dict[str, Any]]) -> None:
        self.records, self.by_name = {}, {}
        for record in saved.values():
            self.put(record)


def _order(record: dict[str, Any]) -> tuple[str, str, str, str]:
    return (record["type"], record["name"], record["content"], record["id"])


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


class CloudflareFake(FakeAPI):
    """The fake; `add_zone()`, `add_record()` seed it, `records(zone)` reads it back."""

    def __init__(self, token: str = "cf-test-token", api_key: str = "", email: str = "",
                 batch_limit: int = 200) -> None:
        super().__init__()
        self.token, self.api_key, self.email = token, api_key, email
        self.batch_limit = batch_limit
        self.zones: dict[str, Zone] = {}
        self._ids = itertools.count(1)

    # -- seeding and reading --------------------------------------------------------------------------------
    def add_zone(self, name: str, paid: bool = False) -> str:
        zone_id = f"{next(self._ids):032x}"
        with self.lock:
            self.zones[zone_id] = Zone(zone_id, name.lower().rstrip("."), paid)
        return zone_id

    def zone_id(self, name: str) -> str:
        return next(z.id for z in self.zones.values() if z.name == name.lower().rstrip("."))

    def add_record(self, zone: str, name: str, rtype: str, content: str = "", ttl: int = 1,
                   proxied: bool = False, **extra: Any) -> str:
        body = {"name": name, "type": rtype, "ttl": ttl, "proxied": proxied, **extra}
        if content:
            body["content"] = content
        with self.lock:
            return str(self._create(self.zones[self.zone_id(zone)], body)["id"])

    def records(self, zone: str) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(r) for r in self.zones[self.zone_id(zone)].records.values()]

    def values(self, zone: str) -> set[tuple[str, str, str, int, bool]]:
        """(name, type, content, ttl, proxied) of every record (MX content as 'priority host')."""
        out = set()
        for r in self.records(zone):
            content = r["content"]
            if r["type"] == "MX":
                content = f"{r['priority']} {content}"
            out.add((r["name"], r["type"], content, r["ttl"], r["proxied"]))
        return out

    # -- protocol -------------------------------------------------------------------------------------------
    def error_reply(self, status: int, message: str) -> Reply:
        code = {429: 971, 401: 10000, 403: 10000}.get(status, 10000 if status < 500 else 10001)
        if status == 429:
            message = "Please wait and consider throttling your request speed"
        return Reply(status, {"success": False, "errors": [{"code": code, "message": message}],
                              "messages": [], "result": None})

    def handle(self, request: Request) -> Reply:
        try:
            self._authenticate(request)
            with self.lock:
                return self._route(request)
        except APIError as exc:
            return Reply(exc.status, {"success": False, "errors": [{"code": exc.code, "message": exc.message}],
                                      "messages": [], "result": None})

    def _authenticate(self, request: Request) -> None:
        auth = request.headers.get("authorization", "")
        if auth:
            if auth != f"Bearer {self.token}":
                raise APIError(403, 10000, "Authentication error")
            return
        key, email = request.headers.get("x-auth-key"), request.headers.get("x-auth-email")
        if key is None and email is None:
            raise APIError(400, 9106, "Missing X-Auth-Key, X-Auth-Email or Authorization headers")
        if not self.api_key or key != self.api_key or email != self.email:
            raise APIError(403, 9103, "Unknown X-Auth-Key or X-Auth-Email")

    def _route(self, request: Request) -> Reply:
        parts = [p for p in request.path.split("/") if p]
        if parts[:2] == ["client", "v4"]:
            parts = parts[2:]
        if parts == ["zones"] and request.method == "GET":
            return self._list_zones(request)
        if len(parts) >= 2 and parts[0] == "zones":
            zone = self.zones.get(parts[1])
            if zone is None:
                raise APIError(404, 1001, "Invalid zone identifier")  # the API's answer for an unknown zone id
            rest = parts[2:]
            if not rest and request.method == "GET":
                return _ok(self._zone_json(zone))
            if rest == ["dns_records"]:
                if request.method == "GET":
                    return self._list_records(zone, request)
                if request.method == "POST":
                    return _ok(self._create(zone, _body(request)))
            if rest == ["dns_records", "batch"] and request.method == "POST":
                return _ok(self._batch(zone, _body(request)))
            if len(rest) == 2 and rest[0] == "dns_records":
                return self._one_record(zone, rest[1], request)
            if rest[:2] == ["addressing", "regional_hostnames"]:
                return self._regional(zone, rest[2] if len(rest) == 3 else None, request)
        raise APIError(404, 7003, f"Could not route to {request.path}, perhaps your object identifier is invalid?")

    # -- zones ----------------------------------------------------------------------------------------------
    def _zone_json(self, zone: Zone) -> dict[str, Any]:
        return {"id": zone.id, "name": zone.name, "status": "active", "paused": False, "type": "full",
                "name_servers": ["ns1.example.net", "ns2.example.net"], "original_name_servers": [],
                "account": {"id": "acc0", "name": "test"}, "created_on": _now(), "modified_on": _now(),
                "activated_on": _now(), "development_mode": 0, "meta": {}, "owner": {},
                "plan": {"id": "p", "name": "Pro" if zone.paid else "Free Website", "is_subscribed": zone.paid,
                         "can_subscribe": True, "currency": "USD", "externally_managed": False,
                         "frequency": "monthly", "legacy_discount": False, "legacy_id": "free", "price": 0}}

    def _list_zones(self, request: Request) -> Reply:
        page, per_page = _paging(request, default=20, low=5, high=50)
        name = request.arg("name")
        zones = sorted((z for z in self.zones.values() if name is None or z.name == name), key=lambda z: z.name)
        return _page([self._zone_json(z) for z in zones], page, per_page)

    # -- regional hostnames ---------------------------------------------------------------------------------
    def _regional(self, zone: Zone, hostname: str | None, request: Request) -> Reply:
        if hostname is None:
            if request.method == "GET":
                return _ok(sorted(zone.regional.values(), key=lambda h: h["hostname"]))
            if request.method == "POST":
                body = _body(request)
                if not isinstance(body, dict) or set(body) - {"hostname", "region_key", "routing"}:
                    raise APIError(400, 1000, "Invalid regional hostname body")
                name = str(body.get("hostname", "")).lower().rstrip(".")
                if name != zone.name and not name.endswith("." + zone.name):
                    raise APIError(400, 1001, f"Hostname {name} is not in zone {zone.name}")
                if name in zone.regional:
                    raise APIError(400, 1002, f"A regional hostname for {name} already exists")
                zone.regional[name] = {"hostname": name, "region_key": self._region(body.get("region_key")),
                                       "routing": body.get("routing", "dns"), "created_on": _now()}
                return _ok(zone.regional[name])
            raise APIError(405, 10000, "Method not allowed")
        current = zone.regional.get(hostname.lower())
        if current is None:
            raise APIError(404, 1003, f"Regional hostname {hostname} not found")
        if request.method == "GET":
            return _ok(current)
        if request.method == "PATCH":
            body = _body(request)
            if not isinstance(body, dict) or set(body) != {"region_key"}:
                raise APIError(400, 1000, "Only region_key can be edited")
            current["region_key"] = self._region(body["region_key"])
            return _ok(current)
        if request.method == "DELETE":
            del zone.regional[hostname.lower()]
            return _ok(None)
        raise APIError(405, 10000, "Method not allowed")

    @staticmethod
    def _region(key: Any) -> str:
        if key not in REGION_KEYS:
            raise APIError(400, 1004, f"Invalid region_key {key!r}")
        return str(key)

    # -- records --------------------------------------------------------------------------------------------
    def _list_records(self, zone: Zone, request: Request) -> Reply:
        page, per_page = _paging(request, default=100, low=5, high=5000)
        name = request.arg("name.exact", request.arg("name"))
        rtype = request.arg("type")
        content = request.arg("content.exact", request.arg("content"))
        if rtype is not None and rtype not in TYPES:
            raise APIError(400, 9000, f"Invalid type '{rtype}'")
        pool = zone.records.values() if name is None else \
            [zone.records[i] for i in zone.by_name.get(name.lower().rstrip("."), ())]
        if name is None and rtype is None and content is None:
            records = zone.ordered()
        else:
            records = sorted((r for r in pool if (name is None or r["name"] == name.lower().rstrip("."))
                              and (rtype is None or r["type"] == rtype) and (content is None or r["content"] == content)),
                             key=_order)
        return _page(records, page, per_page)

    def _one_record(self, zone: Zone, record_id: str, request: Request) -> Reply:
        current = zone.records.get(record_id)
        if current is None:
            raise APIError(404, 81044, "Record does not exist.")
        if request.method == "GET":
            return _ok(current)
        if request.method == "DELETE":
            zone.drop(record_id)
            return _ok({"id": record_id})
        if request.method in ("PUT", "PATCH"):
            body = _body(request)
            if request.method == "PATCH":
                body = {**{k: current[k] for k in COMMON_FIELDS | {"priority", "data"} if k in current}, **body}
            return _ok(self._replace(zone, record_id, body))
        raise APIError(405, 10000, "Method not allowed")

    def _validate(self, zone: Zone, body: dict[str, Any], exclude: str = "") -> dict[str, Any]:
        if not isinstance(body, dict):
            raise APIError(400, 9000, "Invalid request body")
        rtype = body.get("type")
        if rtype not in TYPES:
            raise APIError(400, 9000, f"DNS record type \"{rtype}\" is invalid")
        unknown = set(body) - COMMON_FIELDS - EXTRA_FIELDS.get(rtype, set()) - {"id"}
        if unknown:
            raise APIError(400, 9000, f"Unknown field(s) {sorted(unknown)} for a {rtype} record")
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise APIError(400, 9005, "DNS name is invalid")
        name = name.lower().rstrip(".")
        if name == "@":
            name = zone.name
        if name != zone.name and not name.endswith("." + zone.name):
            name = f"{name}.{zone.name}"  # the API completes a relative name with the zone's
        if not _HOST.match(name) or len(name) > 253:
            raise APIError(400, 9005, f"DNS name {name} is invalid")
        ttl = body.get("ttl")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not (ttl == 1 or 60 <= ttl <= 86400):
            raise APIError(400, 9021, "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic.")
        proxied = body.get("proxied", False)
        if not isinstance(proxied, bool):
            raise APIError(400, 9003, "Invalid 'proxied' value, must be a boolean")
        if proxied and rtype not in PROXIABLE:
            raise APIError(400, 9004, "This record type cannot be proxied.")
        if proxied:
            ttl = 1  # a proxied record's TTL is always automatic
        content = body.get("content", "")
        record: dict[str, Any] = {"name": name, "type": rtype, "ttl": ttl, "proxied": proxied,
                                  "proxiable": rtype in PROXIABLE, "comment": body.get("comment"),
                                  "tags": list(body.get("tags") or []), "settings": body.get("settings") or {},
                                  "meta": {}}
        comment = record["comment"]
        if comment is not None and (not isinstance(comment, str) or len(comment) > (500 if zone.paid else 100)):
            raise APIError(400, 9102, "DNS record comment is too long")
        if not isinstance(record["tags"], list) or not all(isinstance(t, str) and ":" in t for t in record["tags"]):
            raise APIError(400, 9103, "DNS record tags must be 'name:value' strings")
        if rtype == "SRV":
            content = self._srv_content(body.get("data"))
        elif not isinstance(content, str) or not content:
            raise APIError(400, 9005, "Content for the record is required")
        if rtype == "A":
            _ip(content, 4, 9005, "Content for A record must be a valid IPv4 address.")
        elif rtype == "AAAA":
            _ip(content, 6, 9006, "Content for AAAA record must be a valid IPv6 address.")
        elif rtype in ("CNAME", "NS", "PTR", "MX") and not _HOST.match(content.lower()):
            raise APIError(400, 9007, f"Content for {rtype} record is invalid.")
        elif rtype == "TXT" and len(content) > MAX_TXT:
            raise APIError(400, 9100, f"Content for TXT record is invalid. Must not exceed {MAX_TXT} characters.")
        if rtype in ("CNAME", "NS", "PTR", "MX"):
            content = content.rstrip(".")
        record["content"] = content
        if rtype == "MX":
            priority = body.get("priority")
            if not isinstance(priority, int | float) or not 0 <= priority <= 65535 or priority != int(priority):
                raise APIError(400, 9101, "MX priority must be an integer between 0 and 65535")
            record["priority"] = int(priority)
        if rtype == "SRV":
            record["data"] = {k: body["data"][k] for k in sorted(SRV_DATA)}
        self._conflicts(zone, record, exclude)
        return record

    @staticmethod
    def _srv_content(data: Any) -> str:
        if not isinstance(data, dict) or set(data) - SRV_DATA or not set(data) >= SRV_DATA:
            raise APIError(400, 9000, "SRV records need data.priority, data.weight, data.port and data.target")
        for key in ("priority", "weight", "port"):
            value = data[key]
            if not isinstance(value, int | float) or value != int(value) or not 0 <= value <= 65535:
                raise APIError(400, 9000, f"SRV data.{key} must be an integer between 0 and 65535")
        target = data["target"]
        if not isinstance(target, str) or not (target == "." or _HOST.match(target.lower())):
            raise APIError(400, 9000, "SRV data.target is invalid")
        return f"{int(data['weight'])} {int(data['port'])} {target}"

    @staticmethod
    def _conflicts(zone: Zone, record: dict[str, Any], exclude: str) -> None:
        for rid in zone.by_name.get(record["name"], ()):
            other = zone.records[rid]
            if rid == exclude:
                continue
            if other["type"] == record["type"] and other["content"] == record["content"] \
                    and other.get("priority") == record.get("priority"):
                raise APIError(400, 81057, "The record already exists.")
            if "CNAME" in (other["type"], record["type"]):
                raise APIError(400, 81053, "An A, AAAA, or CNAME record with that host already exists.")

    def _create(self, zone: Zone, body: dict[str, Any]) -> dict[str, Any]:
        record = self._validate(zone, body)
        record_id = f"{next(self._ids):032x}"
        now = _now()
        record.update(id=record_id, created_on=now, modified_on=now)
        zone.put(record)
        return dict(record)

    def _replace(self, zone: Zone, record_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if record_id not in zone.records:
            raise APIError(404, 81044, "Record does not exist.")
        record = self._validate(zone, body, exclude=record_id)
        record.update(id=record_id, created_on=zone.records[record_id]["created_on"], modified_on=_now())
        zone.put(record)
        return dict(record)

    def _batch(self, zone: Zone, body: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(body, dict) or set(body) - {"deletes", "patches", "puts", "posts"}:
            raise APIError(400, 9000, "Invalid batch request body")
        ops = {k: body.get(k) or [] for k in ("deletes", "patches", "puts", "posts")}
        if any(not isinstance(v, list) for v in ops.values()):
            raise APIError(400, 9000, "Invalid batch request body")
        total = sum(len(v) for v in ops.values())
        if total > self.batch_limit:
            raise APIError(400, 81060, f"Batch request exceeds the limit of {self.batch_limit} operations")
        saved = {rid: dict(r) for rid, r in zone.records.items()}
        out: dict[str, list[dict[str, Any]]] = {k: [] for k in ops}
        try:
            for op in ops["deletes"]:
                if not isinstance(op, dict) or set(op) != {"id"}:
                    raise APIError(400, 9000, "A batch delete takes only an id")
                current = zone.drop(str(op["id"]))
                if current is None:
                    raise APIError(404, 81044, "Record does not exist.")
                out["deletes"].append(current)
            for key in ("patches", "puts"):
                for op in ops[key]:
                    record_id = str(op.get("id", "")) if isinstance(op, dict) else ""
                    fields = {k: v for k, v in op.items() if k != "id"} if isinstance(op, dict) else op
                    if key == "patches" and record_id in zone.records:
                        current = zone.records[record_id]
                        fields = {**{k: current[k] for k in COMMON_FIELDS | {"priority", "data"} if k in current},
                                  **fields}
                    out[key].append(self._replace(zone, record_id, fields))
            for op in ops["posts"]:
                out["posts"].append(self._create(zone, op))
        except APIError:
            zone.restore(saved)  # one transaction: nothing of a failed batch stays
            raise
        return out


def _ip(value: str, version: int, code: int, message: str) -> None:
    try:
        ok = ipaddress.ip_address(value).version == version
    except ValueError:
        ok = False
    if not ok:
        raise APIError(400, code, message)


def _body(request: Request) -> Any:
    if request.headers.get("content-type", "").split(";")[0] != "application/json":
        raise APIError(415, 9000, "Content-Type must be application/json")
    try:
        return request.json()
    except ValueError:
        raise APIError(400, 9000, "Invalid JSON in request body") from None


def _paging(request: Request, default: int, low: int, high: int) -> tuple[int, int]:
    try:
        page = int(float(request.arg("page", "1") or 1))
        per_page = int(float(request.arg("per_page", str(default)) or default))
    except ValueError:
        raise APIError(400, 1004, "page and per_page must be numbers") from None
    if page < 1 or not low <= per_page <= high:
        raise APIError(400, 1004, f"per_page must be between {low} and {high}")
    return page, per_page


def _page(items: list[dict[str, Any]], page: int, per_page: int) -> Reply:
    chunk = items[(page - 1) * per_page: page * per_page]
    return Reply(200, {"success": True, "errors": [], "messages": [], "result": chunk,
                       "result_info": {"page": page, "per_page": per_page, "count": len(chunk),
                                       "total_count": len(items),
                                       "total_pages": max(1, math.ceil(len(items) / per_page))}})


def _ok(result: Any) -> Reply:
    return Reply(200, {"success": True, "errors": [], "messages": [], "result": result})
