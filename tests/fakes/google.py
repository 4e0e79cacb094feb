"""A strict fake of the Google Cloud DNS API v1 (managed zones, resource record sets, changes), of Google's OAuth2
token endpoint and of the GCE metadata server, on loopback.

Follows the Cloud DNS v1 discovery document that ships with google-api-python-client
(`googleapiclient/discovery_cache/documents/dns.v1.json`): the paths of `managedZones.list`,
`resourceRecordSets.list` (`name`, `type`, `maxResults`, `pageToken`) and `changes.create|get`; request bodies
are checked against the document's `Change` / `ResourceRecordSet` schemas (unknown fields and wrong types are
refused as the API does: 400 `Invalid JSON payload received. Unknown name ...`). The error envelope is Google's
JSON error (`{"error": {"code", "message", "status", "errors": [{"domain", "reason", "message"}]}}`).

- authentication: `Authorization: Bearer <token>` with a token this fake issued, from its token endpoint (a
  service-account JWT assertion, RS256-signed by the key the test registered: google-auth's service_account
  flow) or from its metadata server (`/computeMetadata/v1/instance/service-accounts/default/token` with
  `Metadata-Flavor: Google`: the GKE workload identity flow); otherwise 401 UNAUTHENTICATED;
- changes are atomic and applied in the reference's order: deletions must match the existing record set exactly
  (name, type, ttl, rrdatas) or the change fails with 412 `conditionNotMet`; an addition over an existing record
  set fails with 409 `alreadyExists`; a CNAME beside other data, names outside the zone, relative CNAME/MX/NS
  targets, bad addresses: 400 `invalid`; per-change limits of the Quota schema (rrsetAdditionsPerChange,
  rrsetDeletionsPerChange, rrdataPerRrset: 1,000 / 1,000 / 100) -> 403 `quotaExceeded`;
- listing: `maxResults` (server maximum `page_limit`) with opaque `nextPageToken`s;
- rate limiting: 429 RESOURCE_EXHAUSTED `rateLimitExceeded` with Retry-After; injected 5xx.
"""

from __future__ import annotations

import base64
import ipaddress
import itertools
import json
import time
from pathlib import Path
from typing import Any

from tests.fakes.httpfake import FakeAPI, Reply, Request

DISCOVERY = Path(str(__import__("googleapiclient").__file__)).parent / "discovery_cache" / "documents" / "dns.v1.json"
STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
          409: "ALREADY_EXISTS", 412: "FAILED_PRECONDITION", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
          502: "UNAVAILABLE", 503: "UNAVAILABLE"}
HOST_TYPES = frozenset(("CNAME", "MX", "NS", "PTR", "SRV"))


class APIError(Exception):
    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


