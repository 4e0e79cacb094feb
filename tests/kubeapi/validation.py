"""Validation the real API server applies to what this project sends: object names (DNS-1123 subdomain,
RFC 1123 label, RFC 1035 label), MicroTime fields (exactly six fraction digits), immutable fields.

Errors are `ApiError`s: 422 Invalid for field validation, 400 BadRequest for undecodable values, as
kube-apiserver answers them.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from tests.kubeapi.errors import ApiError, bad_request, invalid
from tests.kubeapi.resources import ResourceType

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
# RFC3339 with exactly 6 fraction digits, as Go's "2006-01-02T15:04:05.000000Z07:00" layout demands.
_MICRO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$")
_MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00"


def name_problem(name: str, rule: str) -> str | None:
    """The API server's message for an invalid `name` under `rule`, or None when valid."""
    if rule == "label":
        if len(name) > 63:
            return "must be no more than 63 characters"
        if not _LABEL.match(name):
            return ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
                    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
        return None
    if rule == "dns1035":
        if len(name) > 63:
            return "must be no more than 63 characters"
        if not _DNS1035.match(name):
            return ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
        return None
    if len(name) > 253:
        return "must be no more than 253 characters"
    if not _SUBDOMAIN.match(name):
        return ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    return None


def validate_name(rt: ResourceType, name: Any, generate_name: Any = None) -> None:
    """422 Invalid when metadata.name is missing or not a valid name for `rt`."""
    if not name:
        if generate_name:
            return
        raise invalid(rt.kind, "", [("metadata.name", "FieldValueRequired",
                                     "Required value: name or generateName is required")], rt.group)
    if not isinstance(name, str):
        raise bad_request(f"{rt.kind} in version \"{rt.version}\" cannot be handled as a {rt.kind}: "
                          f"metadata.name must be a string")
    problem = name_problem(name, rt.name_rule)
    if problem:
        raise invalid(rt.kind, name, [("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {problem}')],
                      rt.group)


def _get_path(obj: dict[str, Any], dotted: str) -> Any:
    cur: Any = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def validate_micro_times(rt: ResourceType, obj: dict[str, Any]) -> None:
    """400 BadRequest (a decode error, as the real server) when a MicroTime field lacks 6 fraction digits."""
    for path in rt.micro_time_fields:
        value = _get_path(obj, path)
        if value is None:
            continue
        if not isinstance(value, str) or not _MICRO.match(value):
            raise bad_request(micro_time_message(rt, value))


def micro_time_message(rt: ResourceType, value: Any) -> str:
    detail = _go_parse_detail(value) if isinstance(value, str) else "not a string"
    return (f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: parsing time "{value}" as '
            f'"{_MICRO_LAYOUT}": {detail}')


def _go_parse_detail(value: str) -> str:
    m = re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", value)
    if not m:
        return f'cannot parse "{value}" as "2006"'
    rest = value[m.end():]
    return f'cannot parse "{rest}" as ".000000"'


def check_no_new_finalizers(rt: ResourceType, name: str, old: dict[str, Any], new: dict[str, Any]) -> ApiError | None:
    """Once deletionTimestamp is set, finalizers may only be removed (422 Forbidden otherwise)."""
    old_f = set(old.get("metadata", {}).get("finalizers") or [])
    new_f = set(new.get("metadata", {}).get("finalizers") or [])
    added = new_f - old_f
    if old.get("metadata", {}).get("deletionTimestamp") and added:
        return invalid(rt.kind, name, [("metadata.finalizers", "FieldValueForbidden",
                                        f"Forbidden: no new finalizers can be added if the object is being "
                                        f"deleted, found new finalizers []string{{{', '.join(repr(a) for a in sorted(added))}}}")],
                       rt.group)
    return None


_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def _key_problem(key: Any) -> str | None:
    if not isinstance(key, str) or not key:
        return "name part must be non-empty"
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
               "or '.', and must start and end with an alphanumeric character"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME.match(name):
        return ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
    return None


def validate_metadata(rt: ResourceType, obj: dict[str, Any]) -> None:
    """422 Invalid for malformed label keys/values, annotation keys, or non-string label/annotation values."""
    meta = obj.get("metadata") or {}
    name = str(meta.get("name") or "")
    causes: list[tuple[str, str, str]] = []
    for fld in ("labels", "annotations"):
        values = meta.get(fld)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                              f"metadata.{fld} must be a map of strings")
        for key, value in values.items():
            problem = _key_problem(key)
            if problem:
                causes.append((f"metadata.{fld}", "FieldValueInvalid", f'Invalid value: "{key}": {problem}'))
            if not isinstance(value, str):
                raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                  f"metadata.{fld}[{key!r}] must be a string, got {json_type(value)}")
            if fld == "labels" and (len(value) > 63 or not _LABEL_VALUE.match(value)):
                causes.append(("metadata.labels", "FieldValueInvalid",
                               f'Invalid value: "{value}": a valid label must be an empty string or consist of '
                               f"alphanumeric characters, '-', '_' or '.', and must start and end with an "
                               f"alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
                               f"for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"))
    finalizers = meta.get("finalizers")
    if finalizers is not None and (not isinstance(finalizers, list)
                                   or not all(isinstance(f, str) for f in finalizers)):
        raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                          f"metadata.finalizers must be a list of strings")
    if causes:
        raise invalid(rt.kind, name, causes, rt.group)


