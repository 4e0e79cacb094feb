"""Cloudflare DNS records <-> endpoints, as external-dns's cloudflare provider reads and writes them.

Cloudflare holds one record per value: a name and type with three addresses are three records. Reading groups
them by name and type into one endpoint (targets sorted; TTL, proxied, comment and tags of the first record);
an MX value reads `<priority> <host>`, an SRV value `<priority> <weight> <port> <target>.` from the record's
`data`. Writing turns one endpoint target into one record body. TTL 1 means "automatic" (a record written
without a TTL gets it); a proxied record is always automatic.
"""

from __future__ import annotations

from typing import Any

from external_dns.endpoint.endpoint import RECORD_TYPE_MX, RECORD_TYPE_SRV, Endpoint
from external_dns.endpoint.targets import Targets, sorted_targets
from external_dns.providers.cloudflare.config import CloudflareConfig

AUTOMATIC_TTL = 1
MIN_TTL, MAX_TTL = 60, 86400
FREE_COMMENT_MAX, PAID_COMMENT_MAX = 100, 500
PROXIABLE = frozenset(("A", "AAAA", "CNAME"))
# Read and written: external-dns's supported types plus MX (cloudflare provider SupportedAdditionalRecordTypes).
READ_TYPES = frozenset(("A", "AAAA", "CNAME", "SRV", "TXT", "NS", "MX", "PTR", "NAPTR"))
REGIONAL_TYPES = frozenset(("A", "AAAA", "CNAME"))  # the types a regional hostname applies to
REGIONAL = "_regional_hostname"  # the type of the pseudo-record a regional hostname is kept as


class InvalidRecordError(ValueError):
    """A record Cloudflare would refuse; the message names the record and the field."""


def record_target(record: dict[str, Any]) -> str:
    """The endpoint target of one record."""
    rtype = record.get("type")
    if rtype == RECORD_TYPE_MX:
        return f"{int(record.get('priority') or 0)} {record.get('content', '')}"
    if rtype == RECORD_TYPE_SRV:
        data = record.get("data") or {}
        if data.get("target"):
            target = str(data["target"])
            target = target if target == "." or target.endswith(".") else target + "."
            return f"{int(data.get('priority') or 0)} {int(data.get('weight') or 0)} {int(data.get('port') or 0)} {target}"
    return str(record.get("content", ""))


