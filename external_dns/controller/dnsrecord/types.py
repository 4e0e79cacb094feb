"""The DNSRecord resource (kuadrant.io/v1alpha1): names, condition reasons and messages, the owner ID hash,
and validation of one raw object into a `DNSRecordSpec` (or a `ValidationError` naming the field).

Served fields: `spec.ownerID` (6-36 chars; default `uid_hash(metadata.uid)`, 8 base36 characters),
`spec.rootHost` (every endpoint equals it or ends with `.<rootHost>`, on a label boundary), `spec.endpoints`
(external-dns endpoints, parsed with the DNSEndpoint source's item parser). Not served: `providerRef`,
`healthCheck` (reported in the `Unsupported` condition, the record is still published to the process's
provider, without health checks) and `delegate: true` (a ValidationError: a delegating record must not be
published directly).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import endpoint_problem
from external_dns.endpoint.zones import name_key
from external_dns.informers.resource import DNSRECORDS
from external_dns.sources.objects.common import FieldError
from external_dns.sources.objects.dnsendpoint import endpoint_from_item

RESOURCE = DNSRECORDS
API_VERSION = "kuadrant.io/v1alpha1"
KIND = "DNSRecord"
FINALIZER = "kuadrant.io/dns-record"

CONDITION_READY = "Ready"
CONDITION_UNSUPPORTED = "Unsupported"

REASON_PROVIDER_SUCCESS = "ProviderSuccess"
REASON_AWAITING_VALIDATION = "AwaitingValidation"
REASON_PROVIDER_ERROR = "ProviderError"
REASON_VALIDATION_ERROR = "ValidationError"
REASON_ENDPOINTS_DELETION = "ProviderEndpointsDeletion"
REASON_ENDPOINTS_REMOVED = "ProviderEndpointsRemoved"
REASON_UNSUPPORTED_FIELDS = "UnsupportedFields"

MESSAGE_PROVIDER_SUCCESS = "Provider ensured the dns record"
MESSAGE_AWAITING_VALIDATION = "Awaiting validation"
MESSAGE_PROVIDER_ERROR = "The DNS provider failed to ensure the record: {}"
MESSAGE_VALIDATION_ERROR = "validation of DNSRecord failed: {}"
MESSAGE_ENDPOINTS_DELETION = "DNS records are being deleted from provider"
MESSAGE_ENDPOINTS_REMOVED = "DNS records removed from provider"
WRITE_LIMIT_ERROR = "reached write limit to the DNS provider for the same generation of record"
GIVE_UP_LOG = "Giving up on trying to maintain desired state of the DNS record - changes are being overridden"

UNSERVED_FIELDS = ("providerRef", "healthCheck")
OWNER_ID_MIN, OWNER_ID_MAX = 6, 36
ROOT_HOST_MAX = 255

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_FNV64_OFFSET = 0xCBF29CE484222325
_FNV64_PRIME = 0x100000001B3


class ValidationError(ValueError):
    """The DNSRecord's spec cannot be served; the message names the field."""


def base36_hash(text: str, length: int = 8) -> str:
    """FNV-1a 64 of `text` in base 36, left-padded with zeros and cut to `length` characters (dns-operator's
    `ToBase36HashLen`)."""
    h = _FNV64_OFFSET
    for byte in text.encode():
        h = ((h ^ byte) * _FNV64_PRIME) & 0xFFFFFFFFFFFFFFFF
    digits = ""
    while h:
        h, rem = divmod(h, 36)
        digits = _BASE36[rem] + digits
    return (digits or "0").rjust(length, "0")[:length]


def uid_hash(uid: str) -> str:
    """The default owner ID of a DNSRecord without `spec.ownerID`: 8 base36 characters of its UID."""
    return base36_hash(uid, 8)


@dataclass(frozen=True)
class DNSRecordSpec:
    """A validated DNSRecord: what a reconcile needs."""

    namespace: str
    name: str
    uid: str
    generation: int
    owner_id: str
    root_host: str
    endpoints: list[Endpoint] = field(default_factory=list)
    unsupported: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def generation_of(obj: Mapping[str, Any]) -> int:
    gen = _meta(obj).get("generation")
    return gen if isinstance(gen, int) and not isinstance(gen, bool) else 0