def json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", int: "number", float: "number",
            bool: "bool"}.get(type(value), "null")


def validate_service(obj: dict[str, Any]) -> None:
    """Service spec rules clients trip over: ports required (unless ExternalName/headless), port ranges."""
    spec = obj.get("spec") or {}
    name = str((obj.get("metadata") or {}).get("name") or "")
    stype = spec.get("type", "ClusterIP")
    if stype not in ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"):
        raise invalid("Service", name, [("spec.type", "FieldValueNotSupported",
                                         f'Unsupported value: "{stype}": supported values: "ClusterIP", '
                                         f'"ExternalName", "LoadBalancer", "NodePort"')])
    ports = spec.get("ports") or []
    if not isinstance(ports, list):
        raise bad_request('Service in version "v1" cannot be handled as a Service: spec.ports must be a list')
    if stype == "ExternalName":
        if not spec.get("externalName"):
            raise invalid("Service", name, [("spec.externalName", "FieldValueRequired", "Required value")])
        return
    if not ports and spec.get("clusterIP") != "None":
        raise invalid("Service", name, [("spec.ports", "FieldValueRequired", "Required value")])
    causes: list[tuple[str, str, str]] = []
    for i, port in enumerate(ports):
        value = port.get("port") if isinstance(port, dict) else None
        if not isinstance(value, int) or isinstance(value, bool):
            causes.append((f"spec.ports[{i}].port", "FieldValueRequired", "Required value"))
        elif not 1 <= value <= 65535:
            causes.append((f"spec.ports[{i}].port", "FieldValueInvalid",
                           f"Invalid value: {value}: must be between 1 and 65535, inclusive"))
            if isinstance(port, dict) and port.get("targetPort") in (None, value):  # defaulted from port first
                causes.append((f"spec.ports[{i}].targetPort", "FieldValueInvalid",
                               f"Invalid value: {value}: must be between 1 and 65535, inclusive"))
        if len(ports) > 1 and isinstance(port, dict) and not port.get("name"):
            causes.append((f"spec.ports[{i}].name", "FieldValueRequired", "Required value"))
    if causes:
        raise invalid("Service", name, causes)


