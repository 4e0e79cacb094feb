"""The Endpoint: one DNS record set as sources desire it and providers hold it.

Mirrors external-dns `endpoint/endpoint.go`: field names are snake_case versions of the Go names, the JSON
form uses the Go JSON keys (`dnsName`, `targets`, `recordType`, `setIdentifier`, `recordTTL`, `labels`,
`providerSpecific`), so plans and webhook bodies are interchangeable with external-dns.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from external_dns.endpoint.targets import Targets

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

# Label keys (endpoint/labels.go).
OWNER_LABEL_KEY = "owner"
RESOURCE_LABEL_KEY = "resource"
OWNED_RECORD_LABEL_KEY = "ownedRecord"
AWS_SD_DESCRIPTION_LABEL = "aws-sd-description"
TXT_ENCRYPTION_NONCE = "txt-encryption-nonce"

# Provider-agnostic provider-specific property names.
PROVIDER_SPECIFIC_ALIAS = "alias"
PROVIDER_SPECIFIC_RECORD_TYPE = "record-type"


@dataclass(eq=True)
class ProviderSpecificProperty:
    """One provider-specific `{name, value}` pair of an endpoint."""

    name: str
    value: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value}


@dataclass(eq=False)
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
            f"{list(self.targets)} {ps}"
        )

    def copy(self) -> Endpoint:
        """A deep copy (ref_objects are shared, not copied)."""
        return Endpoint(
            dns_name=self.dns_name,
            record_type=self.record_type,
            targets=Targets(self.targets),
            record_ttl=self.record_ttl,
            set_identifier=self.set_identifier,
            labels=dict(self.labels),
            provider_specific=[ProviderSpecificProperty(p.name, p.value) for p in self.provider_specific],
            ref_objects=list(self.ref_objects),
        )

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