def endpoints_at(records: list[dict[str, Any]], config: CloudflareConfig) -> list[Endpoint]:
    """One endpoint per type of the records at one name."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    regional = next((r for r in records if r.get("type") == REGIONAL), None)
    for record in records:
        if record.get("type") in READ_TYPES:
            by_type.setdefault(str(record["type"]), []).append(record)
    out: list[Endpoint] = []
    for rtype in sorted(by_type):
        group = sorted(by_type[rtype], key=record_target)
        first = group[0]
        ep = Endpoint(str(first["name"]), rtype, Targets(sorted_targets(record_target(r) for r in group)),
                      int(first.get("ttl") or 0))
        ep.set_provider_specific_property(config.proxied_key, "true" if first.get("proxied") else "false")
        if first.get("comment"):
            ep.set_provider_specific_property(config.comment_key, str(first["comment"]))
        tags = first.get("tags")
        if isinstance(tags, list) and tags:
            ep.set_provider_specific_property(config.tags_key, ",".join(sorted(str(t) for t in tags)))
        if config.regional and rtype in REGIONAL_TYPES:  # as external-dns: "" when the name has none
            ep.set_provider_specific_property(config.region_key_prop,
                                              str(regional.get("region_key", "")) if regional else "")
        out.append(ep)
    return out


def read_back_target(rtype: str, target: str) -> str:
    """A desired target in the form `record_target` reads it back: host names without the trailing dot (Cloudflare
    stores them so), an SRV target with it."""
    if rtype in ("CNAME", "NS", "PTR"):
        return target.rstrip(".")
    if rtype == RECORD_TYPE_MX:
        priority, sep, host = target.partition(" ")
        return f"{priority} {host.strip().rstrip('.')}" if sep else target
    if rtype == RECORD_TYPE_SRV and not target.endswith("."):
        return target + "."
    return target


def parse_tags(value: str) -> list[str]:
    """The `cloudflare-tags` annotation: comma-separated, trimmed, sorted (external-dns parseTagsAnnotation)."""
    return sorted(t.strip() for t in value.split(",") if t.strip())


def should_be_proxied(ep: Endpoint, config: CloudflareConfig) -> bool:
    """`--cloudflare-proxied`, overridden by the endpoint's `cloudflare-proxied` property; never for a type
    Cloudflare cannot proxy."""
    proxied = config.proxied_by_default
    raw = ep.get_provider_specific_property(config.proxied_key)
    if raw is not None:
        value = raw.strip().lower()
        if value in ("1", "t", "true"):
            proxied = True
        elif value in ("0", "f", "false"):
            proxied = False
    return proxied and ep.record_type in PROXIABLE


def record_body(ep: Endpoint, target: str, config: CloudflareConfig, paid_zone: bool) -> dict[str, Any]:
    """The API body of the record holding `target` of `ep` (name, type, ttl, proxied, content/data/priority,
    comment, tags). Raises InvalidRecordError for what Cloudflare refuses."""
    label = f"record {ep.dns_name} {ep.record_type}"
    proxied = should_be_proxied(ep, config)
    ttl = ep.record_ttl if ep.record_ttl > 0 and not proxied else AUTOMATIC_TTL
    if ttl != AUTOMATIC_TTL and not MIN_TTL <= ttl <= MAX_TTL:
        raise InvalidRecordError(f"{label}: TTL {ttl} is not accepted by Cloudflare (1 = automatic, or "
                                 f"{MIN_TTL}..{MAX_TTL})")
    body: dict[str, Any] = {"name": ep.dns_name.rstrip(".").lower(), "type": ep.record_type, "ttl": ttl,
                            "proxied": proxied}
    if ep.record_type == RECORD_TYPE_MX:
        priority, _, host = target.partition(" ")
        if not priority.isdigit() or not host.strip() or int(priority) > 65535:
            raise InvalidRecordError(f"{label}: MX target {target!r} must be '<priority> <host>'")
        body["priority"], body["content"] = int(priority), host.strip().rstrip(".")
    elif ep.record_type == RECORD_TYPE_SRV:
        parts = target.split()
        if len(parts) != 4 or not all(p.isdigit() and int(p) <= 65535 for p in parts[:3]):
            raise InvalidRecordError(f"{label}: SRV target {target!r} must be '<priority> <weight> <port> <target>'")
        host = parts[3] if parts[3] == "." else parts[3].rstrip(".")
        body["data"] = {"priority": int(parts[0]), "weight": int(parts[1]), "port": int(parts[2]), "target": host}
    else:
        body["content"] = target.rstrip(".") if ep.record_type in ("CNAME", "NS", "PTR") else target
    comment = config.comment
    own = ep.get_provider_specific_property(config.comment_key)
    if own is not None:
        comment = own
    if comment:
        # external-dns trims an over-long comment (Cloudflare refuses it): 100 characters, 500 on a paid plan.
        body["comment"] = comment[:PAID_COMMENT_MAX if paid_zone else FREE_COMMENT_MAX]
    tags = ep.get_provider_specific_property(config.tags_key)
    if tags:
        body["tags"] = parse_tags(tags)
    return body


def body_matches(record: dict[str, Any], body: dict[str, Any]) -> bool:
    """True when the stored record already is what `body` asks for (no request needed)."""
    if record.get("ttl") != body["ttl"] or bool(record.get("proxied")) != body["proxied"]:
        return False
    if (record.get("comment") or "") != body.get("comment", ""):
        return False
    return bool(sorted(record.get("tags") or []) == body.get("tags", []))