def validate_kind(rt: ResourceType, obj: dict[str, Any]) -> None:
    """Per-kind required fields the real server enforces (Service, Pod, EndpointSlice, events.k8s.io Event)."""
    name = str((obj.get("metadata") or {}).get("name") or "")
    causes: list[tuple[str, str, str]] = []
    if rt.group == "" and rt.kind == "Service":
        validate_service(obj)
        return
    if rt.group == "" and rt.kind == "Pod":
        containers = (obj.get("spec") or {}).get("containers")
        if not isinstance(containers, list) or not containers:
            causes.append(("spec.containers", "FieldValueRequired", "Required value"))
        else:
            for i, c in enumerate(containers):
                if not isinstance(c, dict) or not c.get("name"):
                    causes.append((f"spec.containers[{i}].name", "FieldValueRequired", "Required value"))
                if not isinstance(c, dict) or not c.get("image"):
                    causes.append((f"spec.containers[{i}].image", "FieldValueRequired", "Required value"))
    elif rt.group == "discovery.k8s.io" and rt.kind == "EndpointSlice":
        at = obj.get("addressType")
        if not at:
            causes.append(("addressType", "FieldValueRequired", "Required value"))
        elif at not in ("IPv4", "IPv6", "FQDN"):
            causes.append(("addressType", "FieldValueNotSupported",
                           f'Unsupported value: "{at}": supported values: "FQDN", "IPv4", "IPv6"'))
        for i, ep in enumerate(obj.get("endpoints") or []):
            addrs = ep.get("addresses") if isinstance(ep, dict) else None
            if not isinstance(addrs, list) or not addrs:
                causes.append((f"endpoints[{i}].addresses", "FieldValueRequired",
                               "Required value: must contain at least 1 address"))
    elif rt.group == "events.k8s.io" and rt.kind == "Event":
        for fld in ("eventTime", "reportingController", "reportingInstance", "action", "reason"):
            if not obj.get(fld):
                causes.append((fld, "FieldValueRequired", "Required value"))
        etype = obj.get("type")
        if etype not in ("Normal", "Warning"):
            causes.append(("type", "FieldValueNotSupported",
                           f'Unsupported value: "{etype or ""}": supported values: "Normal", "Warning"'))
    elif rt.group == "networking.k8s.io" and rt.kind == "Ingress":
        for i, rule in enumerate((obj.get("spec") or {}).get("rules") or []):
            host = rule.get("host") if isinstance(rule, dict) else None
            if host:
                problem = _host_problem(str(host), wildcard_ok=True)
                if problem:
                    causes.append((f"spec.rules[{i}].host", "FieldValueInvalid", f'Invalid value: "{host}": {problem}'))
        for i, tls in enumerate((obj.get("spec") or {}).get("tls") or []):
            for j, host in enumerate((tls or {}).get("hosts") or []):
                problem = _host_problem(str(host), wildcard_ok=True)
                if problem:
                    causes.append((f"spec.tls[{i}].hosts[{j}]", "FieldValueInvalid",
                                   f'Invalid value: "{host}": {problem}'))
    elif rt.group == "events.k8s.io" and rt.kind == "Event":
        regarding = obj.get("regarding")
        about = str(regarding.get("namespace") or "") if isinstance(regarding, dict) else ""
        ns = (obj.get("metadata") or {}).get("namespace", "")
        if about != ns and not (about == "" and ns == "default"):  # cluster-scoped objects' Events: "default"
            causes.append(("involvedObject.namespace", "FieldValueInvalid",
                           f'Invalid value: "{about}": does not match event.namespace'))
    elif rt.group == "" and rt.kind == "Event":
        involved = obj.get("involvedObject")
        if not isinstance(involved, dict):
            causes.append(("involvedObject", "FieldValueRequired", "Required value"))
        else:
            ns = (obj.get("metadata") or {}).get("namespace", "")
            if involved.get("namespace") and involved["namespace"] != ns:
                causes.append(("involvedObject.namespace", "FieldValueInvalid",
                               f'Invalid value: "{involved["namespace"]}": does not match event.namespace'))
    if causes:
        raise invalid(rt.kind, name, causes, rt.group)


def _host_problem(host: str, wildcard_ok: bool = False) -> str | None:
    if _is_ip(host):
        return "must be a DNS name, not an IP address"
    if wildcard_ok and host.startswith("*."):
        host = host[2:]
    return name_problem(host, "subdomain")


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def validate_load_balancer_status(rt: ResourceType, obj: dict[str, Any]) -> None:
    """status.loadBalancer.ingress[]: ip must be an IP, hostname a DNS name (Service and Ingress status)."""
    lb = (obj.get("status") or {}).get("loadBalancer") or {}
    causes: list[tuple[str, str, str]] = []
    if rt.kind == "Service" and lb.get("ingress") and (obj.get("spec") or {}).get("type") != "LoadBalancer":
        causes.append(("status.loadBalancer.ingress", "FieldValueForbidden",
                       "Forbidden: may only be used when `spec.type` is 'LoadBalancer'"))
    for i, ing in enumerate(lb.get("ingress") or []):
        if not isinstance(ing, dict):
            continue
        ip, hostname = ing.get("ip"), ing.get("hostname")
        if ip and not _is_ip(str(ip)):
            causes.append((f"status.loadBalancer.ingress[{i}].ip", "FieldValueInvalid",
                           f'Invalid value: "{ip}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'))
        if hostname:
            problem = _host_problem(str(hostname))
            if problem:
                causes.append((f"status.loadBalancer.ingress[{i}].hostname", "FieldValueInvalid",
                               f'Invalid value: "{hostname}": {problem}'))
    if causes:
        raise invalid(rt.kind, str((obj.get("metadata") or {}).get("name") or ""), causes, rt.group)
