"""The Endpoint: one DNS record set as sources desire it and providers hold it.

Mirrors external-dns `endpoint/endpoint.go`: field names are snake_case versions of the Go names, the JSON
form uses the Go JSON keys (`dnsName`, `targets`, `recordType`, `setIdentifier`, `recordTTL`, `labels`,
`providerSpecific`), so plans and webhook bodies are interchangeable with external-dns.

Also here: the provider-specific / ownership / validation methods and the constructors
`new_endpoint` (trailing-dot trimming, 63-octet label check -> None) and `new_ptr_endpoint`. Endpoints built
directly or decoded from JSON bypass `new_endpoint`, so trailing dots survive there (QUIRK kept, as Go).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import dns.exception
import dns.reversename
import structlog

from external_dns.endpoint import validation
from external_dns.endpoint.gojson import struct_fields
from external_dns.endpoint.targets import Targets

log = structlog.get_logger(__name__)

# Record types (external-dns KnownRecordTypes).
RECORD_TYPE_A = "A"
RECORD_TYPE_AAAA = "AAAA"
RECORD_TYPE_CNAME = "CNAME"
RECORD_TYPE_TXT = "TXT"
RECORD_TYPE_SRV = "SRV"
RECORD_TYPE_NS = "NS"
RECORD_TYPE_PTR = "PTR"
RECORD_TYPE_MX = "MX"
RECORD_TYPE_NAPTR = "NAPTR"
RECORD_TYPE_DNAME = "DNAME"
KNOWN_RECORD_TYPES = (
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_TXT,
    RECORD_TYPE_SRV,
    RECORD_TYPE_NS,
    RECORD_TYPE_PTR,
    RECORD_TYPE_MX,
    RECORD_TYPE_NAPTR,
    RECORD_TYPE_DNAME,
)
DEFAULT_MANAGED_RECORD_TYPES = (RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_CNAME)
# Record types whose targets keep their trailing dot in `new_endpoint`.
_KEEP_TARGET_DOT_TYPES = frozenset((RECORD_TYPE_TXT, RECORD_TYPE_NAPTR, RECORD_TYPE_SRV))
_ALIAS_TYPES = frozenset((RECORD_TYPE_A, RECORD_TYPE_AAAA, RECORD_TYPE_CNAME))

# Label keys (endpoint/labels.go).
OWNER_LABEL_KEY = "owner"
RESOURCE_LABEL_KEY = "resource"
OWNED_RECORD_LABEL_KEY = "ownedRecord"
AWS_SD_DESCRIPTION_LABEL = "aws-sd-description"
TXT_ENCRYPTION_NONCE = "txt-encryption-nonce"

# Provider-agnostic provider-specific property names.
PROVIDER_SPECIFIC_ALIAS = "alias"
PROVIDER_SPECIFIC_RECORD_TYPE = "record-type"


# The JSON fields of an Endpoint (external-dns's struct tags).
_ENDPOINT_JSON_FIELDS = ("dnsName", "targets", "recordType", "setIdentifier", "recordTTL", "labels",
                         "providerSpecific")


@dataclass(eq=True, slots=True)
class ProviderSpecificProperty:
    """One provider-specific `{name, value}` pair of an endpoint."""

    name: str
    value: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value}


# Slotted (no per-instance __dict__): a zone of 100k records keeps several endpoints per record alive (the
# sources' index, the registry's labelled records), and a slotted endpoint costs ~40 % less memory.
@dataclass(eq=False, slots=True)
class Endpoint:
    """A DNS record set: name, type, targets, TTL (0 = unset), routing set identifier, labels and
    provider-specific properties. `ref_objects` (the Kubernetes objects it came from) is not part of
    equality or JSON."""

    dns_name: str
    record_type: str
    targets: Targets = field(default_factory=Targets)
    record_ttl: int = 0
    set_identifier: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    provider_specific: list[ProviderSpecificProperty] = field(default_factory=list)
    ref_objects: list[Mapping[str, Any]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.targets, Targets):
            self.targets = Targets(self.targets)
        if self.labels is None:
            self.labels = {}
        if self.provider_specific is None:
            self.provider_specific = []

    # -- identity -------------------------------------------------------------------------------------------
    def key(self) -> tuple[str, str, str]:
        """(dns_name, record_type, set_identifier): the EndpointKey of external-dns."""
        return (self.dns_name, self.record_type, self.set_identifier)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Endpoint):
            return NotImplemented
        return (
            self.dns_name == other.dns_name
            and self.record_type == other.record_type
            and list(self.targets) == list(other.targets)
            and self.record_ttl == other.record_ttl
            and self.set_identifier == other.set_identifier
            and self.labels == other.labels
            and self.provider_specific == other.provider_specific
        )

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        ps = "[" + " ".join(f"{{{p.name} {p.value}}}" for p in self.provider_specific) + "]"
        return (
            f"{self.dns_name} {self.record_ttl} IN {self.record_type} {self.set_identifier} "
            f"{self.targets} {ps}"
        )

    def copy(self) -> Endpoint:
        """A deep copy (ref_objects are shared, not copied)."""
        # Filled directly: the fields are already normalised, so __init__/__post_init__ would only cost time
        # (registries copy every record of a zone on each read).
        new = object.__new__(Endpoint)
        new.dns_name = self.dns_name
        new.record_type = self.record_type
        new.targets = Targets(self.targets)
        new.record_ttl = self.record_ttl
        new.set_identifier = self.set_identifier
        new.labels = dict(self.labels)
        new.provider_specific = [ProviderSpecificProperty(p.name, p.value) for p in self.provider_specific]
        new.ref_objects = list(self.ref_objects)
        return new

    @classmethod
    def record(cls, dns_name: str, record_type: str, targets: Targets, record_ttl: int) -> Endpoint:
        """A record as a provider reads it (no set identifier, labels or properties), built directly like
        `copy`: `targets` is taken as it is (a fresh `Targets` the caller hands over)."""
        new = object.__new__(Endpoint)
        new.dns_name = dns_name
        new.record_type = record_type
        new.targets = targets
        new.record_ttl = record_ttl
        new.set_identifier = ""
        new.labels = {}
        new.provider_specific = []
        new.ref_objects = []
        return new

    # -- provider-specific properties -------------------------------------------------------------------------
    def get_provider_specific_property(self, name: str) -> str | None:
        for p in self.provider_specific:
            if p.name == name:
                return p.value
        return None

    def set_provider_specific_property(self, name: str, value: str) -> None:
        for p in self.provider_specific:
            if p.name == name:
                p.value = value
                return
        self.provider_specific.append(ProviderSpecificProperty(name, value))

    def delete_provider_specific_property(self, name: str) -> None:
        self.provider_specific = [p for p in self.provider_specific if p.name != name]

    def get_bool_provider_specific_property(self, name: str) -> tuple[bool, bool]:
        """(value == "true", exists)."""
        value = self.get_provider_specific_property(name)
        if value is None:
            return (False, False)
        return (value == "true", True)

    def get_alias_property(self) -> bool | str | None:
        """The `alias` property: True for "true", False for "false", "A" / "AAAA" as given, else None
        (absent or unrecognised)."""
        value = self.get_provider_specific_property(PROVIDER_SPECIFIC_ALIAS)
        if value == "true":
            return True
        if value == "false":
            return False
        if value in (RECORD_TYPE_A, RECORD_TYPE_AAAA):
            return value
        return None

    def is_alias(self) -> bool:
        value, ok = self.get_bool_provider_specific_property(PROVIDER_SPECIFIC_ALIAS)
        return ok and value

    def retain_provider_properties(self, provider: str) -> None:
        """Drop `<other-provider>/...` properties (kept all for "" and "cloudflare"), then sort by name."""
        if not self.provider_specific:
            return
        if provider and provider != "cloudflare":
            prefix = provider + "/"
            self.provider_specific = [
                p for p in self.provider_specific if "/" not in p.name or p.name.startswith(prefix)
            ]
        self.provider_specific.sort(key=lambda p: p.name)

    # -- builders ---------------------------------------------------------------------------------------------
    def with_set_identifier(self, set_identifier: str) -> Endpoint:
        self.set_identifier = set_identifier
        return self

    def with_provider_specific(self, name: str, value: str) -> Endpoint:
        self.set_provider_specific_property(name, value)
        return self

    def with_label(self, key: str, value: str) -> Endpoint:
        self.labels[key] = value
        return self

    def with_min_ttl(self, ttl: int) -> None:
        """Set the TTL to `ttl` only when it is unset (0) and `ttl` > 0 (`--min-ttl`)."""
        if self.record_ttl <= 0 < ttl:
            log.debug("Overriding existing TTL", old_ttl=self.record_ttl, new_ttl=ttl, dns_name=self.dns_name)
            self.record_ttl = ttl

    # -- ownership ------------------------------------------------------------------------------------------
    def is_owned_by(self, owner_id: str) -> bool:
        """True when the `owner` label exists and equals `owner_id`."""
        owner = self.labels.get(OWNER_LABEL_KEY)
        return owner is not None and owner == owner_id

    def get_owner(self) -> str:
        """The `owner` label, else the set identifier."""
        owner = self.labels.get(OWNER_LABEL_KEY)
        return owner if owner is not None else self.set_identifier

    def get_naked_domain(self) -> str:
        """The name minus its first label, unless that leaves a single label
        (`www.example.com` -> `example.com`, `example.com` -> `example.com`)."""
        if not self.dns_name:
            return ""
        _first, sep, rest = self.dns_name.partition(".")
        if not sep or "." not in rest:
            return self.dns_name
        return rest

    # -- validation -----------------------------------------------------------------------------------------
    def invalid_reason(self) -> str | None:
        """None when the endpoint is well-formed for its type (external-dns `CheckEndpoint`), else why not."""
        rtype = self.record_type
        if rtype not in _ALIAS_TYPES:
            if self.get_provider_specific_property(PROVIDER_SPECIFIC_ALIAS) is not None:
                reason = f"Endpoint {self.dns_name} of type {rtype} does not support alias records"
                log.warning(reason)
                return reason
            if rtype == RECORD_TYPE_MX:
                return validation.mx_targets_problem(self.targets)
            if rtype == RECORD_TYPE_SRV:
                return validation.srv_targets_problem(self.targets)
            if rtype == RECORD_TYPE_PTR:
                return validation.ptr_problem(self.dns_name, self.targets)
            return None
        if rtype in (RECORD_TYPE_A, RECORD_TYPE_AAAA) and not self.is_alias():
            return validation.ip_targets_problem(rtype, self.targets)
        return None

    def check_endpoint(self) -> bool:
        """True when the endpoint is well-formed (see `invalid_reason`)."""
        reason = self.invalid_reason()
        if reason is not None:
            log.debug("Invalid endpoint", endpoint=str(self), reason=reason)
            return False
        return True

    # -- JSON -----------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The external-dns JSON form (empty fields omitted, as Go's `omitempty`)."""
        out: dict[str, Any] = {}
        if self.dns_name:
            out["dnsName"] = self.dns_name
        if self.targets:
            out["targets"] = list(self.targets)
        if self.record_type:
            out["recordType"] = self.record_type
        if self.set_identifier:
            out["setIdentifier"] = self.set_identifier
        if self.record_ttl:
            out["recordTTL"] = self.record_ttl
        if self.labels:
            out["labels"] = dict(self.labels)
        if self.provider_specific:
            out["providerSpecific"] = [p.to_json() for p in self.provider_specific]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Endpoint:
        """Decode the external-dns JSON form. Raises ValueError naming the field on a wrong type."""
        if not isinstance(data, Mapping):
            raise ValueError(f"endpoint must be an object, got {type(data).__name__}")
        data = struct_fields(data, _ENDPOINT_JSON_FIELDS)  # "DNSName" too, as Go's decoder
        targets = data.get("targets") or []
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise ValueError("endpoint field 'targets' must be a list of strings")
        ttl = data.get("recordTTL") or 0
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
            raise ValueError(f"endpoint field 'recordTTL' must be a non-negative integer, got {ttl!r}")
        labels = data.get("labels") or {}
        if not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise ValueError("endpoint field 'labels' must be a map of strings")
        ps_raw = data.get("providerSpecific") or []
        if not isinstance(ps_raw, list):
            raise ValueError("endpoint field 'providerSpecific' must be a list")
        ps: list[ProviderSpecificProperty] = []
        for item in ps_raw:
            if isinstance(item, Mapping):
                item = struct_fields(item, ("name", "value"))
            if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
                raise ValueError("endpoint field 'providerSpecific' items need a string 'name'")
            ps.append(ProviderSpecificProperty(str(item["name"]), str(item.get("value", ""))))
        for key in ("dnsName", "recordType", "setIdentifier"):
            if not isinstance(data.get(key, ""), str):
                raise ValueError(f"endpoint field '{key}' must be a string")
        return cls(
            dns_name=str(data.get("dnsName", "")),
            record_type=str(data.get("recordType", "")),
            targets=Targets(targets),
            record_ttl=int(ttl),
            set_identifier=str(data.get("setIdentifier", "")),
            labels=dict(labels),
            provider_specific=ps,
        )


