"""Structural-schema validation and pruning for custom resources, as the API server applies a CRD's
openAPIV3Schema: wrong types are 422 Invalid (FieldValueTypeInvalid), unknown fields are silently dropped.

Schemas: DNSEndpoint (externaldns.k8s.io/v1alpha1, external-dns' config/crd) and DNSRecord (kuadrant.io/v1alpha1:
spec.rootHost required, 1-255 chars; spec.ownerID 6-36 chars; both immutable, checked by `check_transition`);
kinds without a schema keep every field (x-kubernetes-preserve-unknown-fields). Supported keywords: type,
properties, additionalProperties, items, required, minLength, maxLength, enum, pattern, minimum, maximum,
minItems, maxItems, default. Gateway API kinds: gateway_api.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.kubeapi.errors import invalid
from tests.kubeapi.gateway_api import SCHEMAS as GATEWAY_API_SCHEMAS
from tests.kubeapi.resources import ResourceType

Schema = dict[str, Any]

_STR: Schema = {"type": "string"}
_INT: Schema = {"type": "integer"}

_ENDPOINTS: Schema = {"type": "array", "items": {"type": "object", "properties": {
    "dnsName": _STR,
    "labels": {"type": "object", "additionalProperties": _STR},
    "providerSpecific": {"type": "array", "items": {
        "type": "object", "properties": {"name": _STR, "value": _STR}}},
    "recordTTL": _INT,
    "recordType": _STR,
    "setIdentifier": _STR,
    "targets": {"type": "array", "items": _STR},
}}}

DNSENDPOINT_SCHEMA: Schema = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {"endpoints": _ENDPOINTS}},
        "status": {"type": "object", "properties": {"observedGeneration": _INT}},
    },
}

DNSRECORD_SCHEMA: Schema = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "required": ["rootHost"], "properties": {
            "ownerID": {"type": "string", "minLength": 6, "maxLength": 36},
            "rootHost": {"type": "string", "minLength": 1, "maxLength": 255},
            "providerRef": {"type": "object", "required": ["name"], "properties": {"name": _STR}},
            "endpoints": _ENDPOINTS,
            "healthCheck": {"type": "object"},
            "delegate": {"type": "boolean"},
        }},
        "status": {"type": "object"},
    },
}

SCHEMAS: dict[tuple[str, str], Schema] = {
    ("externaldns.k8s.io/v1alpha1", "DNSEndpoint"): DNSENDPOINT_SCHEMA,
    ("kuadrant.io/v1alpha1", "DNSRecord"): DNSRECORD_SCHEMA,
    **GATEWAY_API_SCHEMAS,
}
# (kind, field) -> message of the CEL immutability rule on that spec field.
IMMUTABLE: dict[tuple[str, str], tuple[str, str]] = {
    ("kuadrant.io/v1alpha1", "DNSRecord"): ("rootHost", "RootHost is immutable"),
}
_OWNER_ID_RULE = "OwnerID is immutable"
_ROOT_KEEP = ("apiVersion", "kind", "metadata")


def _type_ok(value: Any, typ: str) -> bool:
    if typ == "object":
        return isinstance(value, dict)
    if typ == "array":
        return isinstance(value, list)
    if typ == "string":
        return isinstance(value, str)
    if typ == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if typ == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if typ == "boolean":
        return isinstance(value, bool)
    return True


_GO_TYPE = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean"}


def _check_value(value: Any, schema: Schema, path: str, errors: list[tuple[str, str, str]]) -> None:
    """enum, pattern, minimum/maximum, minItems/maxItems, with the API server's messages."""
    shown = json.dumps(value) if isinstance(value, (str, int, float)) else ""
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        errors.append((path, "FieldValueNotSupported", f"Unsupported value: {shown}: supported values: "
                       + ", ".join(json.dumps(e) for e in enum)))
    pattern = schema.get("pattern")
    if pattern is not None and isinstance(value, str) and re.search(pattern, value) is None:
        errors.append((path, "FieldValueInvalid", f"Invalid value: {shown}: {path} in body should match '{pattern}'"))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if schema.get("minimum") is not None and value < schema["minimum"]:
            errors.append((path, "FieldValueInvalid", f"Invalid value: {shown}: {path} in body should be greater "
                                                      f"than or equal to {schema['minimum']}"))
        if schema.get("maximum") is not None and value > schema["maximum"]:
            errors.append((path, "FieldValueInvalid", f"Invalid value: {shown}: {path} in body should be less "
                                                      f"than or equal to {schema['maximum']}"))
    if isinstance(value, list):
        if schema.get("minItems") is not None and len(value) < schema["minItems"]:
            errors.append((path, "FieldValueInvalid", f"Invalid value: {len(value)}: {path} in body should have "
                                                      f"at least {schema['minItems']} items"))
        if schema.get("maxItems") is not None and len(value) > schema["maxItems"]:
            errors.append((path, "FieldValueTooMany", f"Too many: {len(value)}: must have at most "
                                                      f"{schema['maxItems']} items"))


