"""Route53 record sets <-> endpoints: reading (`endpoint_from_rrset`, name unescaping), writing
(`rrset_for`), the `aws/*` provider-specific properties of routing policies, and our own validation of a
record set before it is sent (moto accepts much that Route53 refuses, so we never rely on the server to
reject a bad change).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_ALIAS,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_TXT,
    Endpoint,
)
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.providers.aws.canonical import canonical_hosted_zone

# Provider-specific property names (external-dns provider/aws).
EVALUATE_TARGET_HEALTH = "aws/evaluate-target-health"
TARGET_HOSTED_ZONE = "aws/target-hosted-zone"
WEIGHT = "aws/weight"
REGION = "aws/region"
FAILOVER = "aws/failover"
GEO_CONTINENT = "aws/geolocation-continent-code"
GEO_COUNTRY = "aws/geolocation-country-code"
GEO_SUBDIVISION = "aws/geolocation-subdivision-code"
GEOPROX_REGION = "aws/geoproximity-region"
GEOPROX_BIAS = "aws/geoproximity-bias"
GEOPROX_COORDINATES = "aws/geoproximity-coordinates"
GEOPROX_LOCAL_ZONE_GROUP = "aws/geoproximity-local-zone-group"
MULTI_VALUE_ANSWER = "aws/multi-value-answer"
HEALTH_CHECK_ID = "aws/health-check-id"

SAME_ZONE_ALIAS = "same-zone"
DEFAULT_TTL = 300
ALIAS_TTL = 300
READ_TYPES = frozenset(("A", "AAAA", "CNAME", "DNAME", "SRV", "TXT", "NS", "MX", "NAPTR", "PTR"))
_GEOPROX_PROPS = (GEOPROX_REGION, GEOPROX_BIAS, GEOPROX_COORDINATES, GEOPROX_LOCAL_ZONE_GROUP)
_GEO_PROPS = (GEO_CONTINENT, GEO_COUNTRY, GEO_SUBDIVISION)
_TXT_STRING_MAX = 255
_VALUE_MAX = 4000
_TTL_MAX = 2147483647
_OCTAL_RE = re.compile(r"\\([0-3][0-7]{2})")
_TXT_STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE_RE = re.compile(r"\\(\d{3}|.)")


class InvalidRecordError(ValueError):
    """A record Route53 would refuse: the message names the record and the field."""


# -- names --------------------------------------------------------------------------------------------------
def unescape_name(name: str) -> str:
    """A Route53 name as text: `\\052` -> `*` and any other `\\ooo` octal escape decoded, trailing dot
    removed (`\\052.example.com.` -> `*.example.com`)."""
    if "\\" in name:
        name = _OCTAL_RE.sub(lambda m: chr(int(m.group(1), 8)), name)
    return name[:-1] if name.endswith(".") else name


def strip_dot(value: str) -> str:
    return value[:-1] if value.endswith(".") else value


# -- routing policy ---------------------------------------------------------------------------------------
def routing_policy(ep: Endpoint) -> str:
    """The routing-policy kind an endpoint asks for ("" = simple)."""
    props = {p.name for p in ep.provider_specific}
    if WEIGHT in props:
        return "weighted"
    if REGION in props:
        return "latency"
    if FAILOVER in props:
        return "failover"
    if props.intersection(_GEO_PROPS):
        return "geolocation"
    if props.intersection(_GEOPROX_PROPS):
        return "geoproximity"
    if MULTI_VALUE_ANSWER in props:
        return "multivalue"
    return ""


def _read_routing(rrset: dict[str, Any], ep: Endpoint) -> None:
    if "Weight" in rrset:
        ep.set_provider_specific_property(WEIGHT, str(rrset["Weight"]))
    if rrset.get("Region"):
        ep.set_provider_specific_property(REGION, str(rrset["Region"]))
    if rrset.get("Failover"):
        ep.set_provider_specific_property(FAILOVER, str(rrset["Failover"]))
    if rrset.get("MultiValueAnswer"):
        ep.set_provider_specific_property(MULTI_VALUE_ANSWER, "")
    geo = rrset.get("GeoLocation") or {}
    for key, prop in (("ContinentCode", GEO_CONTINENT), ("CountryCode", GEO_COUNTRY),
                      ("SubdivisionCode", GEO_SUBDIVISION)):
        if geo.get(key):
            ep.set_provider_specific_property(prop, str(geo[key]))
    prox = rrset.get("GeoProximityLocation") or {}
    if prox:
        if prox.get("AWSRegion"):
            ep.set_provider_specific_property(GEOPROX_REGION, str(prox["AWSRegion"]))
        if prox.get("LocalZoneGroup"):
            ep.set_provider_specific_property(GEOPROX_LOCAL_ZONE_GROUP, str(prox["LocalZoneGroup"]))
        coords = prox.get("Coordinates")
        if coords:
            ep.set_provider_specific_property(GEOPROX_COORDINATES, f"{coords['Latitude']},{coords['Longitude']}")
        ep.set_provider_specific_property(GEOPROX_BIAS, str(prox.get("Bias", 0)))
    if rrset.get("HealthCheckId"):
        ep.set_provider_specific_property(HEALTH_CHECK_ID, str(rrset["HealthCheckId"]))


def _int_prop(ep: Endpoint, name: str, low: int, high: int) -> int:
    raw = ep.get_provider_specific_property(name) or ""
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRecordError(f"{_label(ep)}: {name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise InvalidRecordError(f"{_label(ep)}: {name} must be between {low} and {high}, got {value}")
    return value


def _write_routing(ep: Endpoint, rrset: dict[str, Any]) -> None:
    policy = routing_policy(ep)
    if policy and not ep.set_identifier:
        raise InvalidRecordError(f"{_label(ep)}: a {policy} routing policy needs a set identifier")
    if ep.set_identifier and not policy:
        raise InvalidRecordError(
            f"{_label(ep)}: set identifier {ep.set_identifier!r} needs a routing policy "
            f"({WEIGHT}, {REGION}, {FAILOVER}, aws/geolocation-*, aws/geoproximity-* or {MULTI_VALUE_ANSWER})")
    if ep.set_identifier:
        if len(ep.set_identifier) > 128:
            raise InvalidRecordError(f"{_label(ep)}: set identifier longer than 128 characters")
        rrset["SetIdentifier"] = ep.set_identifier
    if policy == "weighted":
        rrset["Weight"] = _int_prop(ep, WEIGHT, 0, 255)
    elif policy == "latency":
        rrset["Region"] = ep.get_provider_specific_property(REGION)
    elif policy == "failover":
        value = (ep.get_provider_specific_property(FAILOVER) or "").upper()
        if value not in ("PRIMARY", "SECONDARY"):
            raise InvalidRecordError(f"{_label(ep)}: {FAILOVER} must be PRIMARY or SECONDARY, got {value!r}")
        rrset["Failover"] = value
    elif policy == "geolocation":
        geo: dict[str, str] = {}
        for key, prop in (("ContinentCode", GEO_CONTINENT), ("CountryCode", GEO_COUNTRY),
                          ("SubdivisionCode", GEO_SUBDIVISION)):
            code = ep.get_provider_specific_property(prop)
            if code:
                geo[key] = code
        rrset["GeoLocation"] = geo
    elif policy == "geoproximity":
        prox: dict[str, Any] = {}
        region = ep.get_provider_specific_property(GEOPROX_REGION)
        group = ep.get_provider_specific_property(GEOPROX_LOCAL_ZONE_GROUP)
        coords = ep.get_provider_specific_property(GEOPROX_COORDINATES)
        if sum(1 for v in (region, group, coords) if v) != 1:
            raise InvalidRecordError(f"{_label(ep)}: exactly one of {GEOPROX_REGION}, {GEOPROX_COORDINATES}, "
                                     f"{GEOPROX_LOCAL_ZONE_GROUP} must be set")
        if region:
            prox["AWSRegion"] = region
        if group:
            prox["LocalZoneGroup"] = group
        if coords:
            lat, sep, lon = coords.partition(",")
            if not sep:
                raise InvalidRecordError(f"{_label(ep)}: {GEOPROX_COORDINATES} must be 'lat,lon', got {coords!r}")
            prox["Coordinates"] = {"Latitude": lat.strip(), "Longitude": lon.strip()}
        if ep.get_provider_specific_property(GEOPROX_BIAS) is not None:
            prox["Bias"] = _int_prop(ep, GEOPROX_BIAS, -99, 99)
        rrset["GeoProximityLocation"] = prox
    elif policy == "multivalue":
        rrset["MultiValueAnswer"] = True
    health = ep.get_provider_specific_property(HEALTH_CHECK_ID)
    if health:
        rrset["HealthCheckId"] = health


# -- reading ------------------------------------------------------------------------------------------------
def endpoint_from_rrset(rrset: dict[str, Any]) -> Endpoint | None:
    """The endpoint of one listed record set, or None for a type we do not manage (SOA, ...)."""
    rtype = rrset["Type"]
    if rtype not in READ_TYPES:
        return None
    name = unescape_name(rrset["Name"])
    alias = rrset.get("AliasTarget")
    if alias:
        ep = Endpoint(name, rtype, Targets([strip_dot(alias["DNSName"])]), ALIAS_TTL)
        ep.set_provider_specific_property(PROVIDER_SPECIFIC_ALIAS, "true")
        ep.set_provider_specific_property(EVALUATE_TARGET_HEALTH,
                                          "true" if alias.get("EvaluateTargetHealth") else "false")
    else:
        values = [rr["Value"] for rr in rrset.get("ResourceRecords") or []]
        if rtype == RECORD_TYPE_CNAME:
            values = [strip_dot(v) for v in values]
        ep = Endpoint(name, rtype, Targets(values), int(rrset.get("TTL") or 0))
        if rtype == RECORD_TYPE_CNAME:
            ep.set_provider_specific_property(PROVIDER_SPECIFIC_ALIAS, "false")
    if rrset.get("SetIdentifier"):
        ep.set_identifier = rrset["SetIdentifier"]
    _read_routing(rrset, ep)
    return ep


# -- writing ------------------------------------------------------------------------------------------------
def quote_txt(value: str) -> str:
    """A TXT value as Route53 wants it: one or more double-quoted character-strings (quoted when bare)."""
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _txt_strings_ok(value: str) -> bool:
    """Every quoted character-string of `value` is at most 255 characters (escapes count as one)."""
    if len(value) <= _TXT_STRING_MAX + 2:  # escapes only shorten a string: nothing to count
        return True
    return all(len(_ESCAPE_RE.sub("x", s)) <= _TXT_STRING_MAX for s in _TXT_STRING_RE.findall(value))


def is_alias_endpoint(ep: Endpoint) -> bool:
    return ep.record_type in (RECORD_TYPE_A, RECORD_TYPE_AAAA) and ep.is_alias()


def _label(ep: Endpoint) -> str:
    sid = f" (set identifier {ep.set_identifier})" if ep.set_identifier else ""
    return f"record {ep.dns_name} {ep.record_type}{sid}"


def rrset_for(ep: Endpoint, zone_id: str) -> dict[str, Any]:
    """The ResourceRecordSet of `ep` for the hosted zone `zone_id` (bare id). Raises InvalidRecordError
    naming the record and field for anything Route53 would refuse."""
    name = name_key(ep.dns_name)
    if not name:
        raise InvalidRecordError(f"{_label(ep)}: empty name")
    if len(name) > 253 or any(len(label) > 63 or not label for label in name.split(".")):
        raise InvalidRecordError(f"{_label(ep)}: name is not a valid DNS name (labels 1-63, total <= 253)")
    if not ep.targets:
        raise InvalidRecordError(f"{_label(ep)}: no targets")
    rrset: dict[str, Any] = {"Name": name, "Type": ep.record_type}
    if is_alias_endpoint(ep):
        target = strip_dot(ep.targets[0]).lower()
        hosted = ep.get_provider_specific_property(TARGET_HOSTED_ZONE) or canonical_hosted_zone(target)
        if not hosted or hosted == SAME_ZONE_ALIAS:
            hosted = zone_id
        eth, ok = ep.get_bool_provider_specific_property(EVALUATE_TARGET_HEALTH)
        rrset["AliasTarget"] = {"DNSName": target, "HostedZoneId": hosted, "EvaluateTargetHealth": eth if ok else True}
    else:
        if not 0 <= ep.record_ttl <= _TTL_MAX:
            raise InvalidRecordError(f"{_label(ep)}: TTL {ep.record_ttl} out of range 0..{_TTL_MAX}")
        rrset["TTL"] = ep.record_ttl if ep.record_ttl > 0 else DEFAULT_TTL
        values = [quote_txt(t) for t in ep.targets] if ep.record_type == RECORD_TYPE_TXT else list(ep.targets)
        for value in values:
            if len(value) > _VALUE_MAX:
                raise InvalidRecordError(f"{_label(ep)}: a value is longer than {_VALUE_MAX} characters")
            if ep.record_type == RECORD_TYPE_TXT and not _txt_strings_ok(value):
                raise InvalidRecordError(
                    f"{_label(ep)}: a TXT character-string is longer than {_TXT_STRING_MAX} characters")
        if ep.record_type in (RECORD_TYPE_A, RECORD_TYPE_AAAA):
            version = 4 if ep.record_type == RECORD_TYPE_A else 6
            for value in values:
                try:
                    ok = ipaddress.ip_address(value).version == version
                except ValueError:
                    ok = False
                if not ok:
                    raise InvalidRecordError(f"{_label(ep)}: target {value!r} is not an IPv{version} address")
        if ep.record_type == RECORD_TYPE_CNAME and len(values) != 1:
            raise InvalidRecordError(f"{_label(ep)}: a CNAME must have exactly one target, got {len(values)}")
        rrset["ResourceRecords"] = [{"Value": v} for v in values]
    _write_routing(ep, rrset)
    return rrset


def rrset_size(rrset: dict[str, Any]) -> tuple[int, int]:
    """(characters of values, number of values) of one record set, as Route53 counts them."""
    alias = rrset.get("AliasTarget")
    if alias:
        return len(alias["DNSName"]), 1
    records = rrset.get("ResourceRecords") or []
    return sum(len(r["Value"]) for r in records), len(records)
