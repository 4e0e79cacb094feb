"""A strict fake of Azure DNS (Azure Resource Manager, `Microsoft.Network/dnsZones`, api-version 2018-05-01) or,
with `private=True`, of Azure Private DNS (`Microsoft.Network/privateDnsZones`, api-version 2024-06-01), and of
the Microsoft identity platform's token endpoint, on loopback over TLS (azure-core refuses bearer tokens over
plain http; the test trusts the fake's throw-away CA through `REQUESTS_CA_BUNDLE`).

Follows the REST operations and models that ship with azure-mgmt-dns 9.x (`operations/_zones_operations.py`,
`_record_sets_operations.py`, `models/_models_py3.py`) and azure-mgmt-privatedns 2.x (`operations/_operations.py`,
`models/_models.py`): request bodies are checked against the record set properties the SDK's models declare
(`RecordSet._attribute_map`; `RecordSetProperties`' rest fields) — unknown properties refused with 400
`InvalidRequestFormat`, read-only ones ignored as ARM does; answers are the models' JSON (`properties.TTL`,
`ARecords`, `CNAMERecord`, ... for public zones; `properties.ttl`, `aRecords`, `cnameRecord`, ... for private
ones; `etag`, `fqdn`).

- identity: `GET /{tenant}/v2.0/.well-known/openid-configuration` and `POST /{tenant}/oauth2/v2.0/token` (client
  credentials with a secret, or a federated client assertion: workload identity); ARM requests need
  `Authorization: Bearer <issued token>` (401 `InvalidAuthenticationToken` otherwise) and the api-version;
- concurrency: every record set has an etag that changes on each write; `If-Match` (PUT, DELETE) and
  `If-None-Match: *` (PUT) are honoured: 412 `PreconditionFailed`;
- listing: `$top` (default 100, at most `top_limit`), `$recordsetnamesuffix`, `nextLink`;
- limits: at most 20 records in a record set, `max_record_sets` record sets in a zone (10,000 by default), TXT
  strings <= 1024 characters, a CNAME record set beside other data at its name refused (409 `Conflict`);
- rate limiting: 429 `TooManyRequests` with Retry-After; injected 5xx.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import urllib.parse
from pathlib import Path
from typing import Any

from tests.fakes.httpfake import FakeAPI, Reply, Request

API_VERSION = "2018-05-01"
PRIVATE_API_VERSION = "2024-06-01"
RECORD_KEYS = {"A": "ARecords", "AAAA": "AAAARecords", "CNAME": "CNAMERecord", "MX": "MXRecords", "NS": "NSRecords",
               "PTR": "PTRRecords", "SRV": "SRVRecords", "TXT": "TXTRecords", "CAA": "caaRecords", "SOA": "SOARecord"}
PRIVATE_RECORD_KEYS = {"A": "aRecords", "AAAA": "aaaaRecords", "CNAME": "cnameRecord", "MX": "mxRecords",
                       "PTR": "ptrRecords", "SRV": "srvRecords", "TXT": "txtRecords", "SOA": "soaRecord"}
MAX_RECORDS_PER_SET = 20
MAX_TXT_STRING = 1024


def _properties_schema(private: bool) -> dict[str, Any]:
    """The JSON properties a RecordSet PUT may carry, from the SDK's model: name -> (type, read-only)."""
    if private:
        from azure.mgmt.privatedns import models as pmodels

        # The model's rest fields (filled on its first instance).
        fields: dict[str, Any] = getattr(pmodels.RecordSetProperties(), "_attr_to_rest_field")  # noqa: B009
        return {f._rest_name: ("", list(f._visibility or []) == ["read"]) for f in fields.values()}
    from azure.mgmt.dns import models

    out: dict[str, Any] = {}
    for attr, spec in models.RecordSet._attribute_map.items():
        key = spec["key"]
        if key.startswith("properties."):
            readonly = models.RecordSet._validation.get(attr, {}).get("readonly", False)
            out[key.split(".", 1)[1]] = (spec["type"], readonly)
    return out