def endpoints_to_json(endpoints: Iterable[Endpoint]) -> list[dict[str, Any]]:
    return [ep.to_json() for ep in endpoints]


def endpoints_from_json(data: Iterable[Mapping[str, Any]]) -> list[Endpoint]:
    return [Endpoint.from_json(item) for item in data]


def deep_copy_endpoints(endpoints: Iterable[Endpoint]) -> list[Endpoint]:
    return [copy.copy(ep).copy() for ep in endpoints]


def new_endpoint(dns_name: str, record_type: str, *targets: str, ttl: int = 0) -> Endpoint | None:
    """Build an endpoint as external-dns `NewEndpointWithTTL` does.

    One trailing `.` is trimmed from the name and from each target (targets of TXT, NAPTR and SRV keep it).
    A label longer than 63 characters -> None and an error log line (callers skip it).
    """
    for label in dns_name.split("."):
        if len(label) > validation.MAX_LABEL_LENGTH:
            log.error(
                f"label {label} in {dns_name} is longer than 63 characters. Cannot create endpoint",
                dns_name=dns_name,
                record_type=record_type,
            )
            return None
    if record_type in _KEEP_TARGET_DOT_TYPES:
        clean = list(targets)
    else:
        clean = [t[:-1] if t.endswith(".") else t for t in targets]
    return Endpoint(
        dns_name=dns_name[:-1] if dns_name.endswith(".") else dns_name,
        record_type=record_type,
        targets=Targets(clean),
        record_ttl=ttl,
    )


def new_ptr_endpoint(target: str, ttl: int = 0, *hostnames: str) -> Endpoint | None:
    """A PTR endpoint for the IP `target` (reverse name under in-addr.arpa / ip6.arpa) pointing at
    `hostnames`. ValueError naming the target when it is not an IP address."""
    try:
        reverse = dns.reversename.from_address(target).to_text(omit_final_dot=True)
    except (ValueError, dns.exception.DNSException) as exc:
        raise ValueError(f"failed to compute reverse address for {target}: {exc}") from exc
    return new_endpoint(reverse, RECORD_TYPE_PTR, *hostnames, ttl=ttl)