def owner_id_of(obj: Mapping[str, Any]) -> str:
    """`spec.ownerID`, else the hash of the UID (also used on deletion, whatever else is wrong)."""
    owner = _spec(obj).get("ownerID")
    if isinstance(owner, str) and owner:
        return owner
    return uid_hash(str(_meta(obj).get("uid") or ""))


def root_host_of(obj: Mapping[str, Any]) -> str:
    root = _spec(obj).get("rootHost")
    return root.strip().rstrip(".").lower() if isinstance(root, str) else ""


def in_root_host(dns_name: str, root_host: str) -> bool:
    """True when `dns_name` equals `root_host` or is below it (label boundary, case-insensitive)."""
    name = name_key(dns_name)
    return name == root_host or name.endswith("." + root_host)


def validate(obj: Mapping[str, Any]) -> DNSRecordSpec:
    """The served spec of a raw DNSRecord; ValidationError on the first unusable field (the message names it)."""
    meta = _meta(obj)
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    spec_raw = obj.get("spec")
    if not isinstance(spec_raw, Mapping):
        raise ValidationError("spec: must be an object")
    owner = spec_raw.get("ownerID")
    if owner is not None and (not isinstance(owner, str) or not OWNER_ID_MIN <= len(owner) <= OWNER_ID_MAX):
        raise ValidationError(f"spec.ownerID: {owner!r} must be a string of {OWNER_ID_MIN}-{OWNER_ID_MAX} characters")
    root_raw = spec_raw.get("rootHost")
    if not isinstance(root_raw, str) or not root_raw.strip():
        raise ValidationError("spec.rootHost: required, a non-empty DNS name")
    if len(root_raw) > ROOT_HOST_MAX:
        raise ValidationError(f"spec.rootHost: longer than {ROOT_HOST_MAX} characters")
    root = root_host_of(obj)
    if spec_raw.get("delegate") is True:
        raise ValidationError("spec.delegate: delegating DNSRecords are not served by external-dns-py "
                              "(nothing is published for this record)")
    items = spec_raw.get("endpoints") or []
    if not isinstance(items, list):
        raise ValidationError("spec.endpoints: must be a list of endpoints")
    endpoints: list[Endpoint] = []
    seen: dict[tuple[str, str, str], int] = {}
    for i, item in enumerate(items):
        where = f"spec.endpoints[{i}]"
        try:
            ep = endpoint_from_item(item, where, namespace, name)
        except FieldError as exc:
            raise ValidationError(str(exc)) from None
        if not in_root_host(ep.dns_name, root):
            raise ValidationError(f"invalid endpoint discovered {ep.dns_name} all endpoints should be equal to or "
                                  f"end with the rootHost {root} ({where}.dnsName)")
        if not ep.targets:
            raise ValidationError(f"{where}.targets: at least one target is required")
        problem = endpoint_problem(ep)  # every field against DNS's limits (endpoint/limits.py)
        if problem is not None:
            raise ValidationError(f"{where}.{problem.field}: {problem.reason}")
        dup = (name_key(ep.dns_name), ep.record_type, ep.set_identifier)
        if dup in seen:
            raise ValidationError(f"{where}: duplicate record {ep.dns_name} {ep.record_type}"
                                  + (f" (setIdentifier {ep.set_identifier})" if ep.set_identifier else "")
                                  + f", already in spec.endpoints[{seen[dup]}]")
        seen[dup] = i
        endpoints.append(ep)
    unsupported = tuple(f for f in UNSERVED_FIELDS if spec_raw.get(f) not in (None, {}, []))
    return DNSRecordSpec(namespace=namespace, name=name, uid=str(meta.get("uid") or ""),
                         generation=generation_of(obj), owner_id=owner_id_of(obj), root_host=root,
                         endpoints=endpoints, unsupported=unsupported)
