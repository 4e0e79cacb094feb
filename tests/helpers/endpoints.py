"""Endpoints as tests spell them: `ep("www.example.org", "A", "192.0.2.1", ttl=60, resource="service/default/web")`;
`one_of_each()`: changes with one create, one update and one delete; `keys()`: what a set of endpoints holds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from external_dns.endpoint.endpoint import (
    OWNER_LABEL_KEY,
    RESOURCE_LABEL_KEY,
    Endpoint,
    ProviderSpecificProperty,
)
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes


def ep(name: str, rtype: str = "A", *targets: str, ttl: int = 0, set_id: str = "",
       labels: Mapping[str, str] | None = None, owner: str | None = None, resource: str | None = None,
       provider_specific: Iterable[tuple[str, str]] = ()) -> Endpoint:
    """A fresh endpoint, built field by field (no trimming, no checks: tests also build bad ones). Labels are
    `labels`, then the `owner` and `resource` labels when given."""
    out = Endpoint(dns_name=name, record_type=rtype, targets=Targets(targets), record_ttl=ttl,
                   set_identifier=set_id, labels=dict(labels or {}),
                   provider_specific=[ProviderSpecificProperty(n, v) for n, v in provider_specific])
    if owner is not None:
        out.labels[OWNER_LABEL_KEY] = owner
    if resource is not None:
        out.labels[RESOURCE_LABEL_KEY] = resource
    return out


def one_of_each() -> Changes:
    """Changes with one create, one update (old and new) and one delete, each an A record."""
    return Changes(
        create=[ep("c", "A", "1.1.1.1")],
        update_old=[ep("u", "A", "1.1.1.1")],
        update_new=[ep("u", "A", "2.2.2.2")],
        delete=[ep("d", "A", "1.1.1.1")],
    )


def keys(eps: Sequence[Endpoint]) -> set[tuple[str, str, str, tuple[str, ...]]]:
    """Name, type, set identifier and targets of each endpoint: what a list of records holds, in any order."""
    return {(e.dns_name, e.record_type, e.set_identifier, tuple(e.targets)) for e in eps}
