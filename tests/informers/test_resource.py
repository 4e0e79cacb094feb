"""API resources (informers/resource.py): the apiVersion of their objects, their kubectl names and collection
paths, namespaced or cluster-wide, for the core API and named groups."""

from __future__ import annotations

import pytest

from external_dns.informers.resource import (
    BY_NAME,
    DNSENDPOINTS,
    INGRESSES,
    NODES,
    SERVICES,
    TLSROUTES,
    Resource,
)


@pytest.mark.parametrize(("resource", "api_version", "name"), [
    (SERVICES, "v1", "services"),
    (INGRESSES, "networking.k8s.io/v1", "ingresses.networking.k8s.io"),
    (DNSENDPOINTS, "externaldns.k8s.io/v1alpha1", "dnsendpoints.externaldns.k8s.io"),
    (TLSROUTES, "gateway.networking.k8s.io/v1alpha2", "tlsroutes.gateway.networking.k8s.io"),
])
def test_api_version_and_name(resource: Resource, api_version: str, name: str) -> None:
    assert (resource.api_version, resource.name) == (api_version, name)


def test_collection_paths() -> None:
    assert SERVICES.path() == "/api/v1/services"
    assert SERVICES.path("prod") == "/api/v1/namespaces/prod/services"
    assert INGRESSES.path("prod") == "/apis/networking.k8s.io/v1/namespaces/prod/ingresses"
    assert INGRESSES.path() == "/apis/networking.k8s.io/v1/ingresses"
    assert NODES.path("prod") == "/api/v1/nodes"  # cluster-scoped: a namespace does not narrow it
    assert SERVICES.path("") == "/api/v1/services"


def test_by_name_knows_every_resource_by_its_plural() -> None:
    assert BY_NAME["services"] is SERVICES and BY_NAME["nodes"] is NODES
    assert all(plural == r.plural and r.kind and r.version for plural, r in BY_NAME.items())
    assert len({(r.group, r.kind) for r in BY_NAME.values()}) == len(BY_NAME)  # no kind twice


def test_resources_are_values() -> None:
    assert Resource("", "v1", "services", "Service") == SERVICES
    assert len({SERVICES, Resource("", "v1", "services", "Service")}) == 1  # usable as a key
