"""DNSEndpoint (externaldns.k8s.io/v1alpha1) -> endpoints (external-dns `source/crd.go`), on raw dicts.

Each `spec.endpoints[i]` becomes one endpoint as written (no trailing-dot trimming, as external-dns): user
labels are kept and `resource=crd/<ns>/<name>` is added. Bad items are skipped with a problem naming
`spec.endpoints[i].<field>`; the other items of the object still count:
- wrong field types, an empty or invalid `dnsName`, an unknown `recordType`;
- the target format external-dns accepts: CNAME/DNAME targets may end with `.` or not, TXT/MX/SRV are not checked
  here, NAPTR targets must end with `.`, every other type must not (`... has an illegal target "x." for A
  record — use "x" not "x."`);
- what `Endpoint.check_endpoint` would reject later anyway (A/AAAA not IPs, bad MX/SRV/PTR), reported here
  with the field.
Empty target lists are allowed (for `--default-targets`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from external_dns.endpoint.endpoint import (
    KNOWN_RECORD_TYPES,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_DNAME,
    RECORD_TYPE_MX,
    RECORD_TYPE_NAPTR,
    RECORD_TYPE_SRV,
    RECORD_TYPE_TXT,
    RESOURCE_LABEL_KEY,
    Endpoint,
    ProviderSpecificProperty,
)
from external_dns.endpoint.limits import hold_for, is_hold
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.utils import merge_endpoints
from external_dns.endpoint.validation import dns_name_problem
from external_dns.sources.objects.common import (
    FieldError,
    ObjectEndpoints,
    _short,
    admitted,
    collect_objects,
    field_problem,
    get_list,
    get_map,
    name_and_namespace,
)
from external_dns.sources.options import SourceOptions
from external_dns.sources.problems import Problem, object_ref

DNSENDPOINT_GROUP = "externaldns.k8s.io"
DNSENDPOINT_VERSION = "v1alpha1"
DNSENDPOINT_KIND = "DNSEndpoint"

_UNCHECKED_TYPES = frozenset((RECORD_TYPE_TXT, RECORD_TYPE_MX, RECORD_TYPE_SRV))
_EITHER_TYPES = frozenset((RECORD_TYPE_CNAME, RECORD_TYPE_DNAME))
_KNOWN_TYPES = frozenset(KNOWN_RECORD_TYPES)


def illegal_target_message(namespace: str, name: str, dns_name: str, record_type: str, target: str) -> str | None:
    """The external-dns warning for a target whose trailing dot is wrong for its type, else None."""
    if record_type in _EITHER_TYPES or record_type in _UNCHECKED_TYPES:
        return None
    has_dot = target.endswith(".")
    if record_type == RECORD_TYPE_NAPTR:
        if has_dot:
            return None
        fixed = target + "."
    else:
        if not has_dot:
            return None
        fixed = target.rstrip(".")
    return (f"Endpoint {namespace}/{name} with DNSName {dns_name} has an illegal target {target!r} for "
            f"{record_type} record — use {fixed!r} not {target!r}.")


def endpoint_from_item(item: Any, where: str, namespace: str, name: str) -> Endpoint:
    """One spec.endpoints item -> Endpoint; FieldError naming the field when it is unusable (the fields are
    checked in this order, so the first bad one is named). The helpers' checks are written out here (one call
    per item instead of seven): `tests/sources/objects/test_dnsendpoint_equivalence.py` holds the plain version."""
    if not isinstance(item, Mapping):
        raise FieldError(where, item, "must be an object")
    get = item.get
    dns_name = get("dnsName")
    if dns_name is None:
        dns_name = ""
    elif not isinstance(dns_name, str):
        raise FieldError(f"{where}.dnsName", dns_name, "must be a string")
    problem = dns_name_problem(dns_name)
    if problem is not None:
        raise FieldError(f"{where}.dnsName", dns_name, problem)
    record_type = get("recordType")
    if record_type is None:
        record_type = ""
    elif not isinstance(record_type, str):
        raise FieldError(f"{where}.recordType", record_type, "must be a string")
    if record_type not in _KNOWN_TYPES:
        raise FieldError(f"{where}.recordType", record_type,
                         f"unknown record type (one of: {', '.join(KNOWN_RECORD_TYPES)})")
    targets_raw = get("targets") or []
    if not isinstance(targets_raw, list):
        raise FieldError(f"{where}.targets", targets_raw, "must be a list of strings")
    dotted = record_type not in _EITHER_TYPES and record_type not in _UNCHECKED_TYPES
    naptr = record_type == RECORD_TYPE_NAPTR  # its targets must end with a dot, a dotted type's must not
    for j, t in enumerate(targets_raw):
        if not isinstance(t, str):
            raise FieldError(f"{where}.targets[{j}]", t, "must be a string")
        if dotted and t.endswith(".") != naptr:  # illegal_target_message's one non-None case
            message = illegal_target_message(namespace, name, dns_name, record_type, t)
            if message is not None:
                raise FieldError(f"{where}.targets[{j}]", t, message)
    ttl = get("recordTTL") or 0
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        raise FieldError(f"{where}.recordTTL", ttl, "must be a non-negative integer")
    labels_raw = get("labels")
    labels = _labels(labels_raw, where) if labels_raw else {}
    ps_raw = get("providerSpecific")
    props = _provider_specific(ps_raw, where) if ps_raw else []
    set_identifier = get("setIdentifier")
    if set_identifier is None:
        set_identifier = ""
    elif not isinstance(set_identifier, str):
        raise FieldError(f"{where}.setIdentifier", set_identifier, "must be a string")
    ep = Endpoint(dns_name, record_type, Targets(targets_raw), ttl, set_identifier, labels, props)
    reason = ep.invalid_reason() if ep.targets else None
    if reason is not None:
        raise FieldError(f"{where}.targets", targets_raw, reason)
    return ep


def _hold(item: Any, exc: FieldError, resource: str, obj: Mapping[str, Any]) -> Endpoint | None:
    """The hold for an item whose name and type read but another field did not (endpoint/limits.py): the
    records it had stay as they are."""
    if not isinstance(item, Mapping) or exc.field.endswith((".dnsName", ".recordType")):
        return None
    dns_name, record_type = item.get("dnsName"), item.get("recordType")
    if not isinstance(dns_name, str) or not isinstance(record_type, str):
        return None
    return hold_for(dns_name, record_type, f"{exc.field}: {exc.message}", resource, (obj,))


def _labels(labels_raw: Any, where: str) -> dict[str, str]:
    if not labels_raw:
        return {}
    if not isinstance(labels_raw, Mapping):
        raise FieldError(f"{where}.labels", labels_raw, "must be a map of strings")
    labels: dict[str, str] = {}
    for k, v in labels_raw.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise FieldError(f"{where}.labels[{k!r}]", v, "must be a string")
        labels[k] = v
    return labels


def _provider_specific(ps_raw: Any, where: str) -> list[ProviderSpecificProperty]:
    if not ps_raw:
        return []
    if not isinstance(ps_raw, list):
        raise FieldError(f"{where}.providerSpecific", ps_raw, "must be a list of {name, value}")
    props: list[ProviderSpecificProperty] = []
    for j, p in enumerate(ps_raw):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str) or not p.get("name"):
            raise FieldError(f"{where}.providerSpecific[{j}]", p, "must be an object with a string 'name'")
        value = p.get("value", "")
        if not isinstance(value, str):
            raise FieldError(f"{where}.providerSpecific[{j}].value", value, "must be a string")
        props.append(ProviderSpecificProperty(p["name"], value))
    return props


def dnsendpoint_endpoints(obj: Mapping[str, Any], options: SourceOptions) -> ObjectEndpoints:
    """Endpoints of one DNSEndpoint (empty when filtered out) and the problems found; a bad item is skipped
    with a problem naming its field, the other items still count."""
    ref = object_ref(obj, "dnsendpoint")
    try:
        name, namespace = name_and_namespace(obj)
        if not admitted(obj, options):
            return ObjectEndpoints([], [])
        get_map(obj, "spec")
        items = get_list(obj, "spec.endpoints")
    except FieldError as exc:
        return ObjectEndpoints([], [field_problem(ref, exc, obj)])
    endpoints: list[Endpoint] = []
    problems: list[Problem] = []
    resource = f"crd/{namespace}/{name}"
    for i, item in enumerate(items):
        if item is None:
            continue
        try:
            ep = endpoint_from_item(item, f"spec.endpoints[{i}]", namespace, name)
        except FieldError as exc:
            problems.append(Problem(ref, exc.field, _short(exc.value), f"{exc.message}; endpoint skipped",
                                    obj=obj))
            hold = _hold(item, exc, resource, obj)
            if hold is not None:
                endpoints.append(hold)
            continue
        # `attach(endpoints, obj, resource)` done here: the endpoint is new, so `obj` is not among its refs yet
        ep.labels[RESOURCE_LABEL_KEY] = resource
        ep.ref_objects.append(obj)
        endpoints.append(ep)
    return ObjectEndpoints(endpoints, problems)


def dnsendpoint_needs_status_update(obj: Mapping[str, Any]) -> bool:
    """True when `status.observedGeneration` lags `metadata.generation` (the CRD source then updates it)."""
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    return bool(isinstance(meta, Mapping) and isinstance(status, Mapping)
                and status.get("observedGeneration") != meta.get("generation"))


def merge_dnsendpoint_endpoints(endpoints: Iterable[Endpoint], copy: bool = True) -> list[Endpoint]:
    """The CRD source's final step over all objects: `merge_endpoints` (`copy=False`: the endpoints were built
    for this call and nothing else holds them, so they are merged in place instead of copied)."""
    eps = list(endpoints)
    holds = [ep for ep in eps if is_hold(ep)]
    if not holds:
        return merge_endpoints(eps, copy=copy)
    return [*merge_endpoints([ep for ep in eps if not is_hold(ep)], copy=copy), *holds]  # a hold never merges


def collect_dnsendpoint_endpoints(objs: Iterable[Mapping[str, Any]], options: SourceOptions) -> ObjectEndpoints:
    """What a CRD source returns for all its DNSEndpoints (merged) and the problems of all of them."""
    return collect_objects(objs, lambda obj: dnsendpoint_endpoints(obj, options),
                           lambda eps: merge_dnsendpoint_endpoints(eps, copy=False))  # built here, for this call
