"""Structural-schema validation and pruning for custom resources, as the API server applies a CRD's
openAPIV3Schema: wrong types are 422 Invalid (FieldValueTypeInvalid), unknown fields are silently dropped.

Only the DNSEndpoint CRD (externaldns.k8s.io/v1alpha1, from external-dns' config/crd) has a full schema here;
kinds without a schema keep every field (x-kubernetes-preserve-unknown-fields).
"""

from __future__ import annotations

import json
from typing import Any

from tests.kubeapi.errors import invalid
from tests.kubeapi.resources import ResourceType

Schema = dict[str, Any]

_STR: Schema = {"type": "string"}
_INT: Schema = {"type": "integer"}

DNSENDPOINT_SCHEMA: Schema = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "endpoints": {"type": "array", "items": {"type": "object", "properties": {
                "dnsName": _STR,
                "labels": {"type": "object", "additionalProperties": _STR},
                "providerSpecific": {"type": "array", "items": {
                    "type": "object", "properties": {"name": _STR, "value": _STR}}},
                "recordTTL": _INT,
                "recordType": _STR,
                "setIdentifier": _STR,
                "targets": {"type": "array", "items": _STR},
            }}},
        }},
        "status": {"type": "object", "properties": {"observedGeneration": _INT}},
    },
}

SCHEMAS: dict[tuple[str, str], Schema] = {("externaldns.k8s.io/v1alpha1", "DNSEndpoint"): DNSENDPOINT_SCHEMA}
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


def _walk(value: Any, schema: Schema, path: str, errors: list[tuple[str, str, str]]) -> Any:
    typ = schema.get("type")
    if value is None:
        return None
    if typ and not _type_ok(value, typ):
        shown = json.dumps(value) if not isinstance(value, (dict, list)) else f'"{_GO_TYPE[type(value)]}"'
        errors.append((path, "FieldValueTypeInvalid",
                       f'Invalid value: "{_GO_TYPE.get(type(value), "unknown")}": {path} in body must be of type '
                       f"{typ}: {shown}"))
        return value
    if typ == "object":
        props: dict[str, Schema] | None = schema.get("properties")
        extra: Schema | None = schema.get("additionalProperties")
        out: dict[str, Any] = {}
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
        raise invalid(rt.kind, str(obj.get("metadata", {}).get("name", "")), sorted(errors), rt.group)
    return out