def _jwt_claims(assertion: str, public_key: Any) -> dict[str, Any]:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    head, payload, sig = assertion.split(".")

    def unb64(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    public_key.verify(unb64(sig), f"{head}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    claims: dict[str, Any] = json.loads(unb64(payload))
    return claims


class GoogleDNSFake(FakeAPI):
    """The fake; `add_zone()` / `add_rrset()` seed it, `rrsets(zone)` reads it back."""

    def __init__(self, project: str = "test-project", page_limit: int = 1000) -> None:
        super().__init__()
        self.project = project
        self.page_limit = page_limit
        self.schemas: dict[str, Any] = json.loads(DISCOVERY.read_text())["schemas"]
        self.zones: dict[str, dict[str, Any]] = {}  # managed zone name -> zone
        self.data: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}  # zone -> (name, type) -> rrset
        self.changes: dict[str, list[dict[str, Any]]] = {}
        self.tokens: set[str] = set()
        self.service_accounts: dict[str, Any] = {}  # client email -> public key
        self.metadata_project = project
        self.quota = {"rrsetAdditionsPerChange": 1000, "rrsetDeletionsPerChange": 1000, "rrdataPerRrset": 100}
        self._ids = itertools.count(1)

    # -- seeding and reading --------------------------------------------------------------------------------
    def add_zone(self, name: str, dns_name: str, visibility: str = "public", peering: bool = False) -> None:
        zone: dict[str, Any] = {"kind": "dns#managedZone", "name": name, "dnsName": dns_name.rstrip(".") + ".",
                                "id": str(next(self._ids) + 1000), "visibility": visibility,
                                "nameServers": ["ns-cloud-a1.googledomains.com."], "description": ""}
        if peering:
            zone["peeringConfig"] = {"targetNetwork": {"networkUrl": "projects/p/global/networks/n"}}
        with self.lock:
            self.zones[name] = zone
            self.data[name] = {}
            self.changes[name] = []

    def add_rrset(self, zone: str, name: str, rtype: str, ttl: int, *rrdatas: str) -> None:
        with self.lock:
            self.data[zone][(name, rtype)] = {"kind": "dns#resourceRecordSet", "name": name, "type": rtype,
                                              "ttl": ttl, "rrdatas": list(rrdatas)}

    def rrsets(self, zone: str) -> dict[tuple[str, str], tuple[int, list[str]]]:
        with self.lock:
            return {k: (v["ttl"], list(v["rrdatas"])) for k, v in self.data[zone].items()}

    def register_service_account(self, email: str, public_key: Any) -> None:
        self.service_accounts[email] = public_key

    # -- protocol -------------------------------------------------------------------------------------------
    def error_reply(self, status: int, message: str) -> Reply:
        reason = {429: "rateLimitExceeded", 401: "authError"}.get(status, "backendError" if status >= 500 else "invalid")
        return _error(status, reason, message)

    def is_api(self, request: Request) -> bool:
        return request.path.startswith("/dns/")

    def handle(self, request: Request) -> Reply:
        try:
            if request.path == "/token":
                return self._token(request)
            if request.path.startswith("/computeMetadata/") or request.path == "/":
                return self._metadata(request)
            if request.headers.get("authorization", "")[len("Bearer "):] not in self.tokens:
                raise APIError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 "
                                                 "access token, login cookie or other valid authentication "
                                                 "credential.")
            with self.lock:
                return self._route(request)
        except APIError as exc:
            return _error(exc.status, exc.reason, exc.message)

    def _issue(self) -> str:
        token = f"ya29.fake-{next(self._ids)}"
        with self.lock:
            self.tokens.add(token)
        return token

    def _token(self, request: Request) -> Reply:
        form = {k: v[-1] for k, v in __import__("urllib.parse").parse.parse_qs(request.body.decode()).items()}
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return Reply(400, {"error": "unsupported_grant_type"})
        try:
            unverified = json.loads(base64.urlsafe_b64decode(form["assertion"].split(".")[1] + "=="))
            key = self.service_accounts[unverified["iss"]]
            claims = _jwt_claims(form["assertion"], key)
        except Exception:
            return Reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
        if claims.get("exp", 0) < time.time():
            return Reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT: Token must be a "
                                                                              "short-lived token"})
        return Reply(200, {"access_token": self._issue(), "token_type": "Bearer", "expires_in": 3599})

    def _metadata(self, request: Request) -> Reply:
        if request.headers.get("metadata-flavor") != "Google":
            return Reply(403, b"Missing Metadata-Flavor:Google header.", {"Content-Type": "text/html"})
        headers = {"Metadata-Flavor": "Google", "Content-Type": "application/text"}
        path = request.path.rstrip("/")
        if path in ("", "/computeMetadata/v1"):
            return Reply(200, b"computeMetadata/", headers)
        if path == "/computeMetadata/v1/project/project-id":
            return Reply(200, self.metadata_project.encode(), headers)
        if path.endswith("/service-accounts/default/token"):
            return Reply(200, {"access_token": self._issue(), "expires_in": 3599, "token_type": "Bearer"},
                         {"Metadata-Flavor": "Google"})
        if path.endswith("/service-accounts/default") or path.endswith("/service-accounts/default/email"):
            body = {"email": "external-dns@test.iam.gserviceaccount.com", "scopes": ["cloud-platform"],
                    "aliases": ["default"]}
            return Reply(200, body, {"Metadata-Flavor": "Google"})
        return Reply(404, b"not found", headers)

    def _route(self, request: Request) -> Reply:
        parts = [p for p in request.path.split("/") if p]
        if parts[:3] != ["dns", "v1", "projects"] or len(parts) < 5 or parts[4] != "managedZones":
            raise APIError(404, "notFound", f"no such path {request.path}")
        if parts[3] != self.project:
            raise APIError(403, "forbidden", f"The caller does not have permission on project {parts[3]}")
        if len(parts) == 5 and request.method == "GET":
            return self._list(request, [z for z in self.zones.values()
                                        if request.arg("dnsName") in (None, z["dnsName"])], "managedZones",
                              "dns#managedZonesListResponse")
        zone = parts[5] if len(parts) > 5 else ""
        if zone not in self.zones:
            raise APIError(404, "notFound", f"The 'parameters.managedZone' resource named '{zone}' does not exist.")
        rest = parts[6:]
        if rest == ["rrsets"] and request.method == "GET":
            return self._list_rrsets(zone, request)
        if rest == ["changes"] and request.method == "POST":
            return Reply(200, self._change(zone, request))
        if len(rest) == 2 and rest[0] == "changes" and request.method == "GET":
            found = [c for c in self.changes[zone] if c["id"] == rest[1]]
            if not found:
                raise APIError(404, "notFound", f"The 'parameters.changeId' resource named '{rest[1]}' does not exist.")
            return Reply(200, found[0])
        raise APIError(404, "notFound", f"no such path {request.path}")

    def _list(self, request: Request, items: list[dict[str, Any]], key: str, kind: str) -> Reply:
        try:
            size = int(request.arg("maxResults") or self.page_limit)
            start = int(base64.b64decode(request.arg("pageToken") or "MA==").decode() or 0)
        except ValueError:
            raise APIError(400, "invalid", "Invalid value for maxResults or pageToken") from None
        size = max(1, min(size, self.page_limit))
        body: dict[str, Any] = {"kind": kind, key: items[start:start + size]}
        if start + size < len(items):
            body["nextPageToken"] = base64.b64encode(str(start + size).encode()).decode()
        return Reply(200, body)

    def _list_rrsets(self, zone: str, request: Request) -> Reply:
        name, rtype = request.arg("name"), request.arg("type")
        if rtype is not None and name is None:
            raise APIError(400, "invalid", "The 'parameters.type' field requires the 'parameters.name' field.")
        items = [v for (n, t), v in sorted(self.data[zone].items())
                 if (name is None or n == name) and (rtype is None or t == rtype)]
        return self._list(request, items, "rrsets", "dns#resourceRecordSetsListResponse")

    # -- changes --------------------------------------------------------------------------------------------
    def _check_schema(self, value: Any, schema: dict[str, Any], where: str) -> None:
        """The request body against the discovery document's schema (types, unknown fields)."""
        if "$ref" in schema:
            schema = self.schemas[schema["$ref"]]
        kind = schema.get("type")
        if kind == "object":
            if not isinstance(value, dict):
                raise APIError(400, "invalid", f"Invalid JSON payload received. Expected an object at '{where}'.")
            props = schema.get("properties", {})
            for key, item in value.items():
                if key not in props:
                    raise APIError(400, "invalid", f"Invalid JSON payload received. Unknown name \"{key}\" at "
                                                   f"'{where}': Cannot find field.")
                self._check_schema(item, props[key], f"{where}.{key}")
        elif kind == "array":
            if not isinstance(value, list):
                raise APIError(400, "invalid", f"Invalid JSON payload received. Expected a list at '{where}'.")
            for i, item in enumerate(value):
                self._check_schema(item, schema["items"], f"{where}[{i}]")
        elif kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).lstrip("-").isdigit():
                raise APIError(400, "invalid", f"Invalid value at '{where}' (TYPE_INT32), {value!r}")
            if schema.get("format") == "int32" and not -2**31 <= int(value) < 2**31:
                raise APIError(400, "invalid", f"Invalid value at '{where}' (TYPE_INT32), {value!r}")
        elif kind == "string" and not isinstance(value, str):
            raise APIError(400, "invalid", f"Invalid value at '{where}' (TYPE_STRING), {value!r}")
        elif kind == "boolean" and not isinstance(value, bool):
            raise APIError(400, "invalid", f"Invalid value at '{where}' (TYPE_BOOL), {value!r}")

    def _check_rrset(self, zone: str, rrset: dict[str, Any], where: str) -> dict[str, Any]:
        dns_name = self.zones[zone]["dnsName"]
        name, rtype, rrdatas = rrset.get("name", ""), rrset.get("type", ""), rrset.get("rrdatas") or []
        if not name.endswith(".") or not (name == dns_name or name.endswith("." + dns_name)):
            raise APIError(400, "invalid", f"Invalid value for '{where}.name': '{name}'")
        if name != name.lower():
            name = name.lower()  # Cloud DNS stores owner names in lower case
        if not rtype or not rrdatas:
            raise APIError(400, "required", f"Required field '{where}.{'type' if not rtype else 'rrdata'}' not "
                                            "specified")
        if len(rrdatas) > self.quota["rrdataPerRrset"]:
            raise APIError(403, "quotaExceeded", f"Quota exceeded for quota metric 'rrdataPerRrset' at '{where}'")
        for i, data in enumerate(rrdatas):
            bad = False
            if rtype in ("A", "AAAA"):
                try:
                    bad = ipaddress.ip_address(data).version != (4 if rtype == "A" else 6)
                except ValueError:
                    bad = True
            elif rtype in HOST_TYPES:
                bad = not data.split()[-1].endswith(".")
            if bad:
                raise APIError(400, "invalid", f"Invalid value for '{where}.rrdata[{i}]': '{data}'")
        ttl = int(rrset.get("ttl", 0))
        if ttl < 0:
            raise APIError(400, "invalid", f"Invalid value for '{where}.ttl': '{ttl}'")
        return {"kind": "dns#resourceRecordSet", "name": name, "type": rtype, "ttl": ttl, "rrdatas": list(rrdatas)}

    def _change(self, zone: str, request: Request) -> dict[str, Any]:
        try:
            body = request.json()
        except ValueError:
            raise APIError(400, "parseError", "Parse Error") from None
        self._check_schema(body, {"$ref": "Change"}, "change")
        additions = body.get("additions") or []
        deletions = body.get("deletions") or []
        if not additions and not deletions:
            raise APIError(400, "required", "The 'entity.change' resource has no additions or deletions.")
        if len(additions) > self.quota["rrsetAdditionsPerChange"]:
            raise APIError(403, "quotaExceeded", "Quota exceeded for quota metric 'rrsetAdditionsPerChange'")
        if len(deletions) > self.quota["rrsetDeletionsPerChange"]:
            raise APIError(403, "quotaExceeded", "Quota exceeded for quota metric 'rrsetDeletionsPerChange'")
        data = dict(self.data[zone])
        for i, raw in enumerate(deletions):
            rrset = self._check_rrset(zone, raw, f"entity.change.deletions[{i}]")
            key = (rrset["name"], rrset["type"])
            current = data.get(key)
            if current is None or current["ttl"] != rrset["ttl"] or \
                    sorted(current["rrdatas"]) != sorted(rrset["rrdatas"]):
                raise APIError(412, "conditionNotMet", f"Precondition not met for 'entity.change.deletions[{i}]'")
            del data[key]
        for i, raw in enumerate(additions):
            rrset = self._check_rrset(zone, raw, f"entity.change.additions[{i}]")
            key = (rrset["name"], rrset["type"])
            if key in data:
                raise APIError(409, "alreadyExists", f"The resource 'entity.change.additions[{i}]' named "
                                                     f"'{key[0]} ({key[1]})' already exists")
            others = {t for (n, t) in data if n == key[0]}
            if others and ("CNAME" in others or key[1] == "CNAME"):
                raise APIError(400, "cnameResourceRecordSetConflict",
                               f"The resource record set 'entity.change.additions[{i}]' is invalid because a CNAME "
                               "resource record set cannot coexist with other resource record sets at that name.")
            data[key] = rrset
        self.data[zone] = data
        change = {"kind": "dns#change", "id": str(len(self.changes[zone]) + 1), "status": "done",
                  "startTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                  "additions": additions, "deletions": deletions}
        self.changes[zone].append(change)
        return change


def _error(status: int, reason: str, message: str) -> Reply:
    return Reply(status, {"error": {"code": status, "message": message, "status": STATUS.get(status, "UNKNOWN"),
                                    "errors": [{"domain": "global", "reason": reason, "message": message}]}})