class APIError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class AzureDNSFake(FakeAPI):
    """The fake; `add_zone()` / `add_record_set()` seed it, `record_sets(zone)` reads it back."""

    def __init__(self, cert_dir: Path, subscription: str = "sub-1", resource_group: str = "rg",
                 tenant: str = "tenant-1", client_id: str = "client-1", client_secret: str = "s3cret",
                 top_limit: int = 1000, max_record_sets: int = 10_000, private: bool = False) -> None:
        super().__init__(tls=True, cert_dir=cert_dir)
        self.private = private
        self.api_version = PRIVATE_API_VERSION if private else API_VERSION
        self.kind = "privateDnsZones" if private else "dnsZones"
        self.keys = PRIVATE_RECORD_KEYS if private else RECORD_KEYS
        self.ttl_key = "ttl" if private else "TTL"
        self.subscription, self.resource_group, self.tenant = subscription, resource_group, tenant
        self.client_id, self.client_secret = client_id, client_secret
        self.federated_tokens: set[str] = set()
        self.top_limit, self.max_record_sets = top_limit, max_record_sets
        self.schema = _properties_schema(private)
        self.zones: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}  # zone -> (relative name, type) -> set
        self.tokens: set[str] = set()
        self._ids = itertools.count(1)

    # -- seeding and reading --------------------------------------------------------------------------------
    def add_zone(self, name: str) -> None:
        with self.lock:
            self.zones[name] = {}

    def add_record_set(self, zone: str, relative: str, rtype: str, ttl: int, records: Any,
                       metadata: dict[str, str] | None = None) -> None:
        with self.lock:
            self.zones[zone][(relative.lower(), rtype)] = self._record_set(zone, relative.lower(), rtype, {
                self.ttl_key: ttl, self.keys[rtype]: records, **({"metadata": metadata} if metadata else {})})

    def record_sets(self, zone: str) -> dict[tuple[str, str], dict[str, Any]]:
        with self.lock:
            return {k: json.loads(json.dumps(v)) for k, v in self.zones[zone].items()}

    def values(self, zone: str) -> dict[tuple[str, str], tuple[int, Any]]:
        return {k: (v["properties"][self.ttl_key], v["properties"][self.keys[k[1]]])
                for k, v in self.record_sets(zone).items()}

    # -- protocol -------------------------------------------------------------------------------------------
    def error_reply(self, status: int, message: str) -> Reply:
        code = {429: "TooManyRequests", 500: "InternalServerError", 502: "BadGateway", 503: "ServiceUnavailable"}
        return Reply(status, {"error": {"code": code.get(status, "BadRequest"), "message": message}})

    def is_api(self, request: Request) -> bool:
        return request.path.startswith("/subscriptions/")

    def handle(self, request: Request) -> Reply:
        try:
            if not request.path.startswith("/subscriptions/"):
                return self._identity(request)
            if request.headers.get("authorization", "")[len("Bearer "):] not in self.tokens:
                raise APIError(401, "InvalidAuthenticationToken", "The access token is invalid.")
            if request.arg("api-version") != self.api_version:
                raise APIError(400, "InvalidApiVersionParameter",
                               f"The api-version '{request.arg('api-version')}' is invalid.")
            with self.lock:
                return self._route(request)
        except APIError as exc:
            return Reply(exc.status, {"error": {"code": exc.code, "message": exc.message}})

    def _identity(self, request: Request) -> Reply:
        parts = [p for p in request.path.split("/") if p]
        base = f"{self.url}/{self.tenant}"
        if parts == [self.tenant, "v2.0", ".well-known", "openid-configuration"]:
            return Reply(200, {"token_endpoint": f"{base}/oauth2/v2.0/token", "issuer": f"{base}/v2.0",
                               "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                               "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
                               "tenant_region_scope": None})
        if parts == [self.tenant, "oauth2", "v2.0", "token"] and request.method == "POST":
            form = {k: v[-1] for k, v in urllib.parse.parse_qs(request.body.decode()).items()}
            ok = form.get("client_id") == self.client_id and (
                form.get("client_secret") == self.client_secret
                or form.get("client_assertion") in self.federated_tokens)
            if form.get("grant_type") != "client_credentials" or not ok:
                return Reply(401, {"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client "
                                   "secret provided.", "error_codes": [7000215]})
            token = f"eyJ.fake-{next(self._ids)}"
            with self.lock:
                self.tokens.add(token)
            return Reply(200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
                               "access_token": token})
        return Reply(404, {"error": "not_found"})

    def _route(self, request: Request) -> Reply:
        parts = [p for p in request.path.split("/") if p]
        prefix = ["subscriptions", self.subscription, "resourceGroups", self.resource_group, "providers",
                  "Microsoft.Network", self.kind]
        if [p.lower() for p in parts[:7]] != [p.lower() for p in prefix]:
            raise APIError(404, "ResourceGroupNotFound" if parts[1:2] == [self.subscription] else
                           "SubscriptionNotFound", f"Resource group or subscription of {request.path} not found.")
        rest = parts[7:]
        if not rest and request.method == "GET":
            zones = [self._zone_json(z) for z in sorted(self.zones)]
            return self._page(request, zones, default_top=100)
        zone = rest[0] if rest else ""
        if zone not in self.zones:
            raise APIError(404, "ResourceNotFound", f"The resource 'Microsoft.Network/dnszones/{zone}' under resource "
                                                    f"group '{self.resource_group}' was not found.")
        if [r.lower() for r in rest[1:]] in (["all"], ["recordsets"]) and request.method == "GET":
            suffix = (request.arg("$recordsetnamesuffix") or "").lower()
            items = [v for (n, t), v in sorted(self.zones[zone].items())
                     if not suffix or n == suffix or n.endswith("." + suffix) or (suffix == "@" and n == "@")]
            return self._page(request, items, default_top=100)
        if len(rest) == 3:
            return self._one(zone, rest[2].lower(), rest[1].upper(), request)
        raise APIError(404, "NotFound", f"no such path {request.path}")

    def _page(self, request: Request, items: list[dict[str, Any]], default_top: int) -> Reply:
        try:
            top = int(request.arg("$top") or default_top)
            skip = int(request.arg("$skipToken") or 0)
        except ValueError:
            raise APIError(400, "InvalidParameter", "$top must be an integer") from None
        if not 1 <= top <= self.top_limit:
            raise APIError(400, "InvalidParameter", f"$top must be between 1 and {self.top_limit}")
        body: dict[str, Any] = {"value": items[skip:skip + top]}
        if skip + top < len(items):
            query = {k: v[-1] for k, v in request.query.items()}
            query["$skipToken"] = str(skip + top)
            body["nextLink"] = f"{self.url}{request.path}?{urllib.parse.urlencode(query)}"
        return Reply(200, body)

    def _zone_json(self, zone: str) -> dict[str, Any]:
        return {"id": f"/subscriptions/{self.subscription}/resourceGroups/{self.resource_group}/providers/"
                      f"Microsoft.Network/{self.kind.lower()}/{zone}", "name": zone,
                "type": f"Microsoft.Network/{self.kind.lower()}",
                "location": "global", "etag": "00000002-0000-0000-0000-000000000000", "tags": {},
                "properties": {"maxNumberOfRecordSets": self.max_record_sets, "maxNumberOfRecordsPerRecordSet":
                               MAX_RECORDS_PER_SET, "numberOfRecordSets": len(self.zones[zone]),
                               "nameServers": ["ns1-01.azure-dns.com."], "zoneType": "Public"}}

    def _record_set(self, zone: str, relative: str, rtype: str, props: dict[str, Any]) -> dict[str, Any]:
        fqdn = f"{zone}." if relative == "@" else f"{relative}.{zone}."
        return {"id": f"/subscriptions/{self.subscription}/resourceGroups/{self.resource_group}/providers/"
                      f"Microsoft.Network/{self.kind}/{zone}/{rtype}/{relative}",
                "name": relative, "type": f"Microsoft.Network/{self.kind}/{rtype}", "etag": f"etag-{next(self._ids)}",
                "properties": {**props, "fqdn": fqdn, "provisioningState": "Succeeded"}}

    def _one(self, zone: str, relative: str, rtype: str, request: Request) -> Reply:
        if rtype not in self.keys:
            raise APIError(400, "InvalidRecordType", f"The record type '{rtype}' is not supported.")
        records = self.zones[zone]
        current = records.get((relative, rtype))
        # An entity tag may come quoted (RFC 9110, as azure-core's match conditions send it) or bare.
        if_match, if_none = (_etag(request.headers.get("if-match")), _etag(request.headers.get("if-none-match")))
        if if_match is not None and (current is None or (if_match != "*" and if_match != current["etag"])):
            raise APIError(412, "PreconditionFailed", f"The Record set {relative} has been modified (etag mismatch).")
        if request.method == "GET":
            if current is None:
                raise APIError(404, "NotFound", f"The resource record '{relative}' does not exist in resource group "
                                                f"'{self.resource_group}' of subscription '{self.subscription}'.")
            return Reply(200, current)
        if request.method == "DELETE":
            if current is None:
                return Reply(204, None)
            del records[(relative, rtype)]
            return Reply(200, None)
        if request.method == "PUT":
            if if_none == "*" and current is not None:
                raise APIError(412, "PreconditionFailed", f"The Record set {relative} exists already and so cannot "
                                                          "be created again.")
            props = self._check(zone, relative, rtype, request)
            if current is None and len(records) >= self.max_record_sets:
                raise APIError(409, "MaxNumberOfRecordSetsReached", f"The maximum number of record sets "
                                                                    f"({self.max_record_sets}) has been reached.")
            others = {t for (n, t) in records if n == relative and t != rtype}
            if others and ("CNAME" in others or rtype == "CNAME"):
                raise APIError(409, "Conflict", f"The record set {relative} of type {rtype} conflicts with an "
                                                "existing CNAME record set (or the reverse).")
            records[(relative, rtype)] = self._record_set(zone, relative, rtype, props)
            return Reply(201 if current is None else 200, records[(relative, rtype)])
        raise APIError(405, "MethodNotAllowed", f"{request.method} is not allowed")

    def _check(self, zone: str, relative: str, rtype: str, request: Request) -> dict[str, Any]:
        try:
            body = request.json()
        except ValueError:
            raise APIError(400, "InvalidRequestFormat", "Cannot parse the request.") from None
        if not isinstance(body, dict) or set(body) - {"properties", "etag", "id", "name", "type"} or \
                not isinstance(body.get("properties"), dict):
            raise APIError(400, "InvalidRequestFormat", "The request body must be a RecordSet with properties.")
        props: dict[str, Any] = {}
        for key, value in body["properties"].items():
            if key not in self.schema:
                raise APIError(400, "InvalidRequestFormat", f"Could not find member '{key}' on object of type "
                                                            "'RecordSetProperties'.")
            if not self.schema[key][1]:
                props[key] = value
        ttl = props.get(self.ttl_key)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 0 <= ttl <= 2147483647:
            raise APIError(400, "InvalidTTL", f"The TTL {ttl!r} is invalid.")
        present = [k for t, k in self.keys.items() if k in props]
        if present != [self.keys[rtype]]:
            raise APIError(400, "InvalidRecordSet", f"A {rtype} record set must carry {self.keys[rtype]} and no "
                                                    f"other record list (got {present}).")
        records = props[self.keys[rtype]]
        if rtype != "CNAME" and (not isinstance(records, list) or not records or len(records) > MAX_RECORDS_PER_SET):
            raise APIError(400, "InvalidRecordSet", f"A record set holds 1 to {MAX_RECORDS_PER_SET} records.")
        self._check_records(rtype, records)
        metadata = props.get("metadata")
        if metadata is not None and (not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
            raise APIError(400, "InvalidMetadata", "metadata must map strings to strings")
        return props

    @staticmethod
    def _check_records(rtype: str, records: Any) -> None:
        def bad(what: str) -> APIError:
            return APIError(400, "InvalidRecordData", f"The {rtype} record data is invalid: {what}")

        items = [records] if rtype == "CNAME" else records
        fields = {"A": {"ipv4Address"}, "AAAA": {"ipv6Address"}, "CNAME": {"cname"}, "MX": {"preference", "exchange"},
                  "NS": {"nsdname"}, "PTR": {"ptrdname"}, "SRV": {"priority", "weight", "port", "target"},
                  "TXT": {"value"}, "CAA": {"flags", "tag", "value"}, "SOA": set()}[rtype]
        for item in items:
            if not isinstance(item, dict) or set(item) - fields or not fields <= set(item):
                raise bad(f"{item!r} (fields {sorted(fields)})")
            if rtype in ("A", "AAAA"):
                try:
                    ok = ipaddress.ip_address(item[next(iter(fields))]).version == (4 if rtype == "A" else 6)
                except ValueError:
                    ok = False
                if not ok:
                    raise bad(repr(item))
            if rtype == "TXT" and (not isinstance(item["value"], list) or not item["value"]
                                   or any(not isinstance(s, str) or len(s) > MAX_TXT_STRING for s in item["value"])):
                raise bad(f"TXT strings must be 1..{MAX_TXT_STRING} characters")
            for key in ("preference", "priority", "weight", "port"):
                if key in item and (not isinstance(item[key], int) or not 0 <= item[key] <= 65535):
                    raise bad(f"{key} {item[key]!r}")


def _etag(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip().removeprefix("W/")
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


def config_file(path: Path, fake: AzureDNSFake, **extra: Any) -> Path:
    """An azure.json for an Azure Stack cloud whose endpoints are the fake's (as a sovereign cloud's would be)."""
    cfg = {"cloud": "AzureStackCloud", "tenantId": fake.tenant, "subscriptionId": fake.subscription,
           "resourceGroup": fake.resource_group, "aadClientId": fake.client_id, "aadClientSecret": fake.client_secret,
           "resourceManagerEndpoint": fake.url + "/", "activeDirectoryAuthorityHost": fake.url + "/",
           "resourceManagerAudience": "https://management.test/", **extra}
    path.write_text(json.dumps(cfg))
    return path

