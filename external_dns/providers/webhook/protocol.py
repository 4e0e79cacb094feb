"""Wire format of the external-dns webhook protocol, shared by client and server.

Owns the media type, the paths, and decoding of request/response bodies into our types. Decoding accepts
keys in any letter case, as Go's `encoding/json` does (`Create`, `dnsname`, ...), and every error names the
offending field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"
PATH_RECORDS = "/records"
PATH_ADJUST = "/adjustendpoints"
PATH_HEALTHZ = "/healthz"
PATH_METRICS = "/metrics"

_ENDPOINT_KEYS = ("dnsName", "targets", "recordType", "setIdentifier", "recordTTL", "labels", "providerSpecific")
_CHANGES_KEYS = ("create", "updateOld", "updateNew", "delete")
_PS_KEYS = ("name", "value")


def _fold(obj: Mapping[str, Any], canonical: tuple[str, ...]) -> dict[str, Any]:
    by_lower = {k.lower(): k for k in canonical}
    out: dict[str, Any] = {}
    for key, value in obj.items():
        out[by_lower.get(str(key).lower(), str(key))] = value
    return out


def _fold_endpoint(obj: Any) -> Any:
    if not isinstance(obj, Mapping):
        return obj
    ep = _fold(obj, _ENDPOINT_KEYS)
    ps = ep.get("providerSpecific")
    if isinstance(ps, list):
        ep["providerSpecific"] = [_fold(p, _PS_KEYS) if isinstance(p, Mapping) else p for p in ps]
    return ep


def is_media_type(content_type: str | None, allow_json: bool = False) -> bool:
    """True for our media type (exact, ignoring spaces around `;` and letter case); with `allow_json`
    also plain `application/json`."""
    if not content_type:
        return False
    norm = ";".join(part.strip() for part in content_type.lower().split(";"))
    if norm == MEDIA_TYPE:
        return True
    return allow_json and norm.split(";")[0] == "application/json"


def decode_json(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"invalid JSON: {exc}") from None
    except RecursionError:  # hostile nesting (`[[[[...`): the decoder recurses once per level
        raise ValueError("invalid JSON: nested too deeply") from None


def endpoints_from_body(body: bytes) -> list[Endpoint]:
    data = decode_json(body)
    if not isinstance(data, list):
        raise ValueError("expected a JSON array of endpoints")
    out: list[Endpoint] = []
    for i, item in enumerate(data):
        try:
            out.append(Endpoint.from_json(_fold_endpoint(item)))
        except ValueError as exc:
            raise ValueError(f"endpoint [{i}]: {exc}") from None
    return out


def changes_from_body(body: bytes) -> Changes:
    data = decode_json(body)
    if not isinstance(data, Mapping):
        raise ValueError("expected a JSON object with create/updateOld/updateNew/delete")
    folded = _fold(data, _CHANGES_KEYS)
    for key in _CHANGES_KEYS:
        value = folded.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise ValueError(f"changes field '{key}' must be a list")
        folded[key] = [_fold_endpoint(item) for item in value]
    try:
        changes = Changes.from_json(folded)
    except ValueError as exc:
        raise ValueError(f"changes: {exc}") from None
    if len(changes.update_old) != len(changes.update_new):
        raise ValueError(f"changes: updateOld has {len(changes.update_old)} endpoints but updateNew has "
                         f"{len(changes.update_new)}; they must be pairs")
    return changes


def endpoints_to_body(endpoints: list[Endpoint]) -> bytes:
    return json.dumps([e.to_json() for e in endpoints], separators=(",", ":")).encode()


def to_body(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()