def _walk(value: Any, schema: Schema, path: str, errors: list[tuple[str, str, str]]) -> Any:
    typ = schema.get("type")
    if value is None:
        return None
    if typ and not _type_ok(value, typ):
        shown = f'"{_GO_TYPE.get(type(value), "unknown")}"'  # the real server shows the type, not the value
        errors.append((path, "FieldValueTypeInvalid",
                       f'Invalid value: "{_GO_TYPE.get(type(value), "unknown")}": {path} in body must be of type '
                       f"{typ}: {shown}"))
        return value
    _check_value(value, schema, path, errors)
    if typ == "string":
        lo, hi = schema.get("minLength"), schema.get("maxLength")
        if lo is not None and len(value) < lo:
            errors.append((path, "FieldValueInvalid", f'Invalid value: "{value}": {path} in body should be at least '
                                                      f"{lo} chars long"))
        if hi is not None and len(value) > hi:
            errors.append((path, "FieldValueTooLong", f"Too long: may not be more than {hi} bytes"))
    if typ == "object":
        for req in schema.get("required", ()):
            if value.get(req) is None:
                errors.append((f"{path}.{req}", "FieldValueRequired", "Required value"))
        props: dict[str, Schema] | None = schema.get("properties")
        extra: Schema | None = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for k, sub in (props or {}).items():  # structural defaults of absent fields, as the API server
            if k not in value and "default" in sub:
                value = {**value, k: json.loads(json.dumps(sub["default"]))}
        for k, v in value.items():
            if props is not None and k in props:
                out[k] = _walk(v, props[k], f"{path}.{k}", errors)
            elif extra is not None:
                out[k] = _walk(v, extra, f"{path}.{k}", errors)
            elif props is None:
                out[k] = v
            # else: unknown field, pruned
        return out
    if typ == "array" and "items" in schema:
        return [_walk(v, schema["items"], f"{path}[{i}]", errors) for i, v in enumerate(value)]
    return value


def validate_and_prune(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` with unknown fields pruned; 422 Invalid listing every type error."""
    schema = SCHEMAS.get(rt.gvk)
    if schema is None:
        return obj
    errors: list[tuple[str, str, str]] = []
    out: dict[str, Any] = {k: obj[k] for k in _ROOT_KEEP if k in obj}
    for k, sub in schema["properties"].items():
        if k in obj:
            out[k] = _walk(obj[k], sub, k, errors)
    if errors:
        errors.sort()
        # a CRD with CEL rules and an error that stops them from running (a missing or mistyped field): the
        # real server says they were not run
        if rt.gvk in IMMUTABLE and any(r in ("FieldValueRequired", "FieldValueTypeInvalid") for _f, r, _m in errors):
            errors.append(("<nil>", "FieldValueInvalid", "Invalid value: null: some validation rules were not checked "
                           "because the object was invalid; correct the existing errors to complete validation"))
        raise invalid(rt.kind, str(obj.get("metadata", {}).get("name", "")), errors, rt.group)
    return out


def check_transition(rt: ResourceType, old: dict[str, Any], new: dict[str, Any]) -> None:
    """CEL transition rules (immutable spec fields) of the CRDs above; 422 Invalid on a change."""
    name = str(old.get("metadata", {}).get("name", ""))
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    causes: list[tuple[str, str, str]] = []
    rule = IMMUTABLE.get(rt.gvk)
    if rule is not None:
        fld, msg = rule
        if old_spec.get(fld) != new_spec.get(fld):
            # the rule sits on the field itself: the real server shows the new value
            causes.append((f"spec.{fld}", "FieldValueInvalid", f"Invalid value: {json.dumps(new_spec.get(fld))}: {msg}"))
    if rt.gvk == ("kuadrant.io/v1alpha1", "DNSRecord") and old_spec.get("ownerID") != new_spec.get("ownerID"):
        causes.append(("spec", "FieldValueInvalid", f'Invalid value: "object": {_OWNER_ID_RULE}'))
    if causes:
        raise invalid(rt.kind, name, causes, rt.group)
