"""Gateway API kinds the test API server serves (gateway.networking.k8s.io): Gateway, HTTPRoute, GRPCRoute and
ListenerSet (standard since v1.5) in v1, TLSRoute, TCPRoute and UDPRoute in v1alpha2 (the experimental
channel), all namespaced custom resources with a status subresource.

Their structural schemas cover the fields external-dns reads, with the upstream CRDs' rules on them
(patterns, enums, ranges, required fields, list bounds): host names, listeners (name, hostname, port,
protocol, allowedRoutes), parentRefs, route parent statuses with metav1.Conditions, Gateway addresses.
Structural defaults are applied (parentRef group and kind, a listener's allowedRoutes `from: Same`, an
HTTPRoute's default rule). Fields not listed at a level whose properties are listed are pruned, as the real server prunes fields a
CRD does not declare; the levels we do not read (rules, tls, infrastructure) keep everything.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

GROUP = "gateway.networking.k8s.io"

_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_HOSTNAME: Schema = {"type": "string", "minLength": 1, "maxLength": 253,
                     "pattern": r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"}
_SECTION_NAME: Schema = {"type": "string", "minLength": 1, "maxLength": 253, "pattern": _DNS_SUBDOMAIN}
_GROUP: Schema = {"type": "string", "maxLength": 253, "pattern": r"^$|" + _DNS_SUBDOMAIN}
_KIND: Schema = {"type": "string", "minLength": 1, "maxLength": 63, "pattern": r"^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"}
_NAMESPACE: Schema = {"type": "string", "minLength": 1, "maxLength": 63, "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}
_NAME: Schema = {"type": "string", "minLength": 1, "maxLength": 253}
_PORT: Schema = {"type": "integer", "minimum": 1, "maximum": 65535}
_PROTOCOL: Schema = {"type": "string", "minLength": 1, "maxLength": 255,
                     "pattern": r"^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|" + _DNS_SUBDOMAIN[1:-1]
                                + r"\/[A-Za-z0-9]+$"}

PARENT_REF: Schema = {"type": "object", "required": ["name"], "properties": {
    "group": {**_GROUP, "default": GROUP}, "kind": {**_KIND, "default": "Gateway"}, "namespace": _NAMESPACE, "name": _NAME, "sectionName": _SECTION_NAME,
    "port": _PORT}}

CONDITION: Schema = {"type": "object", "required": ["lastTransitionTime", "message", "reason", "status", "type"],
                     "properties": {
                         "type": {"type": "string", "maxLength": 316, "pattern":
                                  r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                                  r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"},
                         "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                         "observedGeneration": {"type": "integer", "minimum": 0},
                         "lastTransitionTime": {"type": "string", "format": "date-time"},
                         "reason": {"type": "string", "minLength": 1, "maxLength": 1024,
                                    "pattern": r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},
                         "message": {"type": "string", "maxLength": 32768},
                     }}

_CONDITIONS: Schema = {"type": "array", "maxItems": 8, "items": CONDITION}

_ROUTE_STATUS: Schema = {"type": "object", "required": ["parents"], "properties": {
    "parents": {"type": "array", "maxItems": 32, "items": {
        "type": "object", "required": ["controllerName", "parentRef"], "properties": {
            "parentRef": PARENT_REF,
            "controllerName": {"type": "string", "minLength": 1, "maxLength": 253},
            "conditions": {**_CONDITIONS, "minItems": 1},
        }}},
}}

_PARENT_REFS: Schema = {"type": "array", "maxItems": 32, "items": PARENT_REF}
_HOSTNAMES: Schema = {"type": "array", "maxItems": 16, "items": _HOSTNAME}
_RULES: Schema = {"type": "array", "maxItems": 16, "items": {"type": "object"}}
_HTTP_RULES_DEFAULT = [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}]


def _route(with_hostnames: bool, rules_required: bool, rules_default: list[Any] | None = None) -> Schema:
    rules = {**_RULES, "default": rules_default} if rules_default is not None else _RULES
    spec: Schema = {"type": "object", "properties": {"parentRefs": _PARENT_REFS, "rules": rules}}
    if with_hostnames:
        spec["properties"]["hostnames"] = _HOSTNAMES
    if rules_required:
        spec["required"] = ["rules"]
        spec["properties"]["rules"] = {**_RULES, "minItems": 1}
    return {"type": "object", "required": ["spec"], "properties": {"spec": spec, "status": _ROUTE_STATUS}}


_LISTENER: Schema = {"type": "object", "required": ["name", "port", "protocol"], "properties": {
    "name": _SECTION_NAME,
    "hostname": _HOSTNAME,
    "port": _PORT,
    "protocol": _PROTOCOL,
    "tls": {"type": "object"},
    "allowedRoutes": {"type": "object", "default": {"namespaces": {"from": "Same"}}, "properties": {
        "namespaces": {"type": "object", "default": {"from": "Same"}, "properties": {
            "from": {"type": "string", "enum": ["All", "Selector", "Same"], "default": "Same"},
            "selector": {"type": "object"},
        }},
        "kinds": {"type": "array", "maxItems": 8, "items": {
            "type": "object", "required": ["kind"], "properties": {"group": {**_GROUP, "default": GROUP},
                                                                    "kind": _KIND}}},
    }},
}}

_ALLOWED_LISTENERS: Schema = {"type": "object", "properties": {
    "namespaces": {"type": "object", "default": {"from": "None"}, "properties": {
        "from": {"type": "string", "enum": ["All", "Selector", "Same", "None"], "default": "None"},
        "selector": {"type": "object"},
    }},
}}

GATEWAY_SCHEMA: Schema = {"type": "object", "required": ["spec"], "properties": {
    "spec": {"type": "object", "required": ["gatewayClassName", "listeners"], "properties": {
        "gatewayClassName": _NAME,
        "listeners": {"type": "array", "minItems": 1, "maxItems": 64, "items": _LISTENER},
        "allowedListeners": _ALLOWED_LISTENERS,
        "addresses": {"type": "array", "maxItems": 16, "items": {"type": "object"}},
        "infrastructure": {"type": "object"},
    }},
    "status": {"type": "object", "properties": {
        "addresses": {"type": "array", "maxItems": 16, "items": {
            "type": "object", "required": ["value"], "properties": {
                "type": {"type": "string", "minLength": 1, "maxLength": 253,
                         "pattern": r"^Hostname|IPAddress|NamedAddress|" + _DNS_SUBDOMAIN[1:-1] + r"\/[a-zA-Z0-9]+$"},
                "value": {"type": "string", "minLength": 1, "maxLength": 253}}}},
        "conditions": _CONDITIONS,
        "listeners": {"type": "array", "maxItems": 64, "items": {"type": "object"}},
    }},
}}

LISTENER_SET_SCHEMA: Schema = {"type": "object", "required": ["spec"], "properties": {
    "spec": {"type": "object", "required": ["parentRef", "listeners"], "properties": {
        "parentRef": {"type": "object", "required": ["name"], "properties": {
            "group": {**_GROUP, "default": GROUP}, "kind": {**_KIND, "default": "Gateway"}, "namespace": _NAMESPACE,
            "name": _NAME}},
        "listeners": {"type": "array", "minItems": 1, "maxItems": 64, "items": _LISTENER},
    }},
    "status": {"type": "object", "properties": {
        "conditions": _CONDITIONS,
        "listeners": {"type": "array", "maxItems": 64, "items": {
            "type": "object", "required": ["name"], "properties": {"name": _SECTION_NAME, "conditions": _CONDITIONS,
                                                                   "attachedRoutes": {"type": "integer"},
                                                                   "supportedKinds": {"type": "array"}}}},
    }},
}}

SCHEMAS: dict[tuple[str, str], Schema] = {
    (f"{GROUP}/v1", "Gateway"): GATEWAY_SCHEMA,
    (f"{GROUP}/v1", "ListenerSet"): LISTENER_SET_SCHEMA,
    (f"{GROUP}/v1", "HTTPRoute"): _route(with_hostnames=True, rules_required=False, rules_default=_HTTP_RULES_DEFAULT),
    (f"{GROUP}/v1", "GRPCRoute"): _route(with_hostnames=True, rules_required=False),
    (f"{GROUP}/v1alpha2", "TLSRoute"): _route(with_hostnames=True, rules_required=True),
    (f"{GROUP}/v1alpha2", "TCPRoute"): _route(with_hostnames=False, rules_required=True),
    (f"{GROUP}/v1alpha2", "UDPRoute"): _route(with_hostnames=False, rules_required=True),
}
